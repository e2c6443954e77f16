#pragma once

// The scale-down notice: before the Jobs above a lowered `replicas` are deleted, the controller
// announces it, for a period the JobSet asks for (scale_down_notice.h), to the Jobs that leave
// and to every Pod of their ReplicatedJob, those that stay included, so that a workload can
// checkpoint and learn that its group shrinks (docs/elastic.md, "Notice before deletion").
//
// A pure function of observed state, like plan_scale_down: the JobSet (its notice period, and
// the state annotation below, which only the controller writes), its Jobs, the Pods of its
// current attempt, and the wall-clock time. The annotations are the only state: a controller that
// restarts, or a new leader, reads the same deadline and carries on with it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jobset_webhook/json.h"
#include "plan_scale_down.h"

namespace jobset_webhook::controller {

// What every annotation of the notice starts with, the JobSet's period included.
inline constexpr const char* kNoticeAnnotationPrefix = "elastic.jobset-webhook.io/";

// On the JobSet, written by the controller alone: each ReplicatedJob's notice in progress,
//   {"restarts":0,"replicatedJobs":{"workers":{"replicas":2,"leaving":[2,3],
//    "deadline":"2026-12-02T16:30:00Z"}}}
// `restarts` is status.restarts when the notice began: a restart since cancels it.
inline constexpr const char* kNoticeStateKey = "elastic.jobset-webhook.io/scale-down-notice-state";
// On each leaving Job and on every Pod of the ReplicatedJob, for the workload to read: the new
// replicas ("2"), the indices that leave ("2,3", ascending), the deadline (RFC 3339, UTC).
inline constexpr const char* kNoticeReplicasKey = "elastic.jobset-webhook.io/scale-down-replicas";
inline constexpr const char* kNoticeLeavingKey = "elastic.jobset-webhook.io/scale-down-leaving";
inline constexpr const char* kNoticeDeadlineKey = "elastic.jobset-webhook.io/scale-down-deadline";

// A change of one object's notice annotations: a merge patch of metadata.annotations, a string
// value sets a key, null removes it.
struct AnnotationPatch {
  std::string resource;  // "jobs" or "pods"
  std::string name;
  Json annotations;
};

enum class NoticeEventKind { kStarted, kExtended, kCancelled, kEnded };

struct NoticeEvent {
  NoticeEventKind kind = NoticeEventKind::kStarted;
  std::string message;
};

// The Event reason: ScaleDownNoticeStarted, ...Extended, ...Cancelled, ...Ended.
const char* to_string(NoticeEventKind k);

struct NoticePlan {
  // The JobSet's kNoticeStateKey as it must be: a string to write, null to remove; absent when
  // it stays as it is.
  std::optional<Json> state;
  std::vector<AnnotationPatch> patches;  // Jobs first, then Pods, each by name
  std::vector<NoticeEvent> events;
  // ReplicatedJobs whose Jobs above replicas may be deleted now: no notice asked (period 0), its
  // deadline passed, or the JobSet suspended (no Pod runs to be told). A completed leaving Job
  // may go at once whatever this says (Deletion::completed).
  std::set<std::string> due;
  // The earliest deadline still ahead, when a notice is in progress.
  std::optional<std::chrono::system_clock::time_point> next_deadline;
  int in_progress = 0;  // ReplicatedJobs with a notice in progress after this plan
  // Of those, the ones whose deadline has passed: their Jobs are deleted, and the notice ends
  // once they are gone.
  int past_deadline = 0;
};

// The notice period of the JobSet: its annotation when it holds a valid value (digits, at most
// kMaxNoticeSeconds), else `default_seconds` (the policy file's).
std::int64_t notice_seconds(const Json& jobset, std::int64_t default_seconds);

// Whether a pass must list the JobSet's Pods and plan a notice: Jobs to delete and a period above
// 0, or a notice state to carry on or cancel. Without either, plan_notice has nothing to do and
// every deletion is due.
bool notice_wanted(const Json& jobset, const ScaleDownPlan& scale_down,
                   std::int64_t default_seconds);

// For each spec.replicatedJobs[i] (the leaving Jobs are `scale_down`'s deletions of it):
// - leaving Jobs, no notice yet: starts one, deadline now + period (no notice with period 0:
//   due at once);
// - a notice, replicas lowered further (or a new index above replicas): extends it to the new
//   Jobs, the deadline now + period unless the old one is later;
// - a notice, replicas raised but Jobs still leaving: the notice stays for those, the indices
//   that stay are taken out of it, the deadline kept;
// - a notice and no Job above replicas left: Cancelled when Jobs of the notice are still there
//   (scaled back up), Ended when they are gone or being deleted;
// - at or after the deadline: due.
// The whole JobSet's notice is cancelled when it restarted (status.restarts moved), is
// suspended (and then due at once), finished (Completed or Failed), or is being deleted (its
// Jobs and Pods are then left as they are: they go with it). Pods and Jobs get exactly their ReplicatedJob's notice
// annotations, or none; only those that differ are patched. Pods of another attempt, or being
// deleted, are left alone. Never throws.
[[nodiscard]] NoticePlan plan_notice(const Json& jobset, const std::vector<Json>& jobs,
                                     const std::vector<Json>& pods, const ScaleDownPlan& scale_down,
                                     std::int64_t default_seconds,
                                     std::chrono::system_clock::time_point now);

}  // namespace jobset_webhook::controller

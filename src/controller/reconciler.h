#pragma once

// One pass of the scale-down controller over one JobSet: plan, then delete one Job at a time,
// highest index first, and never on a stale view. Before every DELETE:
// - the JobSet is read again with a quorum GET (no resourceVersion: from etcd, so never older
//   than anything a watch delivered, the Jobs in the cache included), and the plan is made
//   again from it: the Job must still lie above the replicas of that read, in its current
//   restart attempt. A scale back up during a long scale-down, or Jobs of a scale-up that
//   arrive before the JobSet event that asked for them, therefore delete nothing that is wanted;
// - this process must still hold its Lease (`leading`, on a monotonic clock), checked after the
//   read, right before the DELETE.
// What remains open is the time between that read and the DELETE's arrival at the API server
// (one round trip): the API server offers no precondition on another object.
//
// When Jobs lie above replicas and the pass cannot delete them (plan_scale_down's WaitReason, a
// DELETE refused), the JobSet counts as waiting, by reason, and gets a Warning Event, at most
// one per reason every kWarningInterval; a pass that deletes or finds nothing to do clears it.
//
// With a scale-down notice (plan_notice.h) a pass first carries the notice forward: it lists the
// JobSet's Pods, writes the JobSet's state annotation (a patch at the resourceVersion read, so
// that a notice is never written against a replicas that changed since), records its Events,
// then patches the notice annotations of the Jobs and Pods that differ, and deletes only the
// Jobs that are due. A notice in progress brings the JobSet back at its deadline (kNotice).

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controller_metrics.h"
#include "jobset_webhook/kube/api.h"
#include "jobset_webhook/runtime/log.h"
#include "object_cache.h"
#include "plan_notice.h"
#include "plan_scale_down.h"

namespace jobset_webhook::controller {

inline constexpr std::chrono::minutes kWarningInterval{5};
// A JobSet read older than its Jobs is read again after this long, even if no event comes.
inline constexpr std::chrono::seconds kNewerAttemptRecheck{2};

struct ReconcilerEnv {
  using Clock = std::chrono::steady_clock;
  kube::Api& api;
  Cache& cache;
  ControllerMetrics& metrics;
  std::function<bool()> leading;  // this process holds its Lease now
  std::function<Clock::time_point()> now;
  const runtime::Log& log;
  std::string identity;  // reportingInstance of the Events
  // The wall clock: notice deadlines are times other processes read.
  std::function<std::chrono::system_clock::time_point()> wall_now;
  std::int64_t default_notice_seconds = 0;  // the policy file's elastic.scaleDownNoticeSeconds
};

enum class Outcome {
  kDone,     // nothing left to do until the next event
  kRetry,    // failed: again after a back-off
  kRecheck,  // waiting for a newer read: again after kNewerAttemptRecheck
  kNotice,   // a notice in progress: again after Reconciler::notice_recheck()
};

class Reconciler {
 public:
  explicit Reconciler(ReconcilerEnv env) : env_(std::move(env)) {}

  // One pass over the JobSet of `key` ("namespace/name"). Called from one thread at a time.
  Outcome reconcile(const std::string& key);
  // After kNotice: how long until the earliest deadline of the last pass's notice.
  std::chrono::milliseconds notice_recheck() const { return notice_recheck_; }
  // Drops what the JobSet of `key` counts in the gauges (waiting, notices): for a key that a
  // replica without the Lease sees and does not reconcile, so that a JobSet deleted meanwhile is
  // not counted when the replica leads again.
  void forget(const std::string& key);

 private:
  using Clock = ReconcilerEnv::Clock;

  Outcome delete_job(const std::string& key, const Json& jobset, const Deletion& d);
  // Writes what `plan` changes: the JobSet's state (kReread when that hit a newer version of
  // it), its Events, the Jobs' and Pods' annotations (kFailed when one could not be written: the
  // rest are written, the JobSet is tried again). `pods` and the cache take the patched objects.
  enum class Written { kDone, kReread, kFailed };
  Written write_notice(const std::string& key, const Json& jobset, const NoticePlan& plan,
                       std::vector<Json>& pods);
  // The JobSet waits for `reason`; a Warning Event says why (rate-limited).
  void wait(const std::string& key, const Json& jobset, WaitReason reason, const std::string& why);
  void stop_waiting(const std::string& key);
  bool recently_deleted(const std::string& uid);
  void record_event(const Json& jobset, const char* type, const std::string& reason,
                    const std::string& message);

  ReconcilerEnv env_;
  std::map<std::string, WaitReason> waiting_;  // JobSet key -> why
  std::map<std::pair<std::string, WaitReason>, Clock::time_point> warned_;
  std::map<std::string, Clock::time_point> deleted_;  // Job UID -> when we deleted it
  std::chrono::milliseconds notice_recheck_{0};
};

}  // namespace jobset_webhook::controller

#pragma once

// The scale-down decision: which child Jobs of a JobSet lie above a lowered `replicas` and may be
// deleted now. A pure function of observed state (the JobSet and the Jobs listed with its
// `jobset.sigs.k8s.io/jobset-name` label), like the admission rules: no API calls, clocks or logs.
//
// What upstream's JobSet controller (sigs.k8s.io/jobset v0.12.0) does, and why this plan is shaped
// around it:
// - It creates Jobs for indices 0 .. replicas-1 only (constructJobsFromTemplate) and deletes none
//   above them; they keep running and keep counting in status.replicatedJobsStatus.
// - getChildJobs lists Jobs by controller owner UID and buckets them by their Complete/Failed
//   condition with no look at deletionTimestamp or job-index: a Job being deleted counts as
//   active, successful or failed until it is gone, and a Job above replicas counts too.
// - executeSuccessPolicy completes the JobSet when the successful Jobs (any index) reach the
//   sum of replicas: completed Jobs above replicas make `successPolicy: All` complete early, so
//   they are deleted like running ones.
// - executeFailurePolicy runs on any failed Job of the current attempt. The Job controller
//   (k8s.io/kubernetes pkg/controller/job, isPodFailed) counts a Pod deleted before it
//   finished as failed, and marks the Job Failed once status.failed > backoffLimit, even while
//   the Job itself is being deleted. Foreground propagation keeps the Job visible while the
//   garbage collector deletes its Pods, so a Job whose Pods could push it past its backoffLimit
//   is deleted with Background propagation instead (the Job is gone at once; its Pods follow).
// - Jobs whose restart-attempt label is below status.restarts are the previous attempt's:
//   upstream deletes them itself (deleteJobs, foreground). One held back (a finalizer, Pods
//   Terminating on a lost node) must not hold back a scale-down of the current attempt.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook::controller {

inline constexpr const char* kJobSetGroupVersion = "jobset.x-k8s.io/v1alpha2";

// Upstream's label and annotation keys on child Jobs (api/jobset/v1alpha2/jobset_types.go,
// pkg/constants/constants.go).
inline constexpr const char* kJobSetNameKey = "jobset.sigs.k8s.io/jobset-name";
inline constexpr const char* kJobSetUidKey = "jobset.sigs.k8s.io/jobset-uid";
inline constexpr const char* kReplicatedJobNameKey = "jobset.sigs.k8s.io/replicatedjob-name";
inline constexpr const char* kJobIndexKey = "jobset.sigs.k8s.io/job-index";
inline constexpr const char* kRestartsKey = "jobset.sigs.k8s.io/restart-attempt";
inline constexpr const char* kJobRestartAttemptKey = "jobset.sigs.k8s.io/job-restart-attempt";

enum class Propagation { kForeground, kBackground };

// A label value as upstream writes it (strconv.Itoa of a non-negative int): digits only.
std::optional<std::int64_t> label_integer(const Json* labels, std::string_view key);
// status.conditions has `type` with status "True".
bool condition_true(const Json* status, std::string_view type);
// The controller owner reference of `job` is the JobSet of this UID.
bool controlled_by(const Json& job, const std::string& jobset_uid);

// "Foreground" or "Background", as the API's DeleteOptions spell them.
const char* to_string(Propagation p);

struct Deletion {
  std::string name;  // the Job's name
  std::string uid;   // the DELETE's preconditions.uid: never a Job created after it was seen
  std::string replicated_job;
  std::int64_t index = 0;
  Propagation propagation = Propagation::kForeground;
  bool completed = false;  // the Job had succeeded (it would count for the success policy)
};

// Why Jobs above replicas are left where they are. The plan sets the first two; the loop around
// it the last two, from the API server's answers.
enum class WaitReason {
  kNone,
  // A Job carries a restart attempt newer than the JobSet's status: the JobSet read is older
  // than its Jobs. Passes once the JobSet is read again.
  kNewerAttempt,
  // spec.managedBy names another controller: its Jobs are its own.
  kManagedElsewhere,
  // The API server refused the DELETE (403): the controller's RBAC lacks it.
  kForbidden,
  // The DELETE failed otherwise (5xx, no answer, a webhook on Jobs that refused it).
  kDeleteFailed,
};
inline constexpr int kWaitReasons = 5;

// The reason's label value in metrics and its word in Events: "newer_attempt", ...
const char* to_string(WaitReason r);

struct ScaleDownPlan {
  // Highest index first within a ReplicatedJob; ReplicatedJobs in spec order.
  std::vector<Deletion> deletions;
  // Why the JobSet as a whole is left alone ("being deleted", "restart in progress", ...);
  // empty when it was looked at.
  std::string skipped;
  // Set, with `skipped`, when that leaves Jobs above replicas that would otherwise be deleted.
  WaitReason waiting = WaitReason::kNone;
};

// The Jobs to delete: for each spec.replicatedJobs[i], the Jobs of the current restart attempt
// (restart-attempt label == status.restarts and, with per-Job restarts, job-restart-attempt ==
// status.replicatedJobsStatus[].jobRestarts[index]) whose job-index label is >= replicas, whose
// controller owner is this JobSet (kind JobSet, apiVersion jobset.x-k8s.io/v1alpha2, same UID),
// that are not already being deleted and have not failed (a failed Job is upstream's to handle:
// its failure policy restarts or fails the JobSet). Jobs of an older attempt are upstream's to
// delete: never named, and they hold nothing back.
// Nothing at all when the JobSet is being deleted, finished (Completed or Failed condition),
// managed by another controller (spec.managedBy), or older than its Jobs (a Job carries a newer
// attempt than the JobSet's status). Nothing on a scale-up: only Jobs at or above replicas are
// ever named. Jobs whose labels cannot be read are left alone. Never throws.
[[nodiscard]] ScaleDownPlan plan_scale_down(const Json& jobset, const std::vector<Json>& jobs);

}  // namespace jobset_webhook::controller

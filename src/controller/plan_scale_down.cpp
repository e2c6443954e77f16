#include "plan_scale_down.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include "jobset_webhook/json_access.h"
#include "jobset_webhook/upstream_jobset.h"

namespace jobset_webhook::controller {
namespace {

// Foreground deletion keeps the Job, with its Complete/Failed conditions, visible to upstream
// until the garbage collector has deleted its Pods. The Job controller counts each Pod deleted
// before it finished as failed (isPodFailed: "Count deleted Pods as failures") and sets the
// Job's Failed condition when status.failed > spec.backoffLimit (syncJob, exceedsBackoffLimit),
// deletion or not; upstream's JobSet controller would then run its failure policy on it.
// Foreground is kept only when even the deletion of every Pod the Job may have cannot pass its
// backoffLimit; a podFailurePolicy (which may fail the Job on a killed container's exit code)
// or a backoffLimitPerIndex makes the bound unknowable here, so those take Background.
Propagation propagation_for(const Json& job, bool completed) {
  if (completed) return Propagation::kForeground;  // a finished Job is never synced again
  const Json* spec = member(&job, "spec");
  const Json* status = member(&job, "status");
  if (member(spec, "podFailurePolicy") != nullptr ||
      member(spec, "backoffLimitPerIndex") != nullptr)
    return Propagation::kBackground;
  const std::int64_t backoff_limit = integer_at(spec, "backoffLimit").value_or(6);
  const std::int64_t parallelism = integer_at(spec, "parallelism").value_or(1);
  const std::int64_t active = integer_at(status, "active").value_or(0);
  std::int64_t worst = integer_at(status, "failed").value_or(0) +
                       integer_at(status, "terminating").value_or(0) +
                       std::max(active, parallelism);
  const Json* uncounted = member(member(status, "uncountedTerminatedPods"), "failed");
  if (uncounted != nullptr && uncounted->is_array())
    worst += static_cast<std::int64_t>(uncounted->size());
  return worst <= backoff_limit ? Propagation::kForeground : Propagation::kBackground;
}

// status.replicatedJobsStatus[name].jobRestarts[index] (upstream's getJobRestarts; 0 when absent).
std::int64_t target_job_restarts(const Json* status, const std::string& rjob, std::int64_t index) {
  const Json* list = member(status, "replicatedJobsStatus");
  if (list == nullptr || !list->is_array()) return 0;
  for (const auto& s : *list) {
    if (string_at(&s, "name") != rjob) continue;
    const Json* restarts = member(&s, "jobRestarts");
    if (restarts == nullptr || !restarts->is_array() || index >= std::ssize(*restarts)) return 0;
    const Json& v = (*restarts)[static_cast<std::size_t>(index)];
    return v.is_number_integer() ? v.get<std::int64_t>() : 0;
  }
  return 0;
}

struct Candidate {
  Deletion deletion;
  std::size_t rjob_position = 0;
};

}  // namespace

// A label value as upstream writes it (strconv.Itoa of a non-negative int): digits only.
std::optional<std::int64_t> label_integer(const Json* labels, std::string_view key) {
  const std::string s = string_at(labels, key);
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::int64_t n = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

bool condition_true(const Json* status, std::string_view type) {
  const Json* conditions = member(status, "conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const auto& c : *conditions) {
    if (string_at(&c, "type") == type && string_at(&c, "status") == "True") return true;
  }
  return false;
}

// Upstream's metav1.GetControllerOf(job) is this JobSet (SetupJobSetIndexes checks the same
// apiVersion and kind before indexing a Job under its owner's UID).
bool controlled_by(const Json& job, const std::string& jobset_uid) {
  const Json* refs = member(member(&job, "metadata"), "ownerReferences");
  if (refs == nullptr || !refs->is_array()) return false;
  for (const auto& ref : *refs) {
    const Json* controller = member(&ref, "controller");
    if (controller == nullptr || !controller->is_boolean() || !controller->get<bool>()) continue;
    return string_at(&ref, "apiVersion") == kJobSetGroupVersion &&
           string_at(&ref, "kind") == "JobSet" && string_at(&ref, "uid") == jobset_uid;
  }
  return false;
}

const char* to_string(Propagation p) {
  return p == Propagation::kForeground ? "Foreground" : "Background";
}

const char* to_string(WaitReason r) {
  switch (r) {
    case WaitReason::kNone: return "none";
    case WaitReason::kNewerAttempt: return "newer_attempt";
    case WaitReason::kManagedElsewhere: return "managed_elsewhere";
    case WaitReason::kForbidden: return "forbidden";
    case WaitReason::kDeleteFailed: return "delete_failed";
  }
  return "none";
}

ScaleDownPlan plan_scale_down(const Json& jobset, const std::vector<Json>& jobs) {
  ScaleDownPlan plan;
  const Json* meta = member(&jobset, "metadata");
  const Json* spec = member(&jobset, "spec");
  const Json* status = member(&jobset, "status");
  const std::string uid = string_at(meta, "uid");
  if (uid.empty()) {
    plan.skipped = "no metadata.uid";
    return plan;
  }
  // Upstream reconciles nothing once deletionTimestamp is set (jobSetMarkedForDeletion).
  if (member(meta, "deletionTimestamp") != nullptr) {
    plan.skipped = "being deleted";
    return plan;
  }
  // Upstream deletes every active Job of a finished JobSet itself (jobSetFinished).
  if (condition_true(status, "Completed") || condition_true(status, "Failed")) {
    plan.skipped = "finished";
    return plan;
  }
  const std::int64_t restarts = integer_at(status, "restarts").value_or(0);

  std::vector<std::pair<std::string, std::int64_t>> replicas;  // spec order
  const Json* rjobs = member(spec, "replicatedJobs");
  if (rjobs != nullptr && rjobs->is_array()) {
    for (const auto& r : *rjobs) {
      // The API server defaults replicas to 1.
      replicas.emplace_back(string_at(&r, "name"), integer_at(&r, "replicas").value_or(1));
    }
  }

  std::vector<Candidate> candidates;
  std::string newer;  // why the JobSet read is older than its Jobs, when it is
  for (const auto& job : jobs) {
    if (!controlled_by(job, uid)) continue;  // another owner's Job: never touched
    const Json* job_meta = member(&job, "metadata");
    const Json* labels = member(job_meta, "labels");
    const auto attempt = label_integer(labels, kRestartsKey);
    if (!attempt) continue;
    const std::string rjob = string_at(labels, kReplicatedJobNameKey);
    const auto index = label_integer(labels, kJobIndexKey);
    if (!index) continue;
    // With upstream's RestartJob gate, a Job's own attempt is compared with its target in
    // status.replicatedJobsStatus[].jobRestarts.
    const auto job_attempt = label_integer(labels, kJobRestartAttemptKey);
    const std::int64_t job_target = target_job_restarts(status, rjob, *index);
    // A newer attempt than the status says: the JobSet read is older than this Job, and its
    // replicas may be too. Nothing is planned from it.
    if (*attempt > restarts || (job_attempt && *job_attempt > job_target)) {
      if (newer.empty()) {
        newer = "the JobSet read is older than Job " + string_at(job_meta, "name") + " (" +
                (*attempt > restarts ? "restart attempt " + std::to_string(*attempt) +
                                           ", status.restarts " + std::to_string(restarts)
                                     : "job restart attempt " + std::to_string(*job_attempt) +
                                           ", jobRestarts " + std::to_string(job_target)) +
                ")";
      }
      continue;
    }
    // An older attempt: upstream deletes it itself (getChildJobs puts it in `previous`, and
    // with the RestartJob gate a Job behind its target is recreated).
    if (*attempt < restarts || (job_attempt && *job_attempt < job_target)) continue;
    const auto rj = std::find_if(replicas.begin(), replicas.end(),
                                 [&](const auto& r) { return r.first == rjob; });
    if (rj == replicas.end() || *index < rj->second) continue;       // kept: below replicas
    if (member(job_meta, "deletionTimestamp") != nullptr) continue;  // already going
    const Json* job_status = member(&job, "status");
    if (condition_true(job_status, "Failed")) continue;  // upstream's failure policy's to handle
    const std::string name = string_at(job_meta, "name");
    const std::string job_uid = string_at(job_meta, "uid");
    if (name.empty() || job_uid.empty()) continue;
    Candidate c;
    c.deletion.name = name;
    c.deletion.uid = job_uid;
    c.deletion.replicated_job = rjob;
    c.deletion.index = *index;
    c.deletion.completed = condition_true(job_status, "Complete");
    c.deletion.propagation = propagation_for(job, c.deletion.completed);
    c.rjob_position = static_cast<std::size_t>(rj - replicas.begin());
    candidates.push_back(std::move(c));
  }
  const std::string managed_by = string_at(spec, "managedBy");
  const bool elsewhere = !managed_by.empty() && managed_by != kJobSetControllerName;
  if (elsewhere) {
    plan.skipped = "managed by " + managed_by;
    if (!candidates.empty()) plan.waiting = WaitReason::kManagedElsewhere;
    return plan;
  }
  if (!newer.empty()) {
    plan.skipped = newer;
    plan.waiting = WaitReason::kNewerAttempt;
    return plan;
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.rjob_position != b.rjob_position) return a.rjob_position < b.rjob_position;
    if (a.deletion.index != b.deletion.index) return a.deletion.index > b.deletion.index;
    return a.deletion.name < b.deletion.name;
  });
  for (auto& c : candidates) plan.deletions.push_back(std::move(c.deletion));
  return plan;
}

}  // namespace jobset_webhook::controller

#include "scale_safety.h"

#include <algorithm>
#include <string>

#include "create_internal.h"
#include "jobset_webhook/field/value.h"
#include "jobset_webhook/validation/create.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

constexpr std::size_t kMaxNameLength = 63;  // a DNS-1035 label

// The most replicas whose highest index has at most `digits` digits.
std::int64_t max_replicas_for_digits(std::int64_t digits) {
  std::int64_t n = 1;
  for (std::int64_t d = 0; d < digits && n <= kMaxInt32; ++d) n *= 10;
  return std::min(n, kMaxInt32);
}

std::string keep_at_most(std::int64_t n) { return "keep replicas at most " + std::to_string(n); }

struct Scale {
  JsonView rjob;
  const ReplicasChange& change;
  field::Path path;  // its replicas
  bool up() const { return change.new_replicas > change.old_replicas; }
  field::Error error(const std::string& detail) const {
    return field::invalid(path, field::BadValue::integer(change.new_replicas), detail);
  }
};

// R5 (upstream's ValidateCreate): the controller counts pods in int32.
void check_pods(const Scale& s, field::ErrorList& errs) {
  if (!s.up() || pods_of(s.rjob, s.change.new_replicas) <= kMaxInt32) return;
  const std::int64_t per_job = pods_of(s.rjob, 1);
  errs.push_back(s.error(replicas_times_parallelism_message(s.change.replicated_job) + ": " +
                         keep_at_most(kMaxInt32 / per_job)));
}

// R7 and R8 (upstream's ValidateCreate): a Job or pod name over 63 characters cannot be created.
void check_names(const Scale& s, std::string_view jobset, field::ErrorList& errs) {
  if (!s.up()) return;
  const std::string job_name = longest_job_name(jobset, s.rjob, s.change.new_replicas);
  const std::size_t index_digits = std::to_string(s.change.new_replicas - 1).size();
  const auto report = [&](std::string_view upstream, const std::string& name) {
    if (name.size() <= kMaxNameLength) return;
    const auto room = std::int64_t(kMaxNameLength) - std::int64_t(name.size() - index_digits);
    std::string detail = std::string(upstream) + ": " + field::go_quote(name) + " has " +
                         std::to_string(name.size()) + " characters";
    if (room >= 1) detail += "; " + keep_at_most(max_replicas_for_digits(room));
    errs.push_back(s.error(detail));
  };
  report(kJobNameTooLong, job_name);
  if (const auto pod_name = longest_pod_name(job_name, s.rjob)) report(kPodNameTooLong, *pod_name);
}

// R12 (upstream's validateFailurePolicy): RestartJob records restarts per Job, at most 1024.
void check_restart_job_limit(const Scale& s, MaybeJson spec, const Policy& policy,
                             field::ErrorList& errs) {
  if (!policy.feature_gates.restart_job || !s.up() ||
      s.change.new_replicas <= kMaxReplicasPerReplicatedJob)
    return;
  const auto rules = items_of(at(spec, {"failurePolicy", "rules"}));
  if (std::none_of(rules.begin(), rules.end(), [](JsonView rule) {
        return is_restart_job_action(string_or_empty(member(rule, "action")));
      }))
    return;
  errs.push_back(s.error(std::string(kRestartJobTooManyReplicas) + ": " +
                         keep_at_most(kMaxReplicasPerReplicatedJob)));
}

// R13 (upstream's validateCoordinator, which upstream runs on CREATE only): the controller keeps
// labelling every pod with the endpoint of the coordinator's Job, which a scale-down past it
// leaves without a Job. The new object's coordinator counts, so one update may move both.
void check_coordinator(const Scale& s, MaybeJson spec, std::string_view jobset,
                       field::ErrorList& errs) {
  const MaybeJson coordinator = member(spec, "coordinator");
  if (!coordinator || s.up() ||
      string_or_empty(member(coordinator, "replicatedJob")) != s.change.replicated_job)
    return;
  const std::int64_t job_index = integer_of(member(coordinator, "jobIndex")).value_or(0);
  if (job_index < 0 || job_index < s.change.new_replicas) return;
  std::string detail = coordinator_job_index_message(job_index, s.change.replicated_job) +
                       ": every pod's coordinator label would name Job " +
                       child_job_name(jobset, s.change.replicated_job, job_index) +
                       ", which no longer exists; keep replicas at " +
                       std::to_string(job_index + 1) + " or more";
  if (s.change.new_replicas > 0) {
    detail += ", or set spec.coordinator.jobIndex below " + std::to_string(s.change.new_replicas) +
              " in the same update";
  }
  errs.push_back(s.error(detail));
}

// With the RestartJob gate, upstream's controller reads status.replicatedJobsStatus[].jobRestarts
// (and jobRestartsCountTowardsMax) by job index: labelAndAnnotateObject for every Job it creates,
// getChildJobs and failurePolicyRecreateJob for every Job it finds. Once set, a list keeps its
// length (getJobRestarts clones it), so a Job index past its end fails every reconcile.
void check_restart_lists(const Scale& s, JsonView old_js, const Policy& policy,
                         field::ErrorList& errs) {
  if (!policy.feature_gates.restart_job || !s.up()) return;
  const auto statuses = items_of(at(old_js, {"status", "replicatedJobsStatus"}));
  for (std::size_t k = 0; k < statuses.size(); ++k) {
    if (string_or_empty(member(statuses[k], "name")) != s.change.replicated_job) continue;
    for (const std::string_view list : {"jobRestarts", "jobRestartsCountTowardsMax"}) {
      const auto length = std::int64_t(items_of(member(statuses[k], list)).size());
      if (length == 0 || s.change.new_replicas <= length) continue;
      errs.push_back(s.error(
          "job index " + std::to_string(length) + " is out of bounds for replicated job " +
          s.change.replicated_job + ": status.replicatedJobsStatus[" + std::to_string(k) + "]." +
          std::string(list) + " has " + std::to_string(length) +
          " entries, which the JobSet controller (RestartJob feature gate) reads by job index and "
          "never lengthens; " +
          keep_at_most(length)));
      return;
    }
    return;
  }
}

}  // namespace

void check_scale_safety(JsonView old_js, JsonView new_js, const std::vector<ReplicasChange>& scaled,
                        const Policy& policy, field::ErrorList& errs) {
  const MaybeJson spec = member(new_js, "spec");
  const auto rjobs = items_of(member(spec, "replicatedJobs"));
  const std::string jobset = name_for_validation(new_js);
  for (const auto& change : scaled) {
    if (change.index >= rjobs.size()) continue;
    const Scale s{
        rjobs[change.index], change,
        field::Path("spec").child("replicatedJobs").index(change.index).child("replicas")};
    check_pods(s, errs);
    check_names(s, jobset, errs);
    check_restart_job_limit(s, spec, policy, errs);
    check_coordinator(s, spec, jobset, errs);
    check_restart_lists(s, old_js, policy, errs);
  }
}

}  // namespace jobset_webhook::validation

// R13: spec.coordinator on CREATE (upstream's validateCoordinator and
// validateCoordinatorLabelValue).

#include <algorithm>
#include <optional>
#include <utility>

#include "names.h"
#include "create_internal.h"

namespace jobset_webhook::validation {
namespace {

constexpr std::string_view kCoordinatorLabel = "jobset.sigs.k8s.io/coordinator";

field::Path coordinator_path() { return field::Path("spec").child("coordinator"); }

// The first problem with the coordinator's position, as upstream reports only the first, and the
// field that causes it.
std::optional<std::pair<std::string, field::Path>> coordinator_problem(const CreateInput& in,
                                                                       std::string_view rjob_name,
                                                                       std::int64_t job_index,
                                                                       std::int64_t pod_index) {
  const auto rjob = std::find_if(in.replicated_jobs.begin(), in.replicated_jobs.end(),
                                 [&](JsonView r) { return replicated_job_name(r) == rjob_name; });
  if (rjob == in.replicated_jobs.end()) {
    return std::pair{"coordinator replicatedJob " + std::string(rjob_name) + " does not exist",
                     coordinator_path().child("replicatedJob")};
  }
  if (job_index < 0 || job_index >= replicated_job_replicas(*rjob)) {
    return std::pair{coordinator_job_index_message(job_index, rjob_name),
                     coordinator_path().child("jobIndex")};
  }
  const MaybeJson spec = job_spec(*rjob);
  const auto completions = integer_of(member(spec, "completions"));
  if (string_of(member(spec, "completionMode")) != "Indexed" || !completions) {
    return std::pair{
        std::string("job for coordinator pod must be indexed completion mode, and completions "
                    "number must be set"),
        field::Path("spec")
            .child("replicatedJobs")
            .index(static_cast<std::size_t>(rjob - in.replicated_jobs.begin()))
            .child("template", "spec")};
  }
  if (pod_index < 0 || pod_index >= wrap_int32(*completions)) {
    return std::pair{"coordinator pod index " + std::to_string(pod_index) +
                         " is invalid for replicatedJob " + std::string(rjob_name) + " job index " +
                         std::to_string(job_index),
                     coordinator_path().child("podIndex")};
  }
  return std::nullopt;
}

}  // namespace

std::string coordinator_job_index_message(std::int64_t job_index, std::string_view replicated_job) {
  return "coordinator job index " + std::to_string(job_index) + " is invalid for replicatedJob " +
         std::string(replicated_job);
}

void validate_coordinator(const CreateInput& in, field::ErrorList& errs) {
  const MaybeJson coordinator = member(in.spec, "coordinator");
  const auto rjob_name = string_or_empty(member(coordinator, "replicatedJob"));
  const std::int64_t job_index = integer_of(member(coordinator, "jobIndex")).value_or(0);
  const std::int64_t pod_index = integer_of(member(coordinator, "podIndex")).value_or(0);
  if (auto problem = coordinator_problem(in, rjob_name, job_index, pod_index))
    errs.push_back(plain_error(problem->first, problem->second));

  // The controller labels every pod with the coordinator's DNS name:
  // <jobset>-<rjob>-<job>-<pod>.<subdomain>, where the subdomain defaults to the JobSet name. It
  // runs even when the position is invalid.
  const auto subdomain = string_or_empty(at(in.spec, {"network", "subdomain"}));
  const std::string endpoint = in.name + "-" + std::string(rjob_name) + "-" +
                               std::to_string(job_index) + "-" + std::to_string(pod_index) + "." +
                               (subdomain.empty() ? in.name : std::string(subdomain));
  const auto msgs = is_label_value(endpoint);
  if (msgs.empty()) return;
  std::string joined;
  for (const auto& m : msgs) joined += (joined.empty() ? "" : ", ") + m;
  errs.push_back(plain_error("spec will lead to invalid label value " + field::go_quote(endpoint) +
                                 " for coordinator label " + field::go_quote(kCoordinatorLabel) +
                                 " (long JobSet / ReplicatedJob / SubDomain name?): " + joined,
                             coordinator_path()));
}

}  // namespace jobset_webhook::validation

#pragma once

// The parts of validate_create_rules that have a file of their own, and what they share.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {

// The JobSet as the create rules read it.
struct CreateInput {
  MaybeJson spec;
  std::string name;  // name_for_validation
  std::vector<JsonView> replicated_jobs;
  std::unordered_set<std::string_view> replicated_job_names;
  const Policy& policy;
};

// A plain upstream error (fmt.Errorf): an Internal error that names no field. origin is the field
// that caused it (field::Error::origin), for reports that point at a line; it is never printed.
field::Error plain_error(std::string message, const field::Path& origin = {});

// A ReplicatedJob's fields as Go decodes them: absent is the zero value.
std::string_view replicated_job_name(JsonView rjob);
std::int32_t replicated_job_replicas(JsonView rjob);
MaybeJson job_spec(JsonView rjob);  // template.spec

// The messages of the create rules that read replicas, composed here once: CREATE reports them,
// and an UPDATE that changes replicas reports them again (scale_safety.h).
inline constexpr std::string_view kJobNameTooLong =
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters";
inline constexpr std::string_view kPodNameTooLong =
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters";
// Stands in for the 5 random characters the Job controller appends to a pod name.
inline constexpr std::string_view kPodNameSuffix = "-abcde";
// The RestartJob actions record restarts per Job in a status list of at most 1024 entries.
inline constexpr std::int32_t kMaxReplicasPerReplicatedJob = 1024;
inline constexpr std::string_view kRestartJobTooManyReplicas =
    "JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
    "action and a replicated job with replicas > 1024";
std::string replicas_times_parallelism_message(std::string_view replicated_job);
std::string coordinator_job_index_message(std::int64_t job_index, std::string_view replicated_job);
// R5's pods: replicas × parallelism (absent parallelism is 1), both int32 as upstream's.
std::int64_t pods_of(JsonView rjob, std::int64_t replicas);
// R7: the name of the Job with the highest index, <jobset>-<rjob>-<replicas-1> (int32).
std::string longest_job_name(std::string_view jobset, JsonView rjob, std::int64_t replicas);
// R8: the longest pod name of an Indexed Job with completions set, else nothing.
std::optional<std::string> longest_pod_name(std::string_view longest_job, JsonView rjob);
bool is_restart_job_action(std::string_view action);

// R12, when spec.failurePolicy is set.
void validate_failure_policy(const CreateInput& in, field::ErrorList& errs);
// R13, when spec.coordinator is set.
void validate_coordinator(const CreateInput& in, field::ErrorList& errs);
// R14, when spec.volumeClaimPolicies is not empty.
void validate_volume_claim_policies(const CreateInput& in, field::ErrorList& errs);

}  // namespace jobset_webhook::validation

#pragma once

// The parts of validate_create_rules that have a file of their own, and what they share.

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

// R12, when spec.failurePolicy is set.
void validate_failure_policy(const CreateInput& in, field::ErrorList& errs);
// R13, when spec.coordinator is set.
void validate_coordinator(const CreateInput& in, field::ErrorList& errs);
// R14, when spec.volumeClaimPolicies is not empty.
void validate_volume_claim_policies(const CreateInput& in, field::ErrorList& errs);

}  // namespace jobset_webhook::validation

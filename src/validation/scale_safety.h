#pragma once

// What keeps an elastic scale one that upstream's JobSet controller (v0.12.0) carries out: the
// create rules that read replicas hold again after the UPDATE, and the new count fits the state
// the old object's status records.

#include <vector>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/validation/scale_warnings.h"

namespace jobset_webhook::validation {

// For each ReplicatedJob in `scaled` (replicas changed, the new count an int32 >= 0), appends an
// error at spec.replicatedJobs[i].replicas, in upstream's words plus what to do, when the new
// count breaks a rule of upstream's ValidateCreate that reads replicas: replicas × parallelism
// (R5), the longest Job and pod names (R7, R8), the RestartJob limit of 1024 (R12), the
// coordinator's job index (R13); or when, with the RestartJob gate, it outgrows the old status's
// per-Job restart lists. Only a scale towards the limit is refused, so that a JobSet stored
// beyond it can be scaled back.
void check_scale_safety(JsonView old_js, JsonView new_js, const std::vector<ReplicasChange>& scaled,
                        const Policy& policy, field::ErrorList& errs);

}  // namespace jobset_webhook::validation

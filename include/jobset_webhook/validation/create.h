#pragma once

// The CREATE rules for a JobSet, at parity with upstream kubernetes-sigs/jobset v0.12.0, plus
// main's check of child names against the name generateName will produce. See
// docs/policy.md for every rule with its path and message.
//
// Two steps, as the API server runs them for a CREATE after the defaults (decide.h,
// validate_create_after_defaults, puts the defaults first):
//   1. validate_create_schema: the CRD's OpenAPI schema and CEL rules;
//   2. validate_create_rules: the validating webhook (ValidateCreate), only if 1 passed.

#include <string>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"

namespace jobset_webhook::validation {

// Upstream's ValidateCreate on the object exactly as given: absent fields are Go's zero values
// (replicas 0, groupName ""), nothing is defaulted first. Plain upstream errors (fmt.Errorf) are
// Internal errors without a field, printing `<nil>: Internal error: <msg>` as upstream v0.12.0
// does. The feature gates come from policy (InPlaceRestart, RestartJob; upstream's defaults are
// off). A quantity upstream's decoder cannot read is answered alone, before any rule
// (validate_quantity_decoding in quantity.h). Not reproduced: the lookup of an existing PVC named after a volumeClaimPolicies template,
// which needs the cluster. Never throws.
field::ErrorList validate_create_rules(JsonView js, const Policy& policy);

// The API server's checks of the JobSet CRD that apply on CREATE, on the object as given: types,
// required fields, enums, minimums (replicas >= 0 as on upstream main), maxItems, the
// replicatedJobs and dependsOn list-map keys, and the CEL rules "StartupPolicy and DependsOn
// APIs are mutually exclusive" and "namespace cannot be set for VolumeClaimPolicies templates";
// plus metadata.name / generateName as DNS-1123 subdomains. Messages follow the API server's
// form, e.g. `spec.replicatedJobs[0].replicas: Invalid value: -1: spec.replicatedJobs[0].replicas
// in body should be greater than or equal to 0`. Never throws.
field::ErrorList validate_create_schema(JsonView js);

// The schema, then, when the schema passes, the webhook rules, on js as given. Never throws.
field::ErrorList validate_create(JsonView js, const Policy& policy);

// The JobSet name that child names are built from: metadata.name, or for an object with only
// metadata.generateName the name the API server will generate (simulated_generated_name), or "".
std::string name_for_validation(JsonView js);

}  // namespace jobset_webhook::validation

#pragma once

// What the API server does with the JobSet a client sends, before and around our webhooks: what
// it stores (unknown fields pruned, then the defaults: the CRD's, the mutating webhook's, the
// CRD's again) and what it answers (on an UPDATE the CRD's schema on the new object, with
// ratcheting, then the validating webhook's decide). The front ends without an API server
// (`check`, `validate`, `default`) ask this layer, never validation or defaulting directly, so
// that they hold no model of the cluster of their own. Never throws.

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/decide.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/result.h"
#include "jobset_webhook/validation/unknown_fields.h"

namespace jobset_webhook::apiserver {

// A field the CRD does not declare, and the API server's words for it (validation/unknown_fields.h).
using UnknownField = validation::UnknownField;
using validation::kStrictCreatePrefix;
using validation::unknown_field_message;

// Removes from a JobSet the fields its CRD does not declare, as the API server prunes them, and
// returns them (sorted by path). Failure only when the object cannot be re-read as JSON.
Result<std::vector<UnknownField>> prune_unknown_fields(Json& object);

// The CRD's schema defaults alone, as the API server applies them when it decodes an object
// (defaulting::crd_defaults_patch).
void apply_crd_defaults(Json& jobset);

// What the API server stores for a CREATE of jobset, already pruned: defaulting::create_defaults,
// the order the validating webhook's CREATE applies too. Failure only when a patch does not
// apply.
Result<Json> create_defaults(const Json& jobset);

// A JobSet as the cluster stores it from what a client sent.
struct Stored {
  Json object;                        // pruned, then defaulted
  std::vector<UnknownField> unknown;  // what pruning removed, in the API server's order
};

// prune_unknown_fields, then create_defaults.
Result<Stored> store(const Json& sent);

// The API server's answer for stored objects (old_object nullptr: a CREATE): on UPDATE the CRD's
// schema on the new object (validation::validate_update_schema), and only when it passes the
// validating webhook (decide). `name` names the object in a rejection.
Result<Decision> admit(const Json& object, const Json* old_object, std::string_view name,
                       const Policy& policy);

// The same for a ReplicatedJobScaler as sent (old_scaler nullptr: a CREATE): the CRD's default
// and CEL rules (validation/replicated_job_scaler.h), and only when they pass the webhook's rules
// on the scaler's hook (decide). Failure only when a scaler cannot be read as JSON.
Result<Decision> admit_scaler(const Json& scaler, const Json* old_scaler, std::string_view name);

}  // namespace jobset_webhook::apiserver

#pragma once

// What a cluster stores for a JobSet manifest: the defaults the API server and the mutating
// webhook fill in. `check` compares stored forms, not texts, so that a field one side spells out
// and the other leaves to its default is no change; `default` prints them.

#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// The JobSet CRD's schema defaults, as the API server applies them (defaulting/defaults.h,
// crd_defaults_patch). Never throws.
void apply_schema_defaults(Json& jobset);

// What the API server stores for a CREATE of jobset: defaulting::create_defaults, the order the
// validating webhook's CREATE applies too. Failure only when a patch does not apply.
Result<Json> cluster_defaults(const Json& jobset);

}  // namespace jobset_webhook::cli

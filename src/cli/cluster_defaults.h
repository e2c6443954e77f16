#pragma once

// What a cluster stores for a JobSet manifest: the defaults the API server and the mutating
// webhook fill in. `check` compares stored forms, not texts, so that a field one side spells out
// and the other leaves to its default is no change; `default` prints them.

#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// The JobSet CRD's schema defaults, as the API server applies them (defaulting/defaults.h,
// crd_defaults_patch). Never throws.
void apply_schema_defaults(Json& jobset);

// The API server's order for a CREATE: schema defaults, then the mutating webhook's defaults (the
// JSON Patch of decide() for Hook::kMutating, CREATE, applied here), then the schema defaults
// again when the patch changed something. Failure only when the patch does not apply.
Result<Json> cluster_defaults(const Json& jobset, const Policy& policy);

}  // namespace jobset_webhook::cli

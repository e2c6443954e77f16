#pragma once

// `check` and `validate` for a ReplicatedJobScaler (docs/elastic.md): what the API server and
// this project's webhook answer a create or an update of one, in the order the API server applies
// them: the CRD's default and CEL rules (validation/replicated_job_scaler.h), then, when those
// pass, the webhook's rules through decide() on the scaler's hook. The message is the API
// server's status.message for either refusal; findings point at their field as a JobSet's do.

#include "manifests.h"
#include "report.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// old_scaler is null for a CREATE. Failure only when a scaler cannot be read as JSON.
Result<JobSetResult> judge_scaler(Change change, const JobSetManifest& scaler,
                                  const JobSetManifest* old_scaler);

}  // namespace jobset_webhook::cli

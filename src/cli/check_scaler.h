#pragma once

// `check` and `validate` for a ReplicatedJobScaler (docs/elastic.md): what the API server and
// this project's webhook answer a create or an update of one (apiserver::admit_scaler), with
// the API server's status.message for a refusal and each finding at its field, as a JobSet's.

#include "manifests.h"
#include "report.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// old_scaler is null for a CREATE. Failure only when a scaler cannot be read as JSON.
Result<JobSetResult> judge_scaler(Change change, const JobSetManifest& scaler,
                                  const JobSetManifest* old_scaler);

}  // namespace jobset_webhook::cli

#pragma once

// The offline admission model behind `check` and `validate` (docs/ci-gating.md):
// 1. both sides get what the cluster would store (cluster_defaults: the CRD's schema defaults,
//    then the mutating webhook's defaults from decide());
// 2. each JobSet goes through decide() as the validating webhook: UPDATE when it is paired with a
//    JobSet of the old side (by its file's place, or a unique move: cli/pairing.h), CREATE
//    otherwise; an old one that nothing pairs with is a deletion, reported, not judged.
// Findings point at the field they name, or for an error without one (upstream's `<nil>`) at the
// field that caused it (field::Error::origin); a scale warning points at its replicas.
// The verdict and message are exactly what admission::handle_review answers for an AdmissionReview
// carrying the same stored objects.

#include "jobset_webhook/cli/manifests.h"
#include "jobset_webhook/cli/report.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// Failure: a namespace/name twice in one file, or defaults that do not apply.
Result<Report> check_manifests(const Manifests& old_side, const Manifests& new_side,
                               const Policy& policy);

// The CREATE rules for every JobSet. Failure as for check_manifests.
Result<Report> validate_manifests(const Manifests& manifests, const Policy& policy);

}  // namespace jobset_webhook::cli

#pragma once

// The offline admission model behind `check` and `validate` (docs/ci-gating.md):
// 1. both sides get what the cluster would store (apiserver::store: pruned, then the defaults in
//    the order decide() applies on a CREATE too);
// 2. each JobSet goes through apiserver::admit (the UPDATE schema, then decide() as the validating
//    webhook): UPDATE when it is paired with a
//    JobSet of the old side (by its file's place, or a unique move: cli/pairing.h), CREATE
//    otherwise; an old one that nothing pairs with is a deletion, reported, not judged.
// Findings point at the field they name, or for an error without one (upstream's `<nil>`) at the
// field that caused it (field::Error::origin); a scale warning points at its replicas.
// The verdict and message are exactly what admission::handle_review answers for an AdmissionReview
// carrying the same stored objects.
// Before both steps, the fields the JobSet CRD does not declare are handled as the API server
// handles them on a kubectl apply (validation/unknown_fields.h), by kubectl's --field-validation.

#include <optional>
#include <string_view>
#include <vector>

#include "manifests.h"
#include "report.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// kubectl's --field-validation (default Strict since kubectl 1.27): with Strict the API server
// refuses a JobSet that holds a field the CRD does not declare ("strict decoding error: unknown
// field ..."), before any webhook; with Warn it prunes the field and says so in a warning; with
// Ignore it prunes it silently. Pruned fields never take part in the comparison.
enum class FieldValidation { kStrict, kWarn, kIgnore };

// "Strict", "Warn", "Ignore" (kubectl's spellings); nullopt for anything else.
std::optional<FieldValidation> parse_field_validation(std::string_view name);

// Failure: a namespace/name twice in one file, or defaults that do not apply.
Result<Report> check_manifests(const Manifests& old_side, const Manifests& new_side,
                               const Policy& policy,
                               FieldValidation field_validation = FieldValidation::kStrict);

// The CREATE rules for every JobSet. Failure as for check_manifests.
Result<Report> validate_manifests(const Manifests& manifests, const Policy& policy,
                                  FieldValidation field_validation = FieldValidation::kStrict);

}  // namespace jobset_webhook::cli

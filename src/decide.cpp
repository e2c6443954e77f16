#include "jobset_webhook/decide.h"

#include "jobset_webhook/validation/update.h"

namespace jobset_webhook {

Decision decide(const AdmissionRequest& request, const Policy& policy) {
  Decision decision;
  // Defaults are applied on CREATE only (issue #3); until then the mutating hook has nothing to
  // patch, and create validation lands with it.
  if (request.hook == Hook::kMutating || request.operation != Operation::kUpdate) return decision;
  auto findings = validation::validate_update(request.old_object, request.object, policy);
  decision.errors = std::move(findings.errors);
  decision.warnings = std::move(findings.warnings);
  decision.allowed = decision.errors.empty();
  return decision;
}

}  // namespace jobset_webhook

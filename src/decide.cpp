#include "jobset_webhook/decide.h"

#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/validation/create.h"
#include "jobset_webhook/validation/update.h"

namespace jobset_webhook {

Decision decide(const AdmissionRequest& request, const Policy& policy) {
  Decision decision;
  if (request.hook == Hook::kMutating) {
    // Defaults on CREATE only, as upstream registers its mutating webhook: defaulting on UPDATE
    // makes server-side apply loop (kubernetes-sigs/jobset issue 926).
    if (request.operation == Operation::kCreate)
      decision.patch = defaulting::defaults_patch(request.object);
    return decision;
  }
  switch (request.operation) {
    case Operation::kCreate:
      decision.errors = validation::validate_create(request.object, policy);
      break;
    case Operation::kUpdate: {
      auto findings = validation::validate_update(request.old_object, request.object, policy);
      decision.errors = std::move(findings.errors);
      decision.warnings = std::move(findings.warnings);
      break;
    }
    case Operation::kDelete:
    case Operation::kConnect: break;
  }
  decision.allowed = decision.errors.empty();
  return decision;
}

}  // namespace jobset_webhook

#include "jobset_webhook/decide.h"

#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/validation/create.h"
#include "jobset_webhook/validation/update.h"

namespace jobset_webhook {

Decision decide(const AdmissionRequest& request, const Policy& policy) {
  Decision decision;
  if (request.hook == Hook::kMutating) {
    // On UPDATE only the defaults the stored object holds and the update dropped (defaults.h).
    if (request.operation == Operation::kCreate)
      decision.patch = defaulting::defaults_patch(request.object);
    else if (request.operation == Operation::kUpdate)
      decision.patch = defaulting::restored_defaults_patch(request.old_object, request.object);
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

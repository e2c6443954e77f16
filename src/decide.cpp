#include "jobset_webhook/decide.h"

#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/validation/create.h"
#include "jobset_webhook/validation/notice_annotation.h"
#include "jobset_webhook/validation/replicated_job_scaler.h"
#include "jobset_webhook/validation/update.h"

namespace jobset_webhook {

field::ErrorList validate_create_after_defaults(JsonView js, const Policy& policy) {
  const auto defaulted = defaulting::create_defaults_view(js);
  if (!defaulted.ok()) {
    return field::ErrorList{field::internal_error(
        field::Path(), "cannot apply defaults: " + defaulted.failure().message)};
  }
  // Errors copy what they print, so the defaulted object may die here.
  if (!defaulted.value()) return validation::validate_create(js, policy);
  return validation::validate_create(defaulted.value()->root(), policy);
}

namespace {

// A scaler is a small object, read once per CREATE or UPDATE of the scaler itself, never on a
// JobSet's path: its rules read the nlohmann copy.
field::ErrorList validate_scaler(const AdmissionRequest& request) {
  const auto cannot_read = [](const std::string& why) {
    return field::ErrorList{field::internal_error(field::Path(), "cannot read the scaler: " + why)};
  };
  const auto scaler = patch::to_json(request.object);
  if (!scaler.ok()) return cannot_read(scaler.failure().message);
  if (request.operation != Operation::kUpdate)
    return validation::validate_replicated_job_scaler(nullptr, scaler.value());
  const auto old_scaler = patch::to_json(request.old_object);
  if (!old_scaler.ok()) return cannot_read(old_scaler.failure().message);
  return validation::validate_replicated_job_scaler(&old_scaler.value(), scaler.value());
}

}  // namespace

Decision decide(const AdmissionRequest& request, const Policy& policy) {
  Decision decision;
  if (request.hook == Hook::kValidatingScaler) {
    if (request.operation == Operation::kCreate || request.operation == Operation::kUpdate)
      decision.errors = validate_scaler(request);
    decision.allowed = decision.errors.empty();
    return decision;
  }
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
      decision.errors = validate_create_after_defaults(request.object, policy);
      for (auto& e : validation::validate_notice_annotation(std::nullopt, request.object))
        decision.errors.push_back(std::move(e));
      break;
    case Operation::kUpdate: {
      auto findings = validation::validate_update(request.old_object, request.object, policy);
      decision.errors = std::move(findings.errors);
      for (auto& e : validation::validate_notice_annotation(request.old_object, request.object))
        decision.errors.push_back(std::move(e));
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

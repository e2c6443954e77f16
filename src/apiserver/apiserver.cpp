#include "jobset_webhook/apiserver/apiserver.h"

#include <utility>

#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/json_access.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/validation/replicated_job_scaler.h"
#include "jobset_webhook/validation/update.h"

namespace jobset_webhook::apiserver {

Result<std::vector<UnknownField>> prune_unknown_fields(Json& object) {
  auto view = ParsedView::of(object);
  if (!view.ok()) return view.failure();
  auto unknown = validation::unknown_fields(view.value().root());
  for (const auto& field : unknown) {
    Json* parent =
        find_path(object, std::vector<std::string>(field.tokens.begin(), field.tokens.end() - 1));
    if (parent != nullptr && parent->is_object()) parent->erase(field.tokens.back());
  }
  return unknown;
}

void apply_crd_defaults(Json& jobset) {
  const auto view = ParsedView::of(jobset);
  if (!view.ok()) return;  // never for a value that came from YAML or JSON
  auto defaulted = patch::apply(jobset, defaulting::crd_defaults_patch(view.value().root()));
  if (defaulted.ok()) jobset = std::move(defaulted.value());
}

Result<Json> create_defaults(const Json& jobset) {
  const auto view = ParsedView::of(jobset);
  if (!view.ok()) return view.failure();
  auto defaulted = defaulting::create_defaults(view.value().root());
  if (!defaulted.ok()) return defaulted.failure();
  if (!defaulted.value()) return jobset;
  return std::move(defaulted.value()->object);
}

Result<Stored> store(const Json& sent) {
  Json pruned = sent;
  auto unknown = prune_unknown_fields(pruned);
  if (!unknown.ok()) return unknown.failure();
  auto object = create_defaults(pruned);
  if (!object.ok()) return object.failure();
  return Stored{std::move(object).value(), std::move(unknown).value()};
}

namespace {

// decide for the hook on both objects, parsed once; `first` (the API server's own checks of the
// parsed objects, null for none) refuses before decide when it finds errors.
using FirstChecks = field::ErrorList (*)(JsonView old_object, JsonView object);
Result<Decision> decide_parsed(Hook hook, const Json& object, const Json* old_object,
                               std::string_view name, const Policy& policy, FirstChecks first) {
  auto view = ParsedView::of(object);
  if (!view.ok()) return view.failure();
  auto old_view = ParsedView::of(old_object != nullptr ? *old_object : Json(nullptr));
  if (!old_view.ok()) return old_view.failure();
  if (first != nullptr) {
    Decision refused;
    refused.errors = first(old_view.value().root(), view.value().root());
    if (!refused.errors.empty()) {
      refused.allowed = false;
      return refused;
    }
  }
  AdmissionRequest request;
  request.hook = hook;
  request.operation = old_object != nullptr ? Operation::kUpdate : Operation::kCreate;
  request.name = std::string(name);
  request.object = view.value().root();
  if (old_object != nullptr) request.old_object = old_view.value().root();
  return decide(request, policy);
}

}  // namespace

Result<Decision> admit(const Json& object, const Json* old_object, std::string_view name,
                       const Policy& policy) {
  // The API server validates an UPDATE's new object against the CRD's schema, with ratcheting,
  // before any webhook runs (CREATE's schema is part of the CREATE rules).
  return decide_parsed(Hook::kValidating, object, old_object, name, policy,
                       old_object != nullptr ? &validation::validate_update_schema : nullptr);
}

Result<Decision> admit_scaler(const Json& scaler, const Json* old_scaler, std::string_view name) {
  Json stored = scaler;
  validation::apply_replicated_job_scaler_default(stored);
  Decision refused;
  refused.errors = validation::replicated_job_scaler_crd_rules(stored);
  if (!refused.errors.empty()) {
    refused.allowed = false;
    return refused;
  }
  Json old_stored = old_scaler != nullptr ? *old_scaler : Json(nullptr);
  validation::apply_replicated_job_scaler_default(old_stored);
  // The scaler's rules read no policy.
  return decide_parsed(Hook::kValidatingScaler, stored,
                       old_scaler != nullptr ? &old_stored : nullptr, name, Policy{}, nullptr);
}

}  // namespace jobset_webhook::apiserver

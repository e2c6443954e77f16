#include "check_scaler.h"

#include <utility>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/decide.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/validation/replicated_job_scaler.h"
#include "jobset_webhook/json_access.h"

namespace jobset_webhook::cli {

Result<JobSetResult> judge_scaler(Change change, const JobSetManifest& scaler,
                                  const JobSetManifest* old_scaler) {
  JobSetResult result;
  result.kind = kScalerKindName;
  result.change = change;
  result.namespace_name = scaler.namespace_name;
  result.name = scaler.name;
  result.generate_name = scaler.generate_name;
  result.where = scaler.where();

  Json stored = scaler.object;
  validation::apply_replicated_job_scaler_default(stored);
  Json old_stored = old_scaler != nullptr ? old_scaler->object : Json(nullptr);
  validation::apply_replicated_job_scaler_default(old_stored);
  field::ErrorList errors = validation::replicated_job_scaler_crd_rules(stored);
  if (errors.empty()) {
    auto view = ParsedView::of(stored);
    if (!view.ok()) return view.failure();
    auto old_view = ParsedView::of(old_stored);
    if (!old_view.ok()) return old_view.failure();
    AdmissionRequest request;
    request.hook = Hook::kValidatingScaler;
    request.operation = old_scaler != nullptr ? Operation::kUpdate : Operation::kCreate;
    request.name = scaler.name;
    request.object = view.value().root();
    if (old_scaler != nullptr) request.old_object = old_view.value().root();
    errors = decide(request, Policy{}).errors;
  }
  result.allowed = errors.empty();
  if (!result.allowed)
    result.message = admission::rejection_message(scaler.name, errors, admission::kScalerKind);
  for (const auto& error : field::deduplicated(errors)) {
    Finding finding{error, scaler.locate(error.field), std::nullopt, scaler.source_of(error.field)};
    // A changed name shows the name it had.
    if (old_scaler != nullptr && error.type == field::ErrorType::kInvalid &&
        !(error.bad_value && error.bad_value->is_omitted())) {
      const Json* before = find_path(old_stored, field_path_tokens(error.field));
      finding.old_value =
          before != nullptr ? OldValue{true, field::BadValue::of(*before).printed()} : OldValue{};
    }
    result.findings.push_back(std::move(finding));
  }
  return result;
}

}  // namespace jobset_webhook::cli

#include "check_scaler.h"

#include <utility>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/apiserver/apiserver.h"
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

  auto decision = apiserver::admit_scaler(
      scaler.object, old_scaler != nullptr ? &old_scaler->object : nullptr, scaler.name);
  if (!decision.ok()) return decision.failure();
  const field::ErrorList& errors = decision.value().errors;
  result.allowed = errors.empty();
  if (!result.allowed)
    result.message = admission::rejection_message(scaler.name, errors, admission::kScalerKind);
  for (const auto& error : field::deduplicated(errors)) {
    Finding finding{error, scaler.locate(error.field), std::nullopt, scaler.source_of(error.field)};
    // A changed name shows the name it had.
    if (old_scaler != nullptr && error.type == field::ErrorType::kInvalid &&
        !(error.bad_value && error.bad_value->is_omitted())) {
      const Json* before = find_path(old_scaler->object, field_path_tokens(error.field));
      finding.old_value =
          before != nullptr ? OldValue{true, field::BadValue::of(*before).printed()} : OldValue{};
    }
    result.findings.push_back(std::move(finding));
  }
  return result;
}

}  // namespace jobset_webhook::cli

#include "crd_validate.h"
#include "jobset_webhook/validation/update.h"

namespace jobset_webhook::validation {

// strategy.go ValidateUpdate: the schema on the new object with ratcheting, then
// ValidateListSetsAndMaps on the new object unless the old one already breaks it.
field::ErrorList validate_update_schema(JsonView old_js, JsonView new_js) {
  const MaybeJson spec = member(new_js, "spec");
  if (!spec) return {};
  const MaybeJson old_spec = member(old_js, "spec");
  const CrdSchema& schema = *crd_schema().property("spec");
  const field::Path path("spec");
  // Without an old spec, nothing correlates: nothing is ratcheted.
  field::ErrorList errs = validate_schema(schema, *spec, old_spec, path);
  if (!old_spec || validate_list_sets_and_maps(schema, *old_spec, path).empty()) {
    for (auto& e : validate_list_sets_and_maps(schema, *spec, path)) errs.push_back(std::move(e));
  }
  // The CEL rules themselves (`self == oldSelf`) are the immutability rules of validate_update.
  cel_blocked(errs);
  return errs;
}

}  // namespace jobset_webhook::validation

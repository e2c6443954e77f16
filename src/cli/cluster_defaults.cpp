#include "cluster_defaults.h"

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/decide.h"
#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/json_access.h"

namespace jobset_webhook::cli {
namespace {

std::string metadata_name(const Json& object) {
  return string_at(member(&object, "metadata"), "name");
}

}  // namespace

void apply_schema_defaults(Json& jobset) {
  const auto view = ParsedView::of(jobset);
  if (!view.ok()) return;  // never for a value that came from YAML or JSON
  auto defaulted = patch::apply(jobset, defaulting::crd_defaults_patch(view.value().root()));
  if (defaulted.ok()) jobset = std::move(defaulted.value());
}

Result<Json> cluster_defaults(const Json& jobset, const Policy& policy) {
  Json stored = jobset;
  apply_schema_defaults(stored);
  auto view = ParsedView::of(stored);
  if (!view.ok()) return view.failure();
  AdmissionRequest request;
  request.hook = Hook::kMutating;
  request.operation = Operation::kCreate;
  request.object = view.value().root();
  request.name = metadata_name(stored);
  const Decision decision = decide(request, policy);
  if (decision.patch.empty()) return stored;
  auto patched = patch::apply(stored, decision.patch);
  if (!patched.ok())
    return internal_error("the mutating webhook's defaults do not apply: " +
                          patched.failure().message);
  stored = std::move(patched.value());
  apply_schema_defaults(stored);
  return stored;
}

}  // namespace jobset_webhook::cli

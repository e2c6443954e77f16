#include "cluster_defaults.h"

#include <utility>

#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/patch/json_patch.h"

namespace jobset_webhook::cli {

void apply_schema_defaults(Json& jobset) {
  const auto view = ParsedView::of(jobset);
  if (!view.ok()) return;  // never for a value that came from YAML or JSON
  auto defaulted = patch::apply(jobset, defaulting::crd_defaults_patch(view.value().root()));
  if (defaulted.ok()) jobset = std::move(defaulted.value());
}

Result<Json> cluster_defaults(const Json& jobset) {
  const auto view = ParsedView::of(jobset);
  if (!view.ok()) return view.failure();
  auto defaulted = defaulting::create_defaults(view.value().root());
  if (!defaulted.ok()) return defaulted.failure();
  if (!defaulted.value()) return jobset;
  return std::move(defaulted.value()->object);
}

}  // namespace jobset_webhook::cli

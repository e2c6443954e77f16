#include <utility>

#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/patch/json_patch.h"

namespace jobset_webhook::defaulting {

// The API server applies the CRD's defaults when it decodes the request's object, calls the
// mutating webhooks, and decodes the patched object again, which applies the CRD's defaults to
// what a webhook added (apiserver v0.37.2, pkg/admission/plugin/webhook/mutating/dispatcher.go,
// callAttrMutatingHook: the patched object is decoded and then defaulted by the object's
// defaulter). Each step reads the object the step before it left.
Result<std::optional<Defaulted>> create_defaults(JsonView js) {
  const auto cannot = [](const std::string& what, const Failure& failure) {
    return internal_error(what + failure.message);
  };
  std::optional<Json> document;
  std::optional<ParsedView> reread;
  JsonView current = js;
  // Applies ops to the document (a copy of js made at the first change) and reads it again.
  const auto apply = [&](const Json& ops, const std::string& what) -> std::optional<Failure> {
    if (!document) {
      auto copy = patch::to_json(js);
      if (!copy.ok()) return cannot(what, copy.failure());
      document = std::move(copy).value();
    }
    auto patched = patch::apply(*document, ops);
    if (!patched.ok()) return cannot(what, patched.failure());
    document = std::move(patched).value();
    auto view = ParsedView::of(*document);
    if (!view.ok()) return cannot(what, view.failure());
    reread = std::move(view).value();
    current = reread->root();
    return std::nullopt;
  };

  if (const Json ops = crd_defaults_patch(current); !ops.empty()) {
    if (auto failure = apply(ops, "the CRD's defaults do not apply: ")) return *failure;
  }
  if (const Json ops = defaults_patch(current); !ops.empty()) {
    if (auto failure = apply(ops, "the mutating webhook's defaults do not apply: "))
      return *failure;
    if (const Json again = crd_defaults_patch(current); !again.empty()) {
      if (auto failure = apply(again, "the CRD's defaults do not apply: ")) return *failure;
    }
  }
  if (!document) return std::optional<Defaulted>();
  return std::optional<Defaulted>(Defaulted{std::move(*document), std::move(*reread)});
}

}  // namespace jobset_webhook::defaulting

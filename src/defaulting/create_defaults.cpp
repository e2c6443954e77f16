#include <functional>
#include <utility>

#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/patch/view_patch.h"

namespace jobset_webhook::defaulting {
namespace {

// Applies a step's operations to what the steps before left, and returns the view of the result;
// what says which step, for the Failure's message.
using ApplyStep = std::function<Result<JsonView>(const Json& ops, const std::string& what)>;

// The API server applies the CRD's defaults when it decodes the request's object, calls the
// mutating webhooks, and decodes the patched object again, which applies the CRD's defaults to
// what a webhook added (apiserver v0.37.2, pkg/admission/plugin/webhook/mutating/dispatcher.go,
// callAttrMutatingHook: the patched object is decoded and then defaulted by the object's
// defaulter). Each step reads the object the step before it left. True when a step applied.
Result<bool> in_api_server_order(JsonView js, const ApplyStep& apply) {
  JsonView current = js;
  bool changed = false;
  const auto step = [&](const Json& ops, const std::string& what) -> std::optional<Failure> {
    auto view = apply(ops, what);
    if (!view.ok()) return internal_error(what + view.failure().message);
    current = view.value();
    changed = true;
    return std::nullopt;
  };
  if (const Json ops = crd_defaults_patch(current); !ops.empty()) {
    if (auto failure = step(ops, "the CRD's defaults do not apply: ")) return *failure;
  }
  if (const Json ops = defaults_patch(current); !ops.empty()) {
    if (auto failure = step(ops, "the mutating webhook's defaults do not apply: ")) return *failure;
    if (const Json again = crd_defaults_patch(current); !again.empty()) {
      if (auto failure = step(again, "the CRD's defaults do not apply: ")) return *failure;
    }
  }
  return changed;
}

}  // namespace

Result<std::optional<Defaulted>> create_defaults(JsonView js) {
  std::optional<Json> document;
  std::optional<ParsedView> reread;
  // The document is a copy of js made at the first change.
  const auto apply = [&](const Json& ops, const std::string&) -> Result<JsonView> {
    if (!document) {
      auto copy = patch::to_json(js);
      if (!copy.ok()) return copy.failure();
      document = std::move(copy).value();
    }
    auto patched = patch::apply(*document, ops);
    if (!patched.ok()) return patched.failure();
    document = std::move(patched).value();
    auto view = ParsedView::of(*document);
    if (!view.ok()) return view.failure();
    reread = std::move(view).value();
    return reread->root();
  };
  const auto changed = in_api_server_order(js, apply);
  if (!changed.ok()) return changed.failure();
  if (!changed.value()) return std::optional<Defaulted>();
  return std::optional<Defaulted>(Defaulted{std::move(*document), std::move(*reread)});
}

Result<std::optional<ParsedView>> create_defaults_view(JsonView js) {
  std::optional<ParsedView> reread;
  const auto apply = [&](const Json& ops, const std::string&) -> Result<JsonView> {
    // A step after the first reads text apply_to_view wrote, without repeated keys.
    auto view = reread ? patch::apply_to_view(reread->root(), ops, patch::Keys::kDistinct)
                       : patch::apply_to_view(js, ops);
    if (!view.ok()) return view.failure();
    reread = std::move(view).value();
    return reread->root();
  };
  const auto changed = in_api_server_order(js, apply);
  if (!changed.ok()) return changed.failure();
  return reread;
}

}  // namespace jobset_webhook::defaulting

// libFuzzer target: patch::apply_to_view, which the validating webhook's CREATE defaults use,
// against what it stands for, ParsedView::of(patch::apply(patch::to_json(view), patch)). The input
// is a JSON document (read by simdjson, as a review's object is: repeated keys allowed), a NUL
// byte, then a JSON Patch. Checked on every input:
// - both succeed, or both fail with the same message;
// - when they succeed, both views write the same JSON text (patch::to_json, then dump): the same
//   members in the same order, with the same number types;
// - applied again with Keys::kDistinct to the view apply_to_view wrote (as the defaults' later
//   steps are), it gives what the whole conversion gives for that view.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/patch/view_patch.h"

namespace {

using jobset_webhook::Json;
using jobset_webhook::JsonView;
using jobset_webhook::ParsedView;
using jobset_webhook::Result;
using jobset_webhook::fuzz::require;
using jobset_webhook::fuzz::shallow;
namespace patch = jobset_webhook::patch;

// What apply_to_view stands for: the whole value as Json, patched, read again.
Result<ParsedView> whole_conversion(JsonView value, const Json& operations) {
  auto document = patch::to_json(value);
  if (!document.ok()) return document.failure();
  auto patched = patch::apply(document.value(), operations);
  if (!patched.ok()) return patched.failure();
  return ParsedView::of(patched.value());
}

std::string text_of(const ParsedView& view) {
  auto json = patch::to_json(view.root());
  require(json.ok(), "a view apply_to_view or ParsedView::of wrote converts to Json",
          json.ok() ? "" : json.failure().message);
  return json.value().dump(-1, ' ', false, Json::error_handler_t::replace);
}

void require_same(const Result<ParsedView>& by_view, const Result<ParsedView>& whole,
                  const char* invariant) {
  if (by_view.ok() != whole.ok()) {
    jobset_webhook::fuzz::violated(
        invariant, by_view.ok() ? whole.failure().message : by_view.failure().message);
  }
  if (!by_view.ok()) {
    require(by_view.failure().message == whole.failure().message, invariant,
            by_view.failure().message + "\n" + whole.failure().message);
    return;
  }
  const std::string a = text_of(by_view.value());
  const std::string b = text_of(whole.value());
  require(a == b, invariant, a + "\n" + b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  if (nul == std::string_view::npos || !shallow(input)) return 0;
  auto document = ParsedView::of_text(input.substr(0, nul));
  if (!document.ok()) return 0;
  Json operations;
  try {
    operations = Json::parse(input.substr(nul + 1));
  } catch (const Json::exception&) {
    return 0;
  }
  const auto by_view = patch::apply_to_view(document.value().root(), operations);
  require_same(by_view, whole_conversion(document.value().root(), operations),
               "apply_to_view gives what the whole conversion gives");
  if (!by_view.ok()) return 0;
  const JsonView written = by_view.value().root();
  require_same(patch::apply_to_view(written, operations, patch::Keys::kDistinct),
               whole_conversion(written, operations),
               "apply_to_view with distinct keys gives the whole conversion on a view it wrote");
  return 0;
}

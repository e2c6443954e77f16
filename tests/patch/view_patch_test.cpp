// patch::apply_to_view against what it stands for: the whole view as Json, patched, read again.
// The two must read the same, key order, repeated keys and number types included, and fail with
// the same message.

#include "jobset_webhook/patch/view_patch.h"

#include <catch2/catch.hpp>
#include <string>

#include "jobset_webhook/patch/json_patch.h"
#include "support/parsed.h"

namespace patch = jobset_webhook::patch;
using jobset_webhook::Json;
using jobset_webhook::ParsedView;
using jobset_webhook::testing::Parsed;

namespace {

// The patched object's text both ways, or "failure: " and the message.
std::string whole(const std::string& text, const Json& ops) {
  const auto patched = patch::apply(patch::to_json(Parsed(text)).value(), ops);
  if (!patched.ok()) return "failure: " + patched.failure().message;
  const auto view = ParsedView::of(patched.value());
  return patch::to_json(view.value().root()).value().dump();
}

std::string sparse(const std::string& text, const Json& ops, patch::Keys keys) {
  const auto view = patch::apply_to_view(Parsed(text), ops, keys);
  if (!view.ok()) return "failure: " + view.failure().message;
  return patch::to_json(view.value().root()).value().dump();
}

void same(const std::string& text, const char* ops_text) {
  const Json ops = Json::parse(ops_text);
  INFO(text << " patched with " << ops_text);
  CHECK(sparse(text, ops, patch::Keys::kMayRepeat) == whole(text, ops));
}

}  // namespace

TEST_CASE("A patch applied to a view reads as the patched Json does", "[patch][view_patch]") {
  const std::string doc =
      R"({"metadata":{"labels":{"a":"x","b":"y\"\\\n\u0001é","a":"z"}},)"
      R"("spec":{"list":[{"n":1,"d":1.0,"e":-2,"big":18446744073709551615,"f":1e300,"z":-0.0},)"
      R"([true,false,null],{"x~y/z":{}}],"s":{"k":[1,{"k":2,"k":3}]}}})";
  same(doc, R"([{"op":"add","path":"/spec/added","value":{"operator":"All"}}])");
  same(doc, R"([{"op":"add","path":"/spec/list/0/m","value":1},
                {"op":"replace","path":"/spec/list/2/x~0y~1z","value":[]}])");
  same(doc, R"([{"op":"add","path":"/spec/list/1","value":"inserted"},
                {"op":"remove","path":"/spec/s/k/0"},{"op":"add","path":"/spec/list/-","value":2}])");
  same(doc, R"([{"op":"replace","path":"/metadata/labels/a","value":"w"}])");
  same(doc, R"([{"op":"add","path":"","value":{"whole":1}}])");
  // Operations that read what a hole holds, or paths that are not pointers: the whole conversion.
  same(doc, R"([{"op":"test","path":"/spec/s","value":{"k":[1,{"k":3}]}},
                {"op":"add","path":"/t","value":1}])");
  same(doc, R"([{"op":"copy","from":"/spec/s","path":"/copied"}])");
  same(doc, R"([{"op":"add","path":"/spec/~2","value":1}])");
  // Failures, with the same messages.
  same(doc, R"([{"op":"add","path":"/spec/missing/x","value":1}])");
  same(doc, R"([{"op":"replace","path":"/spec/list/9","value":1}])");
  same(doc, R"([{"op":"remove","path":"/metadata/labels/c"}])");
  same(doc, R"({"op":"add"})");
}

TEST_CASE("A view without repeated keys reads the same when told so", "[patch][view_patch]") {
  const std::string doc = R"({"spec":{"labels":{"a":"1","b":"2"},"x":[{"y":1}]}})";
  const Json ops = Json::parse(R"([{"op":"add","path":"/spec/x/0/z","value":true}])");
  CHECK(sparse(doc, ops, patch::Keys::kDistinct) == whole(doc, ops));
  CHECK(sparse(doc, ops, patch::Keys::kDistinct) ==
        R"({"spec":{"labels":{"a":"1","b":"2"},"x":[{"y":1,"z":true}]}})");
}

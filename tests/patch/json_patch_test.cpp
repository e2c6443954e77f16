#include "jobset_webhook/patch/json_patch.h"

#include <catch2/catch.hpp>

#include "support/parsed.h"

namespace patch = jobset_webhook::patch;
using jobset_webhook::append_pointer_token;
using jobset_webhook::escape_pointer_token;
using jobset_webhook::Json;
using jobset_webhook::json_pointer;
using jobset_webhook::pointer_tokens;
using jobset_webhook::testing::Parsed;

TEST_CASE("Pointer tokens escape ~ before /", "[patch]") {
  CHECK(escape_pointer_token("plain") == "plain");
  CHECK(escape_pointer_token("a/b~c") == "a~1b~0c");
  CHECK(escape_pointer_token("~1") == "~01");
  CHECK(escape_pointer_token("") == "");
  CHECK(json_pointer({"metadata", "labels", "jobset.sigs.k8s.io/name"}) ==
        "/metadata/labels/jobset.sigs.k8s.io~1name");
  CHECK(json_pointer({}) == "");
  std::string pointer = "/metadata/labels";
  append_pointer_token(pointer, "app/x~y");
  CHECK(pointer == "/metadata/labels/app~1x~0y");
}

TEST_CASE("A pointer reads back as the tokens it was built from", "[patch]") {
  using Tokens = std::vector<std::string>;
  CHECK(pointer_tokens("") == Tokens{});
  CHECK(pointer_tokens("/") == Tokens{""});
  CHECK(pointer_tokens("/metadata/labels/app~1x") == Tokens{"metadata", "labels", "app/x"});
  CHECK(pointer_tokens(json_pointer({"~1", "a/b", ""})) == Tokens{"~1", "a/b", ""});
  CHECK_FALSE(pointer_tokens("metadata"));
  CHECK_FALSE(pointer_tokens("/a~2"));
  CHECK_FALSE(pointer_tokens("/a~"));
}

TEST_CASE("An escaped pointer addresses the key it was built from", "[patch]") {
  const Json doc = {{"metadata", {{"annotations", Json::object()}}}};
  const Json ops = {{{"op", "add"},
                     {"path", json_pointer({"metadata", "annotations", "a/b~c"})},
                     {"value", "v"}}};
  const auto out = patch::apply(doc, ops);
  REQUIRE(out.ok());
  CHECK(out.value()["metadata"]["annotations"]["a/b~c"] == "v");
}

TEST_CASE("A patch applies its operations in order", "[patch]") {
  const Json doc = Json::parse(R"({"spec":{"a":1,"list":[1,2]}})");
  const Json ops = Json::parse(R"([{"op":"add","path":"/spec/b","value":{"c":true}},
    {"op":"replace","path":"/spec/a","value":2},{"op":"remove","path":"/spec/list/0"},
    {"op":"test","path":"/spec/b/c","value":true}])");
  const auto out = patch::apply(doc, ops);
  REQUIRE(out.ok());
  CHECK(out.value().dump() == R"({"spec":{"a":2,"list":[2],"b":{"c":true}}})");
}

TEST_CASE("A patch that cannot apply is a failure, not an exception", "[patch]") {
  struct Case {
    const char* name;
    const char* ops;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"missing parent", R"([{"op":"add","path":"/spec/x/y","value":1}])",
       "patch: [json.exception.out_of_range.403] key 'x' not found"},
      {"failed test", R"([{"op":"test","path":"/spec/a","value":2}])",
       "patch: [json.exception.other_error.501] unsuccessful: "
       "{\"op\":\"test\",\"path\":\"/spec/a\",\"value\":2}"},
      {"unknown op", R"([{"op":"merge","path":"/spec","value":{}}])",
       "patch: [json.exception.parse_error.105] parse error: operation value 'merge' is invalid"},
      {"not a list", R"({"op":"add"})",
       "patch: must be a list of operations, got {\"op\":\"add\"}"},
      // nlohmann's patch asserts on these (the process would abort): refused before it runs.
      {"add under a number", R"([{"op":"add","path":"/spec/a/0","value":1}])",
       "patch: cannot add at /spec/a/0: /spec/a is neither an object nor a list"},
      {"copy under a number, after an operation that made it one",
       R"([{"op":"replace","path":"/spec","value":2},{"op":"copy","from":"/spec","path":"/spec/b"}])",
       "patch: cannot copy at /spec/b: /spec is neither an object nor a list"},
  };
  const Json doc = Json::parse(R"({"spec":{"a":1}})");
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto out = patch::apply(doc, Json::parse(c.ops));
      REQUIRE_FALSE(out.ok());
      CHECK(out.failure().message == c.want);
    }
  }
}

TEST_CASE("A parsed view converts to the same document", "[patch]") {
  const std::string text = R"({"a":[1,-2,3.5,"x",true,null,{"b":{}}],"c":"\u00e9\n"})";
  const auto out = patch::to_json(Parsed(text));
  REQUIRE(out.ok());
  CHECK(out.value() == Json::parse(text));
}

TEST_CASE("A converted view keeps the key order and the number types Json::parse gives",
          "[patch]") {
  const std::string text =
      R"({"z":1,"a":-1,"m":18446744073709551615,"f":1.0,"e":2e3,"s":"x","n":null,"l":[{"y":0}]})";
  const auto out = patch::to_json(Parsed(text));
  REQUIRE(out.ok());
  const Json parsed = Json::parse(text);
  CHECK(out.value().dump() == parsed.dump());
  for (const auto& [key, value] : parsed.items()) {
    INFO(key);
    CHECK(out.value()[key].type() == value.type());
  }
}

TEST_CASE(
    "A converted view with a key twice keeps the last value at the first place, as parse does",
    "[patch]") {
  const std::string text = R"({"a":1,"b":2,"a":3})";
  const auto out = patch::to_json(Parsed(text));
  REQUIRE(out.ok());
  CHECK(out.value().dump() == R"({"a":3,"b":2})");
  CHECK(out.value().dump() == Json::parse(text).dump());
}

TEST_CASE("A large map converts whole, in its order", "[patch]") {
  std::string text = "{";
  for (int i = 0; i < 20000; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(20000 - i) + "\":\"v\"";
  text += "}";
  const auto out = patch::to_json(Parsed(text));
  REQUIRE(out.ok());
  CHECK(out.value().size() == 20000);
  CHECK(out.value().dump() == text);
}

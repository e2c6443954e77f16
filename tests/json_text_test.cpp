#include "jobset_webhook/json_text.h"

#include <catch2/catch.hpp>

#include "jobset_webhook/json.h"

using jobset_webhook::append_json_string;
using jobset_webhook::Json;
using jobset_webhook::JsonEscapes;

namespace {

std::string written(std::string_view s, JsonEscapes escapes) {
  std::string out = "x";
  REQUIRE(append_json_string(out, s, escapes));
  return out.substr(1);
}

}  // namespace

TEST_CASE("JSON strings are escaped as nlohmann writes them, plus Go's HTML escapes on request",
          "[json_text]") {
  const std::string text =
      std::string("a\"b\\c\b\t\n\f\r\x01\x1f\x7f <>& \xE2\x80\xA8\xE2\x80\xA9 ") +
      "\xC3\xA9\xF0\x9F\x98\x80" + std::string(1, '\0') + "z";
  const std::string standard = Json(text).dump();
  CHECK(written(text, JsonEscapes::kStandard) == standard);
  CHECK(standard.find("<>&") != std::string::npos);
  CHECK(written(text, JsonEscapes::kHtmlSafe) == R"("a\"b\\c\b\t\n\f\r\u0001\u001f)"
                                                 "\x7f"
                                                 R"( \u003c\u003e\u0026 \u2028\u2029 )"
                                                 "\xC3\xA9\xF0\x9F\x98\x80"
                                                 R"(\u0000z")");
  CHECK(written("", JsonEscapes::kStandard) == "\"\"");
}

TEST_CASE("A string that is not valid UTF-8 is refused and nothing is appended", "[json_text]") {
  for (const auto escapes : {JsonEscapes::kStandard, JsonEscapes::kHtmlSafe}) {
    for (const std::string_view bad : {"\xff", "ab\xC3", "\xE2\x80", "<\xED\xA0\x80>"}) {
      std::string out = "kept";
      CHECK_FALSE(append_json_string(out, bad, escapes));
      CHECK(out == "kept");
    }
  }
}

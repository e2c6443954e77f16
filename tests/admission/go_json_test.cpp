#include "admission/go_json.h"

#include <catch2/catch.hpp>

using jobset_webhook::Json;
using jobset_webhook::admission::go_json_dump;

TEST_CASE("Responses are written as compact JSON with Go's escaping", "[admission][go_json]") {
  struct Case {
    const char* name;
    Json value;
    std::string want;
  };
  std::string ascii;
  for (int c = 0; c < 128; ++c) ascii += static_cast<char>(c);
  const std::vector<Case> cases = {
      {"every ASCII character", Json(ascii),
       R"("\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013)"
       R"(\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f !\"#$%\u0026'()*+,-./0123456789:;)"
       R"(\u003c=\u003e?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~)"
       "\x7f\""},
      {"line and paragraph separators escaped, other Unicode kept",
       Json("a\u2028b\u2029c\u00e9\U0001F600"), "\"a\\u2028b\\u2029c\u00e9\U0001F600\""},
      {"invalid UTF-8 replaced by U+FFFD", Json(std::string("a\xFF<b")),
       "\"a\xEF\xBF\xBD\\u003cb\""},
      {"numbers, literals, nesting and escaped keys",
       Json::parse(
           R"({"a":[1,-2,3.5,1e300,0.1,true,false,null,{},[]],"b":{"<k>":"v&"},"u":18446744073709551615})"),
       R"({"a":[1,-2,3.5,1e+300,0.1,true,false,null,{},[]],"b":{"\u003ck\u003e":"v\u0026"},"u":18446744073709551615})"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(go_json_dump(c.value) == c.want); }
  }
}

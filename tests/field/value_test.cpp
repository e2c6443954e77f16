#include "jobset_webhook/field/value.h"

#include <catch2/catch.hpp>

#include "support/parsed.h"

namespace field = jobset_webhook::field;
using jobset_webhook::testing::Parsed;

TEST_CASE("Strings are Go-quoted", "[field][value]") {
  CHECK(field::go_quote("bash:5.2") == R"("bash:5.2")");
  CHECK(field::go_quote("say \"hi\"\n") == R"("say \"hi\"\n")");
  CHECK(field::go_quote("tab\there\x01") == R"("tab\there\x01")");
  CHECK(field::go_quote("caf\xC3\xA9") == "\"caf\xC3\xA9\"");  // printable UTF-8 kept
  CHECK(field::go_quote("bad\xFF") == R"("bad\xff")");         // invalid byte escaped
  CHECK(field::go_quote("\xC2\x85") == R"("\u0085")");         // C1 control escaped
  CHECK(field::go_quote("\xE2\x80\xA8") == R"("\u2028")");
}

TEST_CASE("Scalars print bare and null prints as null", "[field][value]") {
  CHECK(field::BadValue::of(Parsed("-1").root()).printed() == "-1");
  CHECK(field::BadValue::of(Parsed("true").root()).printed() == "true");
  CHECK(field::BadValue::of(Parsed("null").root()).printed() == "null");
  CHECK(field::BadValue::of(Parsed("1.5").root()).printed() == "1.5");
  CHECK(field::BadValue::of(Parsed(R"("x")").root()).printed() == R"("x")");
  CHECK(field::BadValue::integer(5).printed() == "5");
}

TEST_CASE("Objects and lists print as compact JSON in Go's encoding", "[field][value]") {
  CHECK(field::BadValue::of(Parsed(R"({"b": 1, "a": [true, null, "<&>"]})").root()).printed() ==
        R"({"a":[true,null,"\u003c\u0026\u003e"],"b":1})");
}

// Found by fuzz_review: the printed value followed the request's key order, so the same JobSet
// sent with its keys in another order got a different message.
TEST_CASE("Object keys print sorted, as Go writes a map, whatever order they came in",
          "[field][value]") {
  const std::string want = R"({"a":{"x":1,"y":2},"b":[{"m":1,"n":2}]})";
  CHECK(field::go_json(Parsed(R"({"b":[{"n":2,"m":1}],"a":{"y":2,"x":1}})").root()) == want);
  CHECK(field::go_json(Parsed(R"({"a":{"x":1,"y":2},"b":[{"m":1,"n":2}]})").root()) == want);
  CHECK(
      field::BadValue::of(Parsed(R"({"b":[{"n":2,"m":1}],"a":{"y":2,"x":1}})").root()).printed() ==
      want);
}

TEST_CASE("Long values are elided to a readable length", "[field][value]") {
  const std::string long_string(500, 'x');
  const auto printed = field::BadValue::string(long_string).printed();
  CHECK(printed.size() <= field::kMaxValueBytes);
  CHECK(printed.front() == '"');
  CHECK(printed.substr(printed.size() - 4) == "...\"");

  std::string big = "[";
  for (int i = 0; i < 1000; ++i) big += (i ? "," : "") + std::to_string(i);
  big += "]";
  const auto list = field::BadValue::of(Parsed(big).root()).printed();
  CHECK(list.size() <= field::kMaxValueBytes);
  CHECK(list.substr(0, 8) == "[0,1,2,3");
  CHECK(list.substr(list.size() - 3) == "...");
}

TEST_CASE("Elision never cuts a UTF-8 character in half", "[field][value]") {
  std::string s;
  for (int i = 0; i < 100; ++i) s += "\xC3\xA9";
  const auto printed = field::BadValue::string(s).printed();
  CHECK(printed.find("\xC3\"") == std::string::npos);
  CHECK(printed.find("\\x") == std::string::npos);
}

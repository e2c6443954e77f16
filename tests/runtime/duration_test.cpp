#include "jobset_webhook/runtime/duration.h"

#include <catch2/catch.hpp>

using jobset_webhook::runtime::parse_go_duration;
using namespace std::chrono_literals;

TEST_CASE("Durations parse as Go's time.ParseDuration does", "[server][duration]") {
  struct Case {
    std::string text;
    std::chrono::nanoseconds want;
  };
  const std::vector<Case> cases = {
      {"0", 0ns},
      {"10s", 10s},
      {"1m0s", 60s},
      {"1m30s", 90s},
      {"1.5h", 90min},
      {"300ms", 300ms},
      {"2h45m", 165min},
      {"1ns", 1ns},
      {"5us", 5us},
      {"5\xC2\xB5s", 5us},
      {"5\xCE\xBCs", 5us},
      {".5s", 500ms},
      {"1.s", 1s},
      {"-2ms", -2ms},
      {"+3s", 3s},
      {"1.000000001s", 1'000'000'001ns},
      {"2562047h47m16.854775807s", std::chrono::nanoseconds::max()},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.text) {
      const auto got = parse_go_duration(c.text);
      REQUIRE(got.has_value());
      CHECK(got->count() == c.want.count());
    }
  }
}

TEST_CASE("Text that is not a Go duration is refused", "[server][duration]") {
  for (const std::string text : {"", "10", "s", "10x", "1.5.5s", "-", "10 s", "1e3s",
                                 "2562047h47m16.854775808s", "99999999999999999999h"}) {
    DYNAMIC_SECTION("\"" << text << "\"") { CHECK_FALSE(parse_go_duration(text).has_value()); }
  }
}

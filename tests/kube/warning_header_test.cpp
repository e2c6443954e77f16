#include "jobset_webhook/kube/warning_header.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using jobset_webhook::kube::parse_warning_header;
using Texts = std::vector<std::string>;

// The forms apimachinery v0.37.2 writes and reads (pkg/util/net/http.go, NewWarningHeader and
// ParseWarningHeader).
TEST_CASE("A Warning header's texts are read as apimachinery writes them", "[kube][warning]") {
  CHECK(parse_warning_header(R"(299 - "plain")") == Texts{"plain"});
  CHECK(parse_warning_header(R"(299 - "a \"quoted\" name and a \\ backslash")") ==
        Texts{R"(a "quoted" name and a \ backslash)"});
  CHECK(parse_warning_header(R"(299 - "one" "Sat, 05 Dec 2026 10:00:00 GMT", 299 - "two")") ==
        Texts{"one", "two"});
  CHECK(parse_warning_header(R"(199 agent-1 "from an agent")") == Texts{"from an agent"});
}

TEST_CASE("A Warning header that does not parse keeps the warnings before it", "[kube][warning]") {
  CHECK(parse_warning_header("").empty());
  CHECK(parse_warning_header(R"(29 - "short code")").empty());
  CHECK(parse_warning_header(R"(299 - unquoted)").empty());
  CHECK(parse_warning_header(R"(299 - "unterminated)").empty());
  CHECK(parse_warning_header(R"(299 - "kept", garbage)") == Texts{"kept"});
  CHECK(parse_warning_header(R"(299 - "kept" trailing)") == Texts{"kept"});
}

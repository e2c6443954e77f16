#include "jobset_webhook/validation/quantity.h"

#include <catch2/catch.hpp>

using jobset_webhook::validation::parse_quantity;

namespace {
bool same(const char* a, const char* b) {
  const auto qa = parse_quantity(a), qb = parse_quantity(b);
  REQUIRE(qa);
  REQUIRE(qb);
  return *qa == *qb;
}
}  // namespace

TEST_CASE("Quantities that Kubernetes considers equal compare equal", "[validation][quantity]") {
  struct Case {
    const char* a;
    const char* b;
    bool equal;
  };
  const std::vector<Case> cases = {
      {"1", "1000m", true},        {"1Gi", "1024Mi", true},   {"1k", "1e3", true},
      {"1k", "1000", true},        {"0.5", "500m", true},     {"1.0", "1", true},
      {"+1", "1", true},           {"0", "-0", true},         {"1Ki", "1024", true},
      {"1E", "1e18", true},        {"100n", "0.1u", true},    {"1M", "1e6", true},
      {"1", "1001m", false},       {"1Gi", "1G", false},      {"-1", "1", false},
      {"2", "1.999999999", false}, {"1.5Gi", "1536Mi", true}, {".5", "0.5", true},
      {"5.", "5", true},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.a << " vs " << c.b) { CHECK(same(c.a, c.b) == c.equal); }
  }
}

TEST_CASE("Values finer than a nano-unit round up as Go rounds them", "[validation][quantity]") {
  CHECK(same("0.0000000001", "1n"));
  CHECK(same("1.0000000001", "1000000001n"));
}

TEST_CASE("Text outside the quantity grammar is not a quantity", "[validation][quantity]") {
  for (const char* bad : {"", "abc", "1Xi", "1.2.3", "--1", "1 Gi", "Gi", "1e", "1ee3"}) {
    DYNAMIC_SECTION(bad) { CHECK_FALSE(parse_quantity(bad)); }
  }
}

#include "validation/quantity.h"

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

// Every row below was run through resource.ParseQuantity (k8s.io/apimachinery v0.37.2,
// pkg/api/resource/quantity.go) and Quantity.AsDec; a row that hangs there (an exponent that
// wraps to -2^31) is derived from the same code read by hand.
TEST_CASE("Quantities read as resource.ParseQuantity reads them", "[validation][quantity]") {
  struct Case {
    const char* text;
    const char* value;  // as parse_quantity("value") must read it too: a plain decimal
  };
  const std::vector<Case> cases = {
      // parseQuantityString returns "0" when nothing but a sign, zeros or a point is left.
      {"+", "0"},
      {"-", "0"},
      {".", "0"},
      {"+.", "0"},
      {"-e5", "0"},
      {"m", "0"},
      {"Gi", "0"},
      {"1.G", "1000000000"},
      {"1.e3", "1000"},
      {"+.5", "0.5"},
      // Exponents: any int64, truncated to int32 (interpret's int32(parsed)).
      {"1e1001", "1e1001"},
      {"1e-1001", "0.000000001"},
      {"1e4294967297", "10"},
      {"1e-4294967297", "0.1"},
      {"1e-4294967295", "10"},
      {"1E+5", "100000"},
      // No cap for decimal values; binary ones are capped at 2^63-1.
      {"100000000000000000000", "100000000000000000000"},
      {"9223372036854775808", "9223372036854775808"},
      {"12345678901234567890123", "12345678901234567890123"},
      {"9Ei", "9223372036854775807"},
      {"-9Ei", "-9223372036854775807"},
      {"99999999999999999999Ki", "9223372036854775807"},
      {"123456789012345Ki", "126419751948641280"},
      {"0.5Ei", "576460752303423488"},
      {"1Ei", "1152921504606846976"},
      // Rounded up to a nano-unit, away from zero.
      {"0.1n", "0.000000001"},
      {"-0.1n", "-0.000000001"},
      {"-1e-20", "-0.000000001"},
      {"1.5n", "0.000000002"},
      {"0.0000000001Ki", "0.000000103"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.text) {
      const auto got = parse_quantity(c.text);
      REQUIRE(got);
      // 1e1001 cannot be written as a plain decimal here: compare with the exponent form, which
      // the fast path reads exactly.
      CHECK(*got == *parse_quantity(c.value));
    }
  }
  // The exponent wraps to -2^31: Go's fast path reads 1.5 * 10^(2^31 - 1); with no fraction its
  // slow path negates -2^31 in int32 and reads 10^(2^31) (ParseQuantity then rounds that
  // for hours; the value is what it computes).
  CHECK(*parse_quantity("1.5e-2147483648") == *parse_quantity("15e2147483647"));
  const auto huge = parse_quantity("1e-2147483648");
  REQUIRE(huge);
  CHECK(huge->digits == "1");
  CHECK(huge->exponent == 2147483648LL);
}

TEST_CASE("Text resource.ParseQuantity refuses is not a quantity", "[validation][quantity]") {
  // ErrFormatWrong: "", "abc", "1.2.3", "--1", "1 Gi", " 1", "1e1.5", "1e3k"; ErrSuffix: "1Xi",
  // "1e", "1ee3", "1Ki3", "1e+", "1e99999999999999999999"; ErrNumeric: "e-10", ".e-10".
  for (const char* bad :
       {"", "abc", "1Xi", "1.2.3", "--1", "1 Gi", " 1", "1e", "1ee3", "1e1.5", "1e3k", "1Ki3",
        "1e+", "1e-", "1e99999999999999999999", "e-10", ".e-10"}) {
    DYNAMIC_SECTION(bad) { CHECK_FALSE(parse_quantity(bad)); }
  }
}

TEST_CASE("The CRD's quantity pattern is matched exactly", "[validation][quantity]") {
  using jobset_webhook::validation::matches_quantity_pattern;
  for (const char* good : {"1", "+1", "-1.5", ".5", "5.", "1Ki", "1Ei", "1E", "1n", "1e3", "1E-3",
                           "1e+.5", "1e1.5", "1e1001"}) {
    DYNAMIC_SECTION("matches " << good) { CHECK(matches_quantity_pattern(good)); }
  }
  for (const char* bad : {"", "+", "-", ".", "Gi", "m", "abc", "1.2.3", "1Xi", "1e", "1e+", "1 ",
                          " 1", "1ki", "1K", "1Kii", "1e3k", "1i", "e5"}) {
    DYNAMIC_SECTION("refuses " << bad) { CHECK_FALSE(matches_quantity_pattern(bad)); }
  }
}

// ParseQuantity's error, as upstream's webhook answered each of these through kube-apiserver
// v1.37.2 (its mutating webhook decodes before the CRD's pattern is checked).
TEST_CASE("A refused quantity carries ParseQuantity's own error", "[validation][quantity]") {
  using jobset_webhook::validation::quantity_error;
  const std::string format_wrong =
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const std::string suffix = "unable to parse quantity's suffix";
  for (const char* text : {"abc", "1.5.5", "1e1.5", "1Mi.5", "1e+5.5", "-1e-1."}) {
    DYNAMIC_SECTION(text) { CHECK(quantity_error(text) == format_wrong); }
  }
  for (const char* text : {"1e", "1Ki5", "5i", "0.5e", "1e100000000000000000000"}) {
    DYNAMIC_SECTION(text) { CHECK(quantity_error(text) == suffix); }
  }
  CHECK(quantity_error("e-10") == "unable to parse numeric part of quantity");
  CHECK(quantity_error("1e3").empty());
  CHECK(quantity_error(".").empty());
}

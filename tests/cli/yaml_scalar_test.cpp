#include "cli/yaml_scalar_internal.h"

#include <catch2/catch.hpp>

#include "cli/documents.h"

// Each table is what kubectl's reader gives: sigs.k8s.io/yaml v1.6.0 YAMLToJSON, which decodes
// with go-yaml v2 (go.yaml.in/yaml/v2 v2.4.2) and json.Marshals the result. The wants were
// obtained by running YAMLToJSON on "v: <scalar>" and "<scalar>: 1"; a JSON value is written as
// nlohmann prints it, so that an integer (1000) and a float (1000.0) differ.

namespace cli = jobset_webhook::cli;
using jobset_webhook::Json;

namespace {

struct Row {
  std::string scalar;
  std::string want;  // the JSON value (or key) as printed, or "error: <message>"
};

// "v: <scalar>" read as a manifest: the value of v, or the failure.
std::string value_of(const std::string& scalar) {
  const auto docs = cli::parse_yaml_documents("v: " + scalar + "\n", "s.yaml");
  if (!docs.ok()) return "error: " + docs.failure().message;
  return docs.value()[0]["v"].dump();
}

// "<scalar>: 1" read as a manifest: its one key, or the failure.
std::string key_of(const std::string& scalar) {
  const auto docs = cli::parse_yaml_documents(scalar + ": 1\n", "s.yaml");
  if (!docs.ok()) return "error: " + docs.failure().message;
  return docs.value()[0].begin().key();
}

void check_values(const std::vector<Row>& rows) {
  for (const auto& r : rows) {
    DYNAMIC_SECTION("v: " << r.scalar) { CHECK(value_of(r.scalar) == r.want); }
  }
}

}  // namespace

TEST_CASE("Booleans are the YAML 1.1 spellings of go-yaml v2's resolveMap (resolve.go, init)",
          "[cli][yaml_scalar]") {
  check_values({
      {"y", "true"},        {"Y", "true"},        {"yes", "true"},    {"Yes", "true"},
      {"YES", "true"},      {"on", "true"},       {"On", "true"},     {"ON", "true"},
      {"true", "true"},     {"True", "true"},     {"TRUE", "true"},   {"n", "false"},
      {"N", "false"},       {"no", "false"},      {"No", "false"},    {"NO", "false"},
      {"off", "false"},     {"Off", "false"},     {"OFF", "false"},   {"false", "false"},
      {"False", "false"},   {"FALSE", "false"},   {"yEs", "\"yEs\""}, {"oN", "\"oN\""},
      {"tRue", "\"tRue\""}, {"'yes'", "\"yes\""},
  });
}

TEST_CASE("Nulls are empty, ~ and null in three spellings (resolve.go, resolveMap)",
          "[cli][yaml_scalar]") {
  check_values({
      {"", "null"},
      {"~", "null"},
      {"null", "null"},
      {"Null", "null"},
      {"NULL", "null"},
      {"nUll", "\"nUll\""},
      {"\"~\"", "\"~\""},
  });
}

TEST_CASE("Integers are strconv.ParseInt(s, 0, 64) of the text without underscores (resolve())",
          "[cli][yaml_scalar]") {
  check_values({
      {"0644", "420"},
      {"0_644", "420"},
      {"007", "7"},
      {"-0", "0"},
      {"0o17", "15"},
      {"0O17", "15"},
      {"0x1F", "31"},
      {"0X1f", "31"},
      {"0x_1F", "31"},
      {"0b101", "5"},
      {"0B101", "5"},
      {"0b1_0", "2"},
      {"-0b11", "-3"},
      {"+12", "12"},
      {"-0x10", "-16"},
      {"+0x10", "16"},
      {"1_000", "1000"},
      {"1__0", "10"},
      {"1_", "1"},
      {"_1", "\"_1\""},
      {"0x", "\"0x\""},
      {"0o8", "\"0o8\""},
      {"0b", "\"0b\""},
      {"0x1G", "\"0x1G\""},
      {"12abc", "\"12abc\""},
      {"9223372036854775807", "9223372036854775807"},
      {"-9223372036854775808", "-9223372036854775808"},
      // ParseInt overflows, ParseUint does not: a uint64.
      {"9223372036854775808", "9223372036854775808"},
      {"18446744073709551615", "18446744073709551615"},
      // Neither fits: yamlStyleFloat matches, so a float.
      {"18446744073709551616", "1.8446744073709552e+19"},
      {"-9223372036854775809", "-9.223372036854776e+18"},
      // Octal fails on 8 and 9, then the float form reads the decimal digits.
      {"08", "8"},
      {"09.5", "9.5"},
      {"2001-01-01", "\"2001-01-01\""},
  });
}

TEST_CASE(
    "Floats are yamlStyleFloat through strconv.ParseFloat; json.Marshal writes an integral "
    "one as an integer (resolve(), encoding/json)",
    "[cli][yaml_scalar]") {
  check_values({
      {"1.5", "1.5"},
      {"0.1", "0.1"},
      {".5", "0.5"},
      {"-.5e-3", "-0.0005"},
      {"3.0", "3"},
      {"5.", "5"},
      {"1e3", "1000"},
      {"+2.5E+2", "250"},
      {"1e7", "10000000"},
      {"1_0.5", "10.5"},
      {".5_5", "0.55"},
      {"._5", "\"._5\""},
      {"99999999999999999999", "1e+20"},
      {"1e-400", "0"},
      // ParseFloat's ErrRange: the text stays a string.
      {"1e400", "\"1e400\""},
      {"e3", "\"e3\""},
      {".", "\".\""},
      {"1.2.3", "\"1.2.3\""},
      {"1e", "\"1e\""},
      {"1e+", "\"1e+\""},
      {".e1", "\".e1\""},
      {".nAn", "\".nAn\""},
  });
}

TEST_CASE("Infinity and NaN values are refused at their line, as json.Marshal refuses them",
          "[cli][yaml_scalar]") {
  check_values({
      {".inf", "error: s.yaml:1:4: error converting YAML to JSON: json: unsupported value: +Inf"},
      {"-.Inf", "error: s.yaml:1:4: error converting YAML to JSON: json: unsupported value: -Inf"},
      {"+.INF", "error: s.yaml:1:4: error converting YAML to JSON: json: unsupported value: +Inf"},
      {".NaN", "error: s.yaml:1:4: error converting YAML to JSON: json: unsupported value: NaN"},
  });
}

TEST_CASE("Map keys become JSON keys as sigs.k8s.io/yaml's convertToJSONableObject makes them",
          "[cli][yaml_scalar]") {
  const std::vector<Row> rows = {
      {"name", "name"},
      {"1", "1"},
      {"0x10", "16"},
      {"0644", "420"},
      {"yes", "true"},
      {"off", "false"},
      {"'yes'", "yes"},
      // Floats by strconv.FormatFloat(f, 'g', -1, 32).
      {"1.5", "1.5"},
      {"3.0", "3"},
      {"1e3", "1000"},
      {"1e7", "1e+07"},
      {"0.00001", "1e-05"},
      {"0.0001", "0.0001"},
      {"3.14159265358979", "3.1415927"},
      {"99999999999999999999", "1e+20"},
      {"-0.0", "-0"},
      {".inf", ".inf"},
      {"-.Inf", "-.inf"},
      {".NaN", ".nan"},
      {"9223372036854775808", "error: s.yaml:1:1: unsupported map key of type: uint64"},
      {"~", "error: s.yaml:1:1: mapping keys must be strings, numbers or booleans"},
  };
  for (const auto& r : rows) {
    DYNAMIC_SECTION(r.scalar << ": 1") { CHECK(key_of(r.scalar) == r.want); }
  }
}

// `1` and `0x1` are one go-yaml key (the int 1): the last wins. `1` and "1" are two Go map keys
// that convertToJSONableObject (sigs.k8s.io/yaml, yaml.go) writes to one JSON member in map
// iteration order, which Go randomizes: kubectl keeps either, so check refuses.
TEST_CASE(
    "Keys that are one go-yaml key keep the last; two that become one JSON member are refused",
    "[cli][yaml_scalar]") {
  const auto same = cli::parse_yaml_documents("a:\n  1: p\n  0x1: q\n", "k.yaml");
  REQUIRE(same.ok());
  CHECK(same.value()[0] == Json::parse(R"({"a": {"1": "q"}})"));
  const auto docs = cli::parse_yaml_documents("a:\n  1: x\n  \"1\": y\n", "k.yaml");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.failure().message ==
        "k.yaml:3:3: two keys of this mapping become the JSON member \"1\"; kubectl keeps one of "
        "them at random: write one key");
}

TEST_CASE(
    "Explicit tags: !!str keeps the text, !!int and !!float resolve, a mismatch fails "
    "(resolve()'s deferred check)",
    "[cli][yaml_scalar]") {
  check_values({
      {"!!str 0644", "\"0644\""},
      {"!!int 0644", "420"},
      {"!!int \"0x10\"", "16"},
      {"!!float 1", "1"},
      {"!!float 1.5", "1.5"},
      {"!!bool yes", "true"},
      {"!custom 0644", "\"0644\""},
      {"!!int abc", "error: s.yaml:1:4: cannot decode !!str `abc` as a !!int"},
      {"!!bool 1", "error: s.yaml:1:4: cannot decode !!int `1` as a !!bool"},
  });
}

TEST_CASE("A resolved key is marked where it is written", "[cli][yaml_scalar]") {
  const auto docs = cli::parse_located_documents("m:\n  0x10: 0644\n  yes: on\n", "m.yaml");
  REQUIRE(docs.ok());
  const auto& d = docs.value()[0];
  CHECK(d.value.dump() == R"({"m":{"16":420,"true":true}})");
  CHECK(d.marks.at("/m/16") == cli::Mark{2, 3});
  CHECK(d.marks.at("/m/true") == cli::Mark{3, 3});
}

TEST_CASE("plain_scalar says which text reads back as itself, for the YAML writer",
          "[cli][yaml_scalar]") {
  CHECK(cli::plain_scalar("bash:5.2") == "bash:5.2");
  CHECK(cli::plain_scalar("0644") == 420);
  CHECK(cli::plain_scalar("y").is_boolean());
  CHECK(cli::plain_scalar(".inf").is_number_float());
  CHECK(cli::plain_scalar("1_000") == 1000);
}

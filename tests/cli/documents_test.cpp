#include "jobset_webhook/cli/documents.h"

#include <catch2/catch.hpp>

namespace jobset_webhook::cli {
// So that Catch prints a mark that differs.
std::ostream& operator<<(std::ostream& out, const Mark& mark);
std::ostream& operator<<(std::ostream& out, const Mark& mark) { return out << mark.line << ":" << mark.column; }
}  // namespace jobset_webhook::cli

namespace cli = jobset_webhook::cli;
using jobset_webhook::Json;

TEST_CASE("YAML scalars resolve as Kubernetes resolves them", "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents(R"(
a: 1
b: "1"
c: true
d: 'true'
e: ~
f: 1.5
g: 0x10
h: bash:5.2
i: 99999999999999999999
)", "test.yaml");
  REQUIRE(docs.ok());
  REQUIRE(docs.value().size() == 1);
  const auto& d = docs.value()[0];
  CHECK(d["a"] == 1);
  CHECK(d["b"] == "1");
  CHECK(d["c"] == true);
  CHECK(d["d"] == "true");
  CHECK(d["e"].is_null());
  CHECK(d["f"] == 1.5);
  CHECK(d["g"] == 16);
  CHECK(d["h"] == "bash:5.2");
  CHECK(d["i"] == "99999999999999999999");
}

TEST_CASE("Plain scalars follow the YAML 1.2 core schema's integer and float forms", "[cli][documents]") {
  struct Case {
    std::string scalar;
    Json want;
  };
  const std::vector<Case> cases = {
      {"+1", 1}, {"-0", 0}, {"007", 7}, {"0o17", 15}, {"0x1F", 31}, {"1e3", 1000.0}, {".5", 0.5}, {"5.", 5.0},
      {"-.5e-3", -0.0005}, {"+2.5E+2", 250.0}, {"0x", "0x"}, {"0o8", "0o8"}, {"-0x10", "-0x10"}, {"0x1G", "0x1G"},
      {"1e", "1e"}, {"e3", "e3"}, {"+", "+"}, {".", "."}, {"1_000", "1_000"}, {"1.2.3", "1.2.3"},
      {".e1", ".e1"}, {"1e+", "1e+"}, {"12abc", "12abc"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.scalar) {
      const auto docs = cli::parse_yaml_documents("v: " + c.scalar + "\n", "s.yaml");
      REQUIRE(docs.ok());
      const Json& got = docs.value()[0]["v"];
      CHECK(got == c.want);
      CHECK(got.type() == c.want.type());
    }
  }
}

TEST_CASE("A YAML stream yields every non-empty document", "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents("a: 1\n---\n---\nb: 2\n", "s.yaml");
  REQUIRE(docs.ok());
  CHECK(docs.value().size() == 2);
}

TEST_CASE("Malformed YAML is a failure with its line", "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents("a: 1\nb: [1, 2\n", "bad.yaml");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.failure().message.rfind("bad.yaml:", 0) == 0);
}

TEST_CASE("Deeply nested YAML is refused without a crash", "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents(std::string(100000, '[') + std::string(100000, ']'), "deep.yaml");
  CHECK_FALSE(docs.ok());
}

TEST_CASE("Aliases that expand without end are refused without a hang", "[cli][documents]") {
  // "Billion laughs": nine levels of nine aliases each.
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  std::string previous = "a";
  for (const std::string name : {"b", "c", "d", "e", "f", "g", "h", "i"}) {
    text += name + ": &" + name + " [";
    for (int i = 0; i < 9; ++i) text += (i > 0 ? ", *" : "*") + previous;
    text += "]\n";
    previous = name;
  }
  const auto docs = cli::parse_yaml_documents(text, "bomb.yaml");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.failure().message.find("more than 1000000 values (aliases expanding without end?)") != std::string::npos);
}

TEST_CASE("A missing file is a failure that names it", "[cli][documents]") {
  const auto r = cli::read_input("/nonexistent/file.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().message == "/nonexistent/file.yaml: No such file or directory");
}

TEST_CASE("A key repeated in a mapping is a failure with its line and column", "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents("spec:\n  image: a\n  image: b\n", "dup.yaml");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.failure().message == R"(dup.yaml:3:3: key "image" is repeated in this mapping)");
}

TEST_CASE("Located documents mark members at their keys and elements at their start", "[cli][documents]") {
  const auto docs = cli::parse_located_documents(
      "kind: A\nspec:\n  list:\n  - name: x\n    image: y\n  - plain\n---\n{\"a\": {\"b/c~\": [1, 2]}}\n", "m.yaml");
  REQUIRE(docs.ok());
  REQUIRE(docs.value().size() == 2);
  const auto& first = docs.value()[0].marks;
  const std::vector<std::pair<std::string, cli::Mark>> want = {
      {"", {1, 1}},
      {"/kind", {1, 1}},
      {"/spec", {2, 1}},
      {"/spec/list", {3, 3}},
      {"/spec/list/0", {4, 5}},
      {"/spec/list/0/name", {4, 5}},
      {"/spec/list/0/image", {5, 5}},
      {"/spec/list/1", {6, 5}},
  };
  for (const auto& [pointer, mark] : want) {
    DYNAMIC_SECTION("pointer " << pointer) {
      REQUIRE(first.count(pointer) == 1);
      CHECK(first.at(pointer) == mark);
    }
  }
  // Lines count from the start of the stream; JSON keys are marked at their opening quote.
  const auto& second = docs.value()[1].marks;
  CHECK(second.at("/a") == cli::Mark{8, 2});
  CHECK(second.at("/a/b~1c~0") == cli::Mark{8, 8});
  CHECK(second.at("/a/b~1c~0/1") == cli::Mark{8, 20});
}

TEST_CASE("to_yaml quotes what YAML would read as another type, and reads back equal", "[cli][documents]") {
  const auto value = Json::parse(R"({"t":"true","n":"1","f":"1.5","e":"","z":"null","tilde":"~","multi":"a\nb",
    "colon":"a: b","hash":"# x","num":1,"float":1.0,"big":1e300,"neg":-3,"bool":false,"nul":null,
    "list":[],"map":{},"nested":[{"a":["x",{"b":"0x10"}]}],"":"empty key","1":"numeric key","unicode":"héllo"})");
  const auto text = cli::to_yaml(value);
  const auto back = cli::parse_yaml_documents(text, "emitted.yaml");
  REQUIRE(back.ok());
  REQUIRE(back.value().size() == 1);
  CHECK(back.value()[0] == value);
  CHECK(text.find("t: \"true\"\n") != std::string::npos);
  CHECK(text.find("n: \"1\"\n") != std::string::npos);
  CHECK(text.find("num: 1\n") != std::string::npos);
  CHECK(text.find("float: 1.0\n") != std::string::npos);
}

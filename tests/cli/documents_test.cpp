#include "cli/documents.h"

#include <catch2/catch.hpp>

namespace jobset_webhook::cli {
// So that Catch prints a mark that differs.
std::ostream& operator<<(std::ostream& out, const Mark& mark);
std::ostream& operator<<(std::ostream& out, const Mark& mark) {
  return out << mark.line << ":" << mark.column;
}
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
)",
                                              "test.yaml");
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
  CHECK(d["i"] == 1e20);  // go-yaml v2: too big for (u)int64, so a float
}

// go-yaml v2's resolve() (YAML 1.1) then json.Marshal, as kubectl reads a manifest; the full
// tables, each naming its Go function, are in yaml_scalar_test.cpp.
TEST_CASE("Plain scalars follow go-yaml v2's integer and float forms, as kubectl reads them",
          "[cli][documents]") {
  struct Case {
    std::string scalar;
    Json want;
  };
  const std::vector<Case> cases = {
      {"+1", 1},      {"-0", 0},      {"007", 7},         {"0o17", 15},        {"0x1F", 31},
      {"1e3", 1000},  {".5", 0.5},    {"5.", 5},          {"-.5e-3", -0.0005}, {"+2.5E+2", 250},
      {"0x", "0x"},   {"0o8", "0o8"}, {"-0x10", -16},     {"0x1G", "0x1G"},    {"1e", "1e"},
      {"e3", "e3"},   {"+", "+"},     {".", "."},         {"1_000", 1000},     {"1.2.3", "1.2.3"},
      {".e1", ".e1"}, {"1e+", "1e+"}, {"12abc", "12abc"}, {"0644", 420},       {"yes", true},
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
  const auto docs =
      cli::parse_yaml_documents(std::string(100000, '[') + std::string(100000, ']'), "deep.yaml");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.failure().message == "deep.yaml:1:1: document nested too deeply");
  std::string block;
  for (int i = 0; i < 100000; ++i) block += "- ";
  const auto blocks = cli::parse_yaml_documents(block + "x\n", "block.yaml");
  REQUIRE_FALSE(blocks.ok());
  CHECK(blocks.failure().message == "block.yaml:1:1000: document nested too deeply");
  const auto fine =
      cli::parse_yaml_documents(std::string(300, '[') + std::string(300, ']'), "300.yaml");
  REQUIRE(fine.ok());
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
  CHECK(docs.failure().message.find("aliases expand the YAML to more than") != std::string::npos);
}

TEST_CASE("A missing file is a failure that names it", "[cli][documents]") {
  const auto r = cli::read_input("/nonexistent/file.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().message == "/nonexistent/file.yaml: No such file or directory");
}

// go-yaml v2's Unmarshal, which kubectl reads manifests with (sigs.k8s.io/yaml's YAMLToJSON),
// sets a repeated key again (decode.go, decoder.setMapIndex); only UnmarshalStrict refuses it.
TEST_CASE("A key repeated in a mapping keeps its last value, marked where it is written last",
          "[cli][documents]") {
  const auto docs =
      cli::parse_located_documents("spec:\n  image: a\n  other: 1\n  image: b\n", "dup.yaml");
  REQUIRE(docs.ok());
  CHECK(docs.value()[0].value == Json::parse(R"({"spec": {"image": "b", "other": 1}})"));
  CHECK(docs.value()[0].marks.at("/spec/image") == cli::Mark{4, 3});
}

TEST_CASE("Located documents mark members at their keys and elements at their start",
          "[cli][documents]") {
  const auto docs = cli::parse_located_documents(
      "kind: A\nspec:\n  list:\n  - name: x\n    image: y\n  - plain\n---\n{\"a\": {\"b/c~\": [1, "
      "2]}}\n",
      "m.yaml");
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

TEST_CASE("A literal block's text is marked where its line 1 starts; other scalars are not",
          "[cli][documents]") {
  // The mark is where line 1, column 1 of the text would be: the line after the `|` (even when
  // the text's line 1 is empty), behind the block's indentation (found from its first non-empty
  // line, or given by the indicator, relative to the key's own).
  const auto docs = cli::parse_located_documents(
      "clip: |\n"                   // 1
      "  a\n"                       // 2
      "    v\n"                     // 3
      "strip: |-\n"                 // 4
      "    a\n"                     // 5
      "      v\n"                   // 6
      "keep: |+ # a comment\n"      // 7
      "  a\n"                       // 8
      "    v\n"                     // 9
      "\n"                          // 10
      "indicator: |4\n"             // 11
      "      a\n"                   // 12: two spaces of the text's own, behind 4
      "      v\n"                   // 13
      "list:\n"                     // 14
      "- |-\n"                      // 15
      "\n"                          // 16: an empty line 1
      "   v\n"                      // 17
      "folded: >\n"                 // 18
      "  a\n"                       // 19
      "    v\n"                     // 20
      "quoted: \"a\n  \n    v\"\n"  // 21-23
      "plain: a\n"                  // 24
      "tagged: !!str |\n"           // 25
      "  a\n"                       // 26
      "    v\n",                    // 27
      "blocks.yaml");
  REQUIRE(docs.ok());
  const auto& doc = docs.value()[0];
  CHECK(doc.value["indicator"] == "  a\n  v\n");
  const std::map<std::string, cli::Mark, std::less<>> want = {
      {"/clip", {2, 3}},       {"/strip", {5, 5}},   {"/keep", {8, 3}},
      {"/indicator", {12, 5}}, {"/list/0", {16, 4}},
  };
  CHECK(doc.literal_blocks == want);
}

TEST_CASE("A literal block of a million blank lines is marked", "[cli][documents]") {
  // Each line is compared once: 0.15 s here. Looking for the rest of the text again from every
  // line took 46 s on this block, which shows as this test's time (speed is never asserted).
  const std::string blank(500000, '\n');
  const auto docs = cli::parse_located_documents("k: |+\n" + blank + "  v\n" + blank, "big.yaml");
  REQUIRE(docs.ok());
  CHECK(docs.value()[0].value["k"] == blank + "v\n" + blank);
  CHECK(docs.value()[0].literal_blocks.at("/k") == cli::Mark{2, 3});
}

TEST_CASE("to_yaml quotes what YAML would read as another type, and reads back equal",
          "[cli][documents]") {
  const auto value =
      Json::parse(R"({"t":"true","n":"1","f":"1.5","e":"","z":"null","tilde":"~","multi":"a\nb",
    "colon":"a: b","hash":"# x","num":1,"float":1.0,"big":1e300,"neg":-3,"bool":false,"nul":null,
    "list":[],"map":{},"nested":[{"a":["x",{"b":"0x10"}]}],"":"empty key","1":"numeric key","unicode":"héllo"})");
  const auto text = cli::to_yaml(value);
  const auto back = cli::parse_yaml_documents(text, "emitted.yaml");
  REQUIRE(back.ok());
  REQUIRE(back.value().size() == 1);
  CHECK(back.value()[0] == value);
  CHECK(text.find("t: \"true\"\n") != std::string::npos);
  // The key n is quoted too: kubectl reads an unquoted n as false (go-yaml v2, YAML 1.1).
  CHECK(text.find("\"n\": \"1\"\n") != std::string::npos);
  CHECK(text.find("num: 1\n") != std::string::npos);
  CHECK(text.find("float: 1.0\n") != std::string::npos);
}

// Found by fuzz_yaml: yaml-cpp passes invalid UTF-8 through, and the documents it produced made
// every later Json::dump throw. YAML text must be Unicode; kubectl's loader refuses it too.
TEST_CASE("A YAML string with invalid UTF-8 is refused with its line", "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents("a: ok\nb: \"caf\xC3\"\n", "bad.yaml");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.failure().message == "bad.yaml:2:4: not valid UTF-8");
  const auto keys = cli::parse_yaml_documents("a: ok\n\xFF: 1\n", "key.yaml");
  REQUIRE_FALSE(keys.ok());
  CHECK(keys.failure().message == "key.yaml:2:1: not valid UTF-8");
}

TEST_CASE("A 1 MiB scalar loads whole, digits or not", "[cli][documents]") {
  const std::string digits(1 << 20, '7');
  const std::string text(1 << 20, 'x');
  const auto docs = cli::parse_yaml_documents(
      "a: " + digits + "\nb: " + text + "\nc: '" + text + "'\n", "big.yaml");
  REQUIRE(docs.ok());
  CHECK(docs.value()[0]["a"] == digits);  // out of int64 and double range: kept as text
  CHECK(docs.value()[0]["b"] == text);
  CHECK(docs.value()[0]["c"] == text);
}

TEST_CASE("Aliases that expand a document past its budget are refused", "[cli][documents]") {
  std::string lol = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    lol += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) lol += (k ? ", *a" : "*a") + std::to_string(i - 1);
    lol += "]\n";
  }
  const auto docs = cli::parse_yaml_documents(lol, "lol.yaml");
  REQUIRE_FALSE(docs.ok());
  CHECK(docs.failure().message == "lol.yaml: aliases expand the YAML to more than 10511 values");

  const auto modest = cli::parse_yaml_documents("base: &b {image: x}\nuse: *b\n", "alias.yaml");
  REQUIRE(modest.ok());
  CHECK(modest.value()[0]["use"] == Json{{"image", "x"}});
}

TEST_CASE("Repeated keys keep the last value, in YAML and in JSON", "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents("a: 1\nb: 2\na: 3\n", "dup.yaml");
  REQUIRE(docs.ok());
  CHECK(docs.value()[0] == Json::parse(R"({"a": 3, "b": 2})"));
  const auto nested = cli::parse_yaml_documents(R"({"x": {"k": 1, "k": 2}})", "dup.json");
  REQUIRE(nested.ok());
  CHECK(nested.value()[0] == Json::parse(R"({"x": {"k": 2}})"));
}

// go-yaml v2 (decode.go, decoder.merge and isMerge); tests/cli/yaml_pin_test.cpp pins each case
// to sigs.k8s.io/yaml itself.
TEST_CASE("Merge keys are merged as kubectl merges them; their members are marked at the <<",
          "[cli][documents]") {
  const auto docs = cli::parse_located_documents(
      "base: &b {a: 1, c: 0}\nderived:\n  <<: *b\n  c: 2\n", "merge.yaml");
  REQUIRE(docs.ok());
  CHECK(docs.value()[0].value["derived"] == Json::parse(R"({"a": 1, "c": 2})"));
  CHECK(docs.value()[0].marks.at("/derived/a") == cli::Mark{3, 3});
  CHECK(docs.value()[0].marks.at("/derived/c") == cli::Mark{4, 3});
  const auto quoted = cli::parse_yaml_documents("'<<': 1\n", "quoted.yaml");
  REQUIRE(quoted.ok());
  CHECK(quoted.value()[0]["<<"] == 1);
  const auto scalar = cli::parse_yaml_documents("a:\n  <<: 1\n", "scalar.yaml");
  REQUIRE_FALSE(scalar.ok());
  CHECK(scalar.failure().message ==
        "scalar.yaml:2:3: map merge requires map or sequence of maps as the value");
}

TEST_CASE("A map with 100,000 keys loads", "[cli][documents]") {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "k" + std::to_string(i) + ": v\n";
  const auto docs = cli::parse_yaml_documents(text, "wide.yaml");
  REQUIRE(docs.ok());
  CHECK(docs.value()[0].size() == 100000);
  CHECK(docs.value()[0]["k99999"] == "v");
}

// Found by fuzz_policy: yaml-cpp's LoadAll loops forever on a stray "," before a flow collection,
// allocating a null document per turn until memory runs out (yaml-cpp issue 1040).
TEST_CASE("A stray comma before a flow collection is refused, not looped on", "[cli][documents]") {
  for (const std::string text : {",\n{", ",\n[", ",--\nelaMti\n{---\n"}) {
    DYNAMIC_SECTION(text) {
      const auto docs = cli::parse_yaml_documents(text, "comma.yaml");
      REQUIRE_FALSE(docs.ok());
      CHECK(docs.failure().message == "comma.yaml:1:1: not valid YAML here");
    }
  }
}

TEST_CASE("Anchors belong to their document, and an alias inside its own anchor is refused",
          "[cli][documents]") {
  const auto docs = cli::parse_yaml_documents("a: &x 1\nb: *x\n---\nc: &x 2\nd: *x\n", "two.yaml");
  REQUIRE(docs.ok());
  REQUIRE(docs.value().size() == 2);
  CHECK(docs.value()[0] == Json{{"a", 1}, {"b", 1}});
  CHECK(docs.value()[1] == Json{{"c", 2}, {"d", 2}});
  const auto cycle = cli::parse_yaml_documents("a: &x [1, *x]\n", "cycle.yaml");
  REQUIRE_FALSE(cycle.ok());
  CHECK(cycle.failure().message == "cycle.yaml:1:11: an alias refers to a node that contains it");
}

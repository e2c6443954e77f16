// The CLI's YAML reader against kubectl's, on the same inputs: build-e2e/bin/yamlpin
// (tests/e2e/cmd/yamlpin, built by `scripts/dev e2e-go`) converts each input with
// sigs.k8s.io/yaml's YAMLToJSON, which is how kubectl's resource builder reads a manifest
// (go-yaml v2's Unmarshal beneath: decode.go, decoder.mapping, decoder.merge, decoder.setMapIndex).
// The meson test `yamlpin` runs this group with JOBSET_YAMLPIN set, and is skipped (and counted as
// skipped) where the binary has not been built.

#include <cstdlib>
#include <map>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/documents.h"
#include "support/files.h"
#include "support/process.h"

namespace cli = jobset_webhook::cli;
using jobset_webhook::testing::ScratchDir;
using jobset_webhook::testing::slurp;

namespace {

struct Case {
  std::string name;
  std::string yaml;
};

// One document each: merge keys in every form go-yaml v2 reads, and repeated keys.
const std::vector<Case> kCases = {
    {"merge-alias", "base: &b {a: 1, b: 2}\nderived:\n  <<: *b\n  c: 3\n"},
    {"merge-overridden-after", "base: &b {a: 1}\nd:\n  <<: *b\n  a: 2\n"},
    {"merge-overrides-before", "base: &b {a: 1}\nd:\n  a: 2\n  <<: *b\n"},
    {"merge-list-earlier-wins",
     "x: &x {a: 1, b: 1}\ny: &y {b: 2, c: 2}\nd:\n  <<: [*x, *y]\n  c: 3\n"},
    {"merge-list-block", "x: &x {a: 1}\ny: &y {a: 2, b: 2}\nd:\n  <<:\n  - *x\n  - *y\n"},
    {"merge-inline", "d:\n  <<: {a: 1}\n  b: 2\n"},
    {"merge-twice", "<<: {a: 1, b: 1}\n<<: {a: 2}\n"},
    {"merge-lists-of-maps",
     "t: &t\n  containers:\n  - name: a\n    image: x\nspec:\n  <<: *t\n  restartPolicy: Never\n"},
    {"merge-not-deep", "t: &t {s: {a: 1, b: 2}}\nd:\n  <<: *t\n  s: {c: 3}\n"},
    {"merge-empty-list", "d:\n  <<: []\n  a: 1\n"},
    {"merge-tagged", "!!merge <<: {a: 1}\n"},
    {"merge-in-list-item", "d: &d {image: x}\nc:\n- <<: *d\n  name: a\n"},
    {"merge-chain", "a: &a {x: 1}\nb: &b\n  <<: *a\n  y: 2\nc:\n  <<: *b\n  z: 3\n"},
    {"merge-flow", "a: &a {x: 1}\nb: &b {z: 1}\nc: {<<: [*a, *b], x: 2}\n"},
    {"merge-then-repeat", "d:\n  <<: {a: 1}\n  a: 2\n  a: 3\n"},
    {"quoted-merge-key", "\"<<\": 1\n"},
    {"str-tagged-merge-key", "!!str <<: 1\n"},
    {"merge-scalar", "d:\n  <<: 1\n"},
    {"merge-null", "d:\n  <<:\n"},
    {"merge-list-with-scalar", "<<: [{a: 1}, 3]\n"},
    {"merge-alias-to-list", "s: &s [1]\nd:\n  <<: *s\n"},
    {"repeated-key", "a: 1\nb: 2\na: 3\n"},
    {"repeated-key-maps", "a: {b: 1}\na: {c: 2}\n"},
    {"repeated-key-one-int", "1: a\n0x1: b\n"},
    {"repeated-key-flow", "{a: 1, a: 2}\n"},
    {"repeated-key-json", "{\"a\": 1, \"a\": 2}\n"},
    {"repeated-key-nested", "spec:\n  template:\n    image: a\n    name: n\n    image: b\n"},
};

// "name\tjson" or "name\terror: message" per line, by name.
std::map<std::string, std::string> pinned(const std::string& yamlpin, const ScratchDir& dir) {
  std::string args;
  for (const auto& c : kCases) args += " '" + dir.write(c.name, c.yaml) + "'";
  const std::string out = dir.path() + "/pinned.txt";
  REQUIRE(std::system((yamlpin + args + " >'" + out + "'").c_str()) == 0);
  std::map<std::string, std::string> lines;
  std::istringstream text(slurp(out));
  for (std::string line; std::getline(text, line);) {
    const auto tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    lines[std::filesystem::path(line.substr(0, tab)).filename().string()] = line.substr(tab + 1);
  }
  return lines;
}

}  // namespace

TEST_CASE("Merge and repeated keys read as sigs.k8s.io/yaml reads them", "[cli][yamlpin]") {
  const char* yamlpin = std::getenv("JOBSET_YAMLPIN");
  if (yamlpin == nullptr || !std::filesystem::exists(yamlpin)) {
    WARN("JOBSET_YAMLPIN not set or missing (scripts/dev e2e-go builds it): skipped");
    return;
  }
  ScratchDir dir;
  const auto want = pinned(yamlpin, dir);
  for (const auto& c : kCases) {
    DYNAMIC_SECTION(c.name) {
      INFO(c.yaml);
      REQUIRE(want.count(c.name) == 1);
      const std::string& go = want.at(c.name);
      const auto ours = cli::parse_yaml_documents(c.yaml, c.name);
      INFO("sigs.k8s.io/yaml: " << go);
      INFO("ours: " << (ours.ok() ? ours.value().at(0).dump() : ours.failure().message));
      if (go.rfind("error: ", 0) == 0) {
        CHECK_FALSE(ours.ok());
      } else {
        REQUIRE(ours.ok());
        REQUIRE(ours.value().size() == 1);
        // Members compared whatever their order: Go writes a map's keys sorted.
        CHECK(nlohmann::json::parse(ours.value()[0].dump()) == nlohmann::json::parse(go));
      }
    }
  }
}

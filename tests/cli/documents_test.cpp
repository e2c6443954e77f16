#include "jobset_webhook/cli/documents.h"

#include <catch2/catch.hpp>

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

TEST_CASE("A missing file is a failure that names it", "[cli][documents]") {
  const auto r = cli::read_input("/nonexistent/file.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().message == "/nonexistent/file.yaml: No such file or directory");
}

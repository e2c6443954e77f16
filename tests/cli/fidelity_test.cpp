// check reads and compares manifests as the cluster does: YAML scalars as kubectl
// reads them (sigs.k8s.io/yaml over go-yaml v2), quantities and integers by value, and fields the
// CRD does not declare as the API server handles them under kubectl's --field-validation.

#include <catch2/catch.hpp>

#include "cli/check.h"

namespace cli = jobset_webhook::cli;
using jobset_webhook::Policy;

namespace {

// One JobSet whose first container's fragment is the text given (indented under the container).
std::string manifest(const std::string& replicas, const std::string& container,
                     const std::string& pod_spec = "") {
  return "apiVersion: jobset.x-k8s.io/v1alpha2\n"
         "kind: JobSet\n"
         "metadata:\n"
         "  name: js\n"
         "spec:\n"
         "  replicatedJobs:\n"
         "  - name: w\n"
         "    replicas: " +
         replicas +
         "\n"
         "    template:\n"
         "      spec:\n"
         "        template:\n"
         "          spec:\n" +
         pod_spec +
         "            containers:\n"
         "            - name: main\n"
         "              image: bash:5.2\n" +
         container;
}

cli::JobSetResult check_one(const std::string& old_text, const std::string& new_text,
                            cli::FieldValidation fv = cli::FieldValidation::kStrict) {
  auto old_side = cli::parse_manifests(old_text, "old.yaml");
  auto new_side = cli::parse_manifests(new_text, "new.yaml");
  REQUIRE(old_side.ok());
  REQUIRE(new_side.ok());
  auto report = cli::check_manifests(old_side.value(), new_side.value(), Policy{}, fv);
  REQUIRE(report.ok());
  REQUIRE(report.value().jobsets.size() == 1);
  return report.value().jobsets[0];
}

std::string findings(const cli::JobSetResult& r) {
  std::string out;
  for (const auto& f : r.findings) out += f.where.to_string() + ": " + f.error.to_string() + "\n";
  return out;
}

const std::string kVolume =
    "            volumes:\n"
    "            - name: config\n"
    "              configMap:\n"
    "                name: cm\n"
    "                defaultMode: ";

}  // namespace

TEST_CASE("check denies defaultMode 0644 becoming 644, at the line of defaultMode",
          "[cli][fidelity]") {
  const auto r =
      check_one(manifest("1", "", kVolume + "0644\n"), manifest("1", "", kVolume + "644\n"));
  CHECK_FALSE(r.allowed);
  CHECK(findings(r) ==
        "new.yaml:17:17: spec.replicatedJobs[0].template.spec.template.spec.volumes[0].configMap."
        "defaultMode: Invalid value: 644: field is immutable\n");
}

TEST_CASE("check allows what the cluster reads as unchanged and reports scales as it stores them",
          "[cli][fidelity]") {
  struct Row {
    std::string name, old_text, new_text, warning;
  };
  const std::vector<Row> rows = {
      {"stdin yes to true", manifest("1", "              stdin: yes\n"),
       manifest("1", "              stdin: true\n"), ""},
      {"defaultMode 1_000 to 1000", manifest("1", "", kVolume + "1_000\n"),
       manifest("1", "", kVolume + "1000\n"), ""},
      {"cpu 1 to \"1\"", manifest("1", "              resources: {limits: {cpu: 1}}\n"),
       manifest("1", "              resources: {limits: {cpu: \"1\"}}\n"), ""},
      {"replicas 3.0", manifest("1", ""), manifest("3.0", ""),
       "replicatedJob \"w\" scaled up from 1 to 3: the JobSet controller will create Jobs js-w-1, "
       "js-w-2"},
      {"replicas 010 is 8", manifest("4", ""), manifest("010", ""),
       "replicatedJob \"w\" scaled up from 4 to 8: the JobSet controller will create Jobs js-w-4 "
       "... js-w-7 (4 Jobs)"},
  };
  for (const auto& row : rows) {
    DYNAMIC_SECTION(row.name) {
      const auto r = check_one(row.old_text, row.new_text);
      CHECK(r.allowed);
      CHECK(findings(r).empty());
      // A scale warns twice: what the controller does, then the replica counts left stale.
      REQUIRE(r.warnings.size() == (row.warning.empty() ? 0U : 2U));
      if (!row.warning.empty()) CHECK(r.warnings[0] == row.warning);
    }
  }
  const auto cpu = check_one(manifest("1", "              resources: {limits: {cpu: 010}}\n"),
                             manifest("1", "              resources: {limits: {cpu: 10}}\n"));
  CHECK_FALSE(cpu.allowed);
}

TEST_CASE("An unknown field is refused at its line with Strict, pruned with Warn and Ignore",
          "[cli][fidelity]") {
  const std::string old_text = manifest("1", "");
  const std::string new_text = manifest("1", "              foo: bar\n");
  const auto strict = check_one(old_text, new_text);
  CHECK_FALSE(strict.allowed);
  // kubectl apply of an existing object sends a merge patch; kube-apiserver v1.37.2 answered
  // `The request is invalid: patch: Invalid value: "<the patched object>": strict decoding
  // error: ...` (apiserver pkg/endpoints/handlers/patch.go, applyPatchToCurrentObject).
  CHECK(
      strict.message ==
      R"(The request is invalid: patch: Invalid value: "{...}": strict decoding error: unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo")");
  CHECK(findings(strict) ==
        R"(new.yaml:16:15: patch: Invalid value: "{...}": strict decoding error: unknown field )"
        "\"spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo\"\n");
  // A create: `JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding error:
  // ...` (handlers/rest.go, transformDecodeError), as kube-apiserver v1.37.2 answered it.
  const auto created = check_one("", new_text);
  CHECK_FALSE(created.allowed);
  CHECK(
      created.message ==
      R"(JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding error: unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo")");
  CHECK(findings(created) ==
        "new.yaml:16:15: spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo: "
        R"(Forbidden: JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding )"
        "error: unknown field "
        "\"spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo\"\n");

  const auto warn = check_one(old_text, new_text, cli::FieldValidation::kWarn);
  CHECK(warn.allowed);
  CHECK(
      warn.warnings ==
      std::vector<std::string>{
          R"(unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo")"});

  const auto ignore = check_one(old_text, new_text, cli::FieldValidation::kIgnore);
  CHECK(ignore.allowed);
  CHECK(ignore.warnings.empty());

  // Pruned on both sides, a field the CRD does not keep never counts as a change.
  const auto meta_old = manifest("1", "");
  std::string meta_new = meta_old;
  meta_new.replace(meta_new.find("    template:\n"), 14,
                   "    template:\n      metadata:\n        generateName: x-\n");
  CHECK(check_one(meta_old, meta_new, cli::FieldValidation::kIgnore).allowed);
  CHECK_FALSE(check_one(meta_old, meta_new).allowed);
}

TEST_CASE("kubectl's field validation names are parsed exactly", "[cli][fidelity]") {
  CHECK(cli::parse_field_validation("Strict") == cli::FieldValidation::kStrict);
  CHECK(cli::parse_field_validation("Warn") == cli::FieldValidation::kWarn);
  CHECK(cli::parse_field_validation("Ignore") == cli::FieldValidation::kIgnore);
  CHECK_FALSE(cli::parse_field_validation("strict").has_value());
}

// On UPDATE the API server validates the JobSet against the CRD before any webhook: a quantity
// string outside the CRD's pattern is refused at its field (kube-openapi's FailedPattern), unless
// it is unchanged from the old object, which validation ratcheting keeps (apiextensions-apiserver
// pkg/apiserver/validation/ratcheting.go: errors of a value DeepEqual to its correlated old value
// become warnings).
TEST_CASE("check refuses a quantity outside the CRD's pattern at its line, unless unchanged",
          "[cli][fidelity]") {
  const std::string pattern =
      R"('^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$')";
  // As kube-apiserver v1.37.2 writes it: the map key as a field.
  const std::string cpu =
      "spec.replicatedJobs[0].template.spec.template.spec.containers[0]."
      "resources.limits.cpu";
  const auto limits = [](const std::string& value) {
    return "              resources: {limits: {cpu: " + value + "}}\n";
  };
  const auto changed = check_one(manifest("1", limits("1")), manifest("1", limits("abc")));
  CHECK_FALSE(changed.allowed);
  CHECK(changed.message == "JobSet.jobset.x-k8s.io \"js\" is invalid: " + cpu +
                               ": Invalid value: \"abc\": " + cpu + " in body should match " +
                               pattern);
  CHECK(findings(changed) == "new.yaml:16:36: " + cpu + ": Invalid value: \"abc\": " + cpu +
                                 " in body should match " + pattern + "\n");

  // 1.2.3 is not compared as text with 1: it never reaches the webhook.
  const auto dotted = check_one(manifest("1", limits("1")), manifest("1", limits("1.2.3")));
  CHECK(dotted.findings.size() == 1);
  CHECK(dotted.findings[0].error.detail == cpu + " in body should match " + pattern);

  // Unchanged: ratcheted, so the scale goes through with its warning.
  const auto unchanged = check_one(manifest("1", limits("abc")), manifest("2", limits("abc")));
  CHECK(unchanged.allowed);
  CHECK(unchanged.warnings.size() == 2);  // the scale, then the replica counts left stale

  // A container the old object does not have correlates with nothing: refused.
  std::string two = manifest("1", "");
  two +=
      "            - name: side\n"
      "              image: bash:5.2\n" +
      limits("abc");
  const auto added = check_one(manifest("1", ""), two);
  CHECK_FALSE(added.allowed);
  REQUIRE(added.findings.size() == 1);
  CHECK(added.findings[0].error.field ==
        "spec.replicatedJobs[0].template.spec.template.spec.containers[1].resources.limits.cpu");
}

// "1e1.5" matches the CRD's pattern, and upstream's decoder refuses it; before, check compared it
// as text and called it a change of an immutable field (what our webhook answered on the real API
// server). Now it is refused as undecodable, at its line, in ParseQuantity's words.
TEST_CASE("check refuses a quantity upstream cannot decode, even where text equality would pass",
          "[cli][fidelity]") {
  const auto limits = [](const std::string& value) {
    return "              resources: {limits: {cpu: \"" + value + "\"}}\n";
  };
  const std::string want =
      R"(new.yaml:16:36: spec.replicatedJobs[0].template.spec.template.spec.containers[0].)"
      R"(resources.limits[cpu]: Invalid value: "1e1.5": quantities must match the regular )"
      R"(expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')";
  const auto changed = check_one(manifest("1", limits("100m")), manifest("1", limits("1e1.5")));
  CHECK_FALSE(changed.allowed);
  CHECK(findings(changed) == want + "\n");
  const auto same = check_one(manifest("1", limits("1e1.5")), manifest("2", limits("1e1.5")));
  CHECK_FALSE(same.allowed);
  CHECK(findings(same) == want + "\n");
  CHECK_FALSE(check_one("", manifest("1", limits("1e100000000000000000000"))).allowed);
}

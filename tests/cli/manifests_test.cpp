#include "cli/manifests.h"

#include <catch2/catch.hpp>

#include "support/files.h"

namespace cli = jobset_webhook::cli;
using jobset_webhook::testing::ScratchDir;

namespace {

const std::string kJobSet = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
  labels:
    app.kubernetes.io/name: demo
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              image: bash:5.1
)";

cli::Manifests parsed(const std::string& text, const std::string& file = "m.yaml") {
  auto m = cli::parse_manifests(text, file);
  INFO((m.ok() ? "" : m.failure().message));
  REQUIRE(m.ok());
  return std::move(m).value();
}

std::string failure_of(const std::string& text) {
  const auto m = cli::parse_manifests(text, "bad.yaml");
  REQUIRE_FALSE(m.ok());
  return m.failure().message;
}

}  // namespace

TEST_CASE("Field-error paths become JSON pointer tokens", "[cli][manifests]") {
  struct Case {
    std::string path;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"spec.replicatedJobs[0].template.spec.template.spec.containers[1].image",
       {"spec", "replicatedJobs", "0", "template", "spec", "template", "spec", "containers", "1",
        "image"}},
      {"metadata.labels[app]", {"metadata", "labels", "app"}},
      {"metadata.labels[app.kubernetes.io/name]", {"metadata", "labels", "app.kubernetes.io/name"}},
      {"spec.nodeSelector[a[b]].x", {"spec", "nodeSelector", "a[b]", "x"}},
      {"spec.volumeClaimPolicies[0].template[1].name",
       {"spec", "volumeClaimPolicies", "0", "template", "1", "name"}},
      {"spec", {"spec"}},
      {"<nil>", {}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.path) { CHECK(cli::field_path_tokens(c.path) == c.want); }
  }
}

TEST_CASE("A finding is located at its field, or at the nearest ancestor written out",
          "[cli][manifests]") {
  const auto m = parsed(kJobSet);
  REQUIRE(m.jobsets.size() == 1);
  const auto& js = m.jobsets[0];
  struct Case {
    std::string path;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"spec.replicatedJobs[0].template.spec.template.spec.containers[0].image", "m.yaml:16:15"},
      {"spec.replicatedJobs[0].template.spec.template.spec.containers[0]", "m.yaml:15:15"},
      {"metadata.labels[app.kubernetes.io/name]", "m.yaml:6:5"},
      // Not written out: a default fills it; the nearest ancestor is.
      {"spec.replicatedJobs[0].replicas", "m.yaml:9:5"},
      {"spec.replicatedJobs[0].template.spec.completionMode", "m.yaml:11:7"},
      {"spec.failurePolicy", "m.yaml:7:1"},
      {"spec.replicatedJobs", "m.yaml:8:3"},
      {"<nil>", "m.yaml:1:1"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.path) { CHECK(js.locate(c.path).to_string() == c.want); }
  }
  CHECK(js.display_name() == "default/js");
}

TEST_CASE("Multi-document files keep JobSets, and skip and count other kinds", "[cli][manifests]") {
  const auto m = parsed(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n---\n" + kJobSet +
      "---\napiVersion: jobset.x-k8s.io/v1alpha1\nkind: JobSet\nmetadata:\n  name: old-api\n");
  REQUIRE(m.jobsets.size() == 1);
  CHECK(m.jobsets[0].where().to_string() == "m.yaml:6:1");
  CHECK(m.jobsets[0].locate("spec.replicatedJobs[0].name").to_string() == "m.yaml:14:5");
  REQUIRE(m.skipped.size() == 2);
  CHECK(m.skipped[0].kind == "ConfigMap");
  CHECK(m.skipped[0].name == "cm");
  CHECK(m.skipped[0].where.to_string() == "m.yaml:1:1");
  CHECK(m.skipped[1].api_version == "jobset.x-k8s.io/v1alpha1");
}

TEST_CASE("A List counts as its items, each located in the file", "[cli][manifests]") {
  // What `kubectl get jobsets,configmaps -o yaml` prints.
  const std::string list = R"(apiVersion: v1
kind: List
items:
- apiVersion: jobset.x-k8s.io/v1alpha2
  kind: JobSet
  metadata:
    name: a
    namespace: team
  spec:
    replicatedJobs:
    - name: w
      replicas: 2
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
metadata:
  resourceVersion: ""
)";
  const auto m = parsed(list);
  REQUIRE(m.jobsets.size() == 1);
  CHECK(m.jobsets[0].display_name() == "team/a");
  CHECK(m.jobsets[0].where().to_string() == "m.yaml:4:3");
  CHECK(m.jobsets[0].locate("spec.replicatedJobs[0].replicas").to_string() == "m.yaml:12:7");
  REQUIRE(m.skipped.size() == 1);
  CHECK(m.skipped[0].where.to_string() == "m.yaml:13:3");
  // A typed list (JobSetList) and JSON read the same way.
  const auto json = parsed(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSetList","items":[
{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"b"}}]})",
                           "l.json");
  REQUIRE(json.jobsets.size() == 1);
  CHECK(json.jobsets[0].where().to_string() == "l.json:2:1");
}

TEST_CASE("Documents that cannot be Kubernetes objects are failures naming their place",
          "[cli][manifests]") {
  struct Case {
    std::string name;
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"a scalar document", "hello\n",
       "bad.yaml:1:1: a document must be a Kubernetes object (a mapping), got string"},
      {"a list document", "- a\n",
       "bad.yaml:1:1: a document must be a Kubernetes object (a mapping), got array"},
      {"no kind", "apiVersion: v1\nmetadata: {}\n",
       "bad.yaml:1:1: not a Kubernetes object: kind is missing or not a string"},
      {"no apiVersion", "kind: JobSet\n",
       "bad.yaml:1:1: not a Kubernetes object: apiVersion is missing or not a string"},
      {"malformed YAML", "kind: JobSet\nspec: [1,\n",
       "bad.yaml:3:1: end of sequence flow not found"},
      {"a JobSet without metadata", "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n",
       "bad.yaml:1:1: JobSet has no metadata mapping"},
      {"a JobSet without a name",
       "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  labels: {}\n",
       "bad.yaml:3:1: JobSet has neither metadata.name nor metadata.generateName"},
      {"a name that is not a string",
       "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: [a]\n",
       "bad.yaml:4:3: JobSet metadata.name must be a string"},
      {"a spec that is not a mapping",
       "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: a\nspec: [1]\n",
       "bad.yaml:5:1: JobSet spec must be a mapping"},
      {"replicatedJobs that are not a list",
       "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: a\nspec:\n  "
       "replicatedJobs: {}\n",
       "bad.yaml:6:3: JobSet spec.replicatedJobs must be a list"},
      {"a replicatedJob that is not a mapping",
       "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: a\nspec:\n  "
       "replicatedJobs:\n  - name: w\n  - 3\n",
       "bad.yaml:8:5: JobSet spec.replicatedJobs[1] must be a mapping"},
      {"List items that are not a list", "apiVersion: v1\nkind: List\nitems: 3\n",
       "bad.yaml:3:1: items of a List must be a list"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(failure_of(c.text) == c.want); }
  }
}

TEST_CASE("Two JobSets with one namespace and name in one file are a failure naming both",
          "[cli][manifests]") {
  auto m = parsed(kJobSet + "---\n" + kJobSet);
  const auto duplicate = cli::find_duplicate(m, "--new");
  REQUIRE(duplicate);
  CHECK(duplicate->message ==
        "m.yaml:18:1: --new holds JobSet default/js twice in one file (first at m.yaml:1:1); "
        "applying the file keeps only the last");
  // In two files (one per cluster), it is no failure.
  auto two_files = parsed(kJobSet);
  auto other_file = cli::parse_manifests(kJobSet, "other.yaml");
  REQUIRE(other_file.ok());
  two_files.jobsets.push_back(other_file.value().jobsets.at(0));
  CHECK_FALSE(cli::find_duplicate(two_files, "--new"));
  // Another namespace is another JobSet.
  auto other = parsed(kJobSet + "---\n" + kJobSet.substr(0, kJobSet.find("  labels")) +
                      "  namespace: prod\n");
  CHECK_FALSE(cli::find_duplicate(other, "--new"));
}

TEST_CASE("A directory is read recursively, manifest extensions only, in sorted order",
          "[cli][manifests]") {
  ScratchDir dir;
  const auto named = [](const std::string& name) {
    return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " + name + "\n";
  };
  dir.write("b.yaml", named("b"));
  dir.write("a/z.yml", named("z"));
  dir.write("a/y.json",
            R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"y"}})");
  dir.write("c.txt", "not: read\n");
  dir.write("README.md", "# not read\n");
  const auto m = cli::load_manifests({dir.path()});
  REQUIRE(m.ok());
  std::vector<std::string> names;
  for (const auto& js : m.value().jobsets) names.push_back(js.name);
  CHECK(names == std::vector<std::string>{"y", "z", "b"});
  CHECK(m.value().jobsets[0].file == dir.path() + "/a/y.json");
}

TEST_CASE("An unreadable path is a failure that names it", "[cli][manifests]") {
  const auto missing = cli::load_manifests({"/nonexistent/dir"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.failure().message == "/nonexistent/dir: No such file or directory");
  const auto not_dir = cli::load_manifests({"/etc/hostname/x.yaml"});
  REQUIRE_FALSE(not_dir.ok());
  CHECK(not_dir.failure().message == "/etc/hostname/x.yaml: Not a directory");
}

#include "jobset_webhook/validation/unknown_fields.h"

#include <catch2/catch.hpp>

#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::testing::Parsed;

namespace {

// A JobSet with one ReplicatedJob; extra JSON members spliced into the places named.
std::string jobset(const std::string& root = "", const std::string& rj = "",
                   const std::string& job_meta = "", const std::string& container = "",
                   const std::string& pod_spec = "", const std::string& status = "",
                   const std::string& spec = "") {
  return R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",)" + root +
         R"("metadata":{"name":"js","generateName":"x"},"status":{"restarts":1,)"
         R"("replicatedJobsStatus":[{"name":"w","ready":1)" +
         status + R"(}]},"spec":{)" + spec + R"("replicatedJobs":[{"name":"w",)" + rj +
         R"("template":{"metadata":{"labels":{"a":"b"})" + job_meta +
         R"(},"spec":{"template":{"spec":{)" + pod_spec +
         R"("containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":1}})" + container +
         R"(}]}}}}}]}})";
}

std::string with_root_metadata(const std::string& fields) {
  std::string text = jobset(R"("aaa":1,)", "", "", R"(,"foo":1)");
  const std::string at = R"("generateName":"x")";
  return text.replace(text.find(at), at.size(), at + fields);
}

std::string found(const std::string& text) {
  const Parsed js(text);
  std::string out;
  for (const auto& f : v::unknown_fields(js)) out += (out.empty() ? "" : ", ") + f.path;
  return out;
}

}  // namespace

// pruning.PruneWithOptions (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go):
// a key that neither Properties nor AdditionalProperties declares is recorded at its path (keys
// joined by ".", indices in brackets) and the paths are sorted; metadata at the root is left to
// the ObjectMeta code (below).
TEST_CASE("Unknown fields are found at the API server's paths, sorted", "[validation][unknown]") {
  struct Row {
    std::string name, json, want;
  };
  const std::vector<Row> rows = {
      {"nothing unknown", jobset(), ""},
      {"a container field", jobset("", "", "", R"(,"foo":"bar")"),
       "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo"},
      {"embedded ObjectMeta keeps five fields", jobset("", "", R"(,"generateName":"g","uid":"u")"),
       "spec.replicatedJobs[0].template.metadata.generateName, "
       "spec.replicatedJobs[0].template.metadata.uid"},
      {"a ReplicatedJob field", jobset("", R"("replica":3,)"), "spec.replicatedJobs[0].replica"},
      {"a root field", jobset(R"("extra":{"x":1},)"), "extra"},
      {"map keys are declared", jobset("", "", "", "", R"("nodeSelector":{"any.key/x":"v"},)"), ""},
      {"under a map value", jobset("", "", "", "", R"("overhead":{"cpu":"1"},)"), ""},
      {"sorted by path",
       jobset("", R"("zz":1,)", "", R"(,"foo":1)", R"("hostNetwork":true,"bogus":1,)"),
       "spec.replicatedJobs[0].template.spec.template.spec.bogus, "
       "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo, "
       "spec.replicatedJobs[0].zz"},
  };
  for (const auto& r : rows) {
    DYNAMIC_SECTION(r.name) { CHECK(found(r.json) == r.want); }
  }
}

// The decoder prunes status too (the status subresource's strategy drops it only afterwards), and
// the PVC templates of volumeClaimPolicies as the CRD declares a PersistentVolumeClaim, with an
// embedded ObjectMeta of five fields. The last two rows are what kube-apiserver v1.37.2 answered
// to `kubectl create` of the same JobSets (docs/ci-gating.md).
TEST_CASE(
    "Unknown fields of status and of the PVC templates are found as the API server finds them",
    "[validation][unknown]") {
  const auto with_pvc = [](const std::string& meta, const std::string& spec,
                           const std::string& status, const std::string& root) {
    return jobset("", "", "", "", "", "",
                  R"("volumeClaimPolicies":[{"templates":[{"metadata":{"name":"cache",)"
                  R"("labels":{"any.key/x":"v"})" +
                      meta +
                      R"(},"spec":{"accessModes":["ReadWriteOnce"],)"
                      R"("resources":{"requests":{"storage":"1Gi"}})" +
                      spec + R"(},"status":{"phase":"Bound","capacity":{"storage":"1Gi"})" +
                      status + "}" + root + "}]}],");
  };
  struct Row {
    std::string name, json, want;
  };
  const std::vector<Row> rows = {
      {"status as declared", jobset(), ""},
      {"a replicatedJobsStatus field", jobset("", "", "", "", "", R"(,"bar":2)"),
       "status.replicatedJobsStatus[0].bar"},
      {"PVC templates as declared", with_pvc("", "", "", ""), ""},
      {"a PVC template's embedded metadata keeps five fields",
       with_pvc(R"(,"generateName":"g")", "", "", ""),
       "spec.volumeClaimPolicies[0].templates[0].metadata.generateName"},
      {"everywhere in a PVC template, sorted",
       with_pvc(R"(,"bar":2)", R"(,"foo":1)", R"(,"baz":3)", R"(,"qux":4)"),
       "spec.volumeClaimPolicies[0].templates[0].metadata.bar, "
       "spec.volumeClaimPolicies[0].templates[0].qux, "
       "spec.volumeClaimPolicies[0].templates[0].spec.foo, "
       "spec.volumeClaimPolicies[0].templates[0].status.baz"},
  };
  for (const auto& r : rows) {
    DYNAMIC_SECTION(r.name) { CHECK(found(r.json) == r.want); }
  }
  const Parsed js(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",)"
                  R"("metadata":{"name":"js"},"status":{"foo":1,"restarts":0}})");
  const auto fields = v::unknown_fields(js);
  REQUIRE(fields.size() == 1);
  CHECK(v::unknown_field_message(fields[0]) == R"(unknown field "status.foo")");
}

// The root metadata is decoded strictly as a whole metav1.ObjectMeta
// (objectmeta.GetObjectMetaWithOptions with ReturnUnknownFieldPaths, apiextensions-apiserver
// v0.37.2), and unstructuredSchemaCoercer.apply lists its unknown fields before the pruned ones.
TEST_CASE("Unknown fields of the root metadata come first, as a whole ObjectMeta's",
          "[validation][unknown]") {
  CHECK(found(with_root_metadata(R"(,"uid":"u","labels":{"any.key/x":"v"})")) ==
        "aaa, spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo");
  CHECK(
      found(with_root_metadata(
          R"(,"foo":1,"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","bogus":2}])")) ==
      "metadata.foo, metadata.ownerReferences[0].bogus, aaa, "
      "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo");
}

TEST_CASE("Unknown fields carry their JSON pointer and the API server's message",
          "[validation][unknown]") {
  const Parsed js(jobset("", "", "", R"(,"foo":"bar")"));
  const auto fields = v::unknown_fields(js);
  REQUIRE(fields.size() == 1);
  CHECK(fields[0].tokens == std::vector<std::string>{"spec", "replicatedJobs", "0", "template",
                                                     "spec", "template", "spec", "containers", "0",
                                                     "foo"});
  CHECK(v::unknown_field_message(fields[0]) ==
        R"(unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo")");
}

#include "jobset_webhook/validation/unknown_fields.h"

#include <catch2/catch.hpp>

#include "support/jobset_builder.h"
#include "support/json_edit.h"
#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::with;

namespace {

const std::string kRjob = "/spec/replicatedJobs/0";
const std::string kPodSpec = kRjob + "/template/spec/template/spec";
const std::string kContainer = kPodSpec + "/containers/0";

// A JobSet with one ReplicatedJob, its status, and only declared fields.
Json jobset() {
  return MakeJobSet("js")
      .GenerateName("x")
      .Status({{"restarts", 1}, {"replicatedJobsStatus", {{{"name", "w"}, {"ready", 1}}}}})
      .ReplicatedJob(MakeReplicatedJob("w")
                         .Unset("/replicas")
                         .Set("/template/metadata/labels", {{"a", "b"}})
                         .Container("c", "i")
                         .Set("/template/spec/template/spec/containers/0/resources",
                              {{"limits", {{"cpu", 1}}}}))
      .Obj();
}

// The JobSet with two unknown fields, at the root and in a container, and these in its metadata.
Json with_root_metadata(const Json& fields) {
  Json js = with(with(jobset(), "/aaa", 1), kContainer + "/foo", 1);
  js["metadata"].update(fields);
  return js;
}

std::string found(const Json& json) {
  const Parsed js(json);
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
    std::string name;
    Json json;
    std::string want;
  };
  const std::string job_meta = kRjob + "/template/metadata";
  const std::vector<Row> rows = {
      {"nothing unknown", jobset(), ""},
      {"a container field", with(jobset(), kContainer + "/foo", "bar"),
       "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo"},
      {"embedded ObjectMeta keeps five fields",
       with(with(jobset(), job_meta + "/generateName", "g"), job_meta + "/uid", "u"),
       "spec.replicatedJobs[0].template.metadata.generateName, "
       "spec.replicatedJobs[0].template.metadata.uid"},
      {"a ReplicatedJob field", with(jobset(), kRjob + "/replica", 3),
       "spec.replicatedJobs[0].replica"},
      {"a root field", with(jobset(), "/extra", {{"x", 1}}), "extra"},
      {"map keys are declared", with(jobset(), kPodSpec + "/nodeSelector", {{"any.key/x", "v"}}),
       ""},
      {"under a map value", with(jobset(), kPodSpec + "/overhead", {{"cpu", "1"}}), ""},
      {"sorted by path",
       with(with(with(with(jobset(), kRjob + "/zz", 1), kContainer + "/foo", 1),
                 kPodSpec + "/hostNetwork", true),
            kPodSpec + "/bogus", 1),
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
  // A declared PVC template, with these members added to its metadata, spec, status and itself.
  const auto with_pvc = [](const Json& meta, const Json& spec, const Json& status,
                           const Json& root) {
    Json pvc = {
        {"metadata", {{"name", "cache"}, {"labels", {{"any.key/x", "v"}}}}},
        {"spec",
         {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}},
        {"status", {{"phase", "Bound"}, {"capacity", {{"storage", "1Gi"}}}}}};
    pvc["metadata"].update(meta);
    pvc["spec"].update(spec);
    pvc["status"].update(status);
    pvc.update(root);
    return with(jobset(), "/spec/volumeClaimPolicies",
                Json::array({Json{{"templates", Json::array({pvc})}}}));
  };
  const Json none = Json::object();
  struct Row {
    std::string name;
    Json json;
    std::string want;
  };
  const std::vector<Row> rows = {
      {"status as declared", jobset(), ""},
      {"a replicatedJobsStatus field", with(jobset(), "/status/replicatedJobsStatus/0/bar", 2),
       "status.replicatedJobsStatus[0].bar"},
      {"PVC templates as declared", with_pvc(none, none, none, none), ""},
      {"a PVC template's embedded metadata keeps five fields",
       with_pvc({{"generateName", "g"}}, none, none, none),
       "spec.volumeClaimPolicies[0].templates[0].metadata.generateName"},
      {"everywhere in a PVC template, sorted",
       with_pvc({{"bar", 2}}, {{"foo", 1}}, {{"baz", 3}}, {{"qux", 4}}),
       "spec.volumeClaimPolicies[0].templates[0].metadata.bar, "
       "spec.volumeClaimPolicies[0].templates[0].qux, "
       "spec.volumeClaimPolicies[0].templates[0].spec.foo, "
       "spec.volumeClaimPolicies[0].templates[0].status.baz"},
  };
  for (const auto& r : rows) {
    DYNAMIC_SECTION(r.name) { CHECK(found(r.json) == r.want); }
  }
  const Parsed js(MakeJobSet("js").Unset("/spec").Status({{"foo", 1}, {"restarts", 0}}).Obj());
  const auto fields = v::unknown_fields(js);
  REQUIRE(fields.size() == 1);
  CHECK(v::unknown_field_message(fields[0]) == R"(unknown field "status.foo")");
}

// The root metadata is decoded strictly as a whole metav1.ObjectMeta
// (objectmeta.GetObjectMetaWithOptions with ReturnUnknownFieldPaths, apiextensions-apiserver
// v0.37.2), and unstructuredSchemaCoercer.apply lists its unknown fields before the pruned ones.
TEST_CASE("Unknown fields of the root metadata come first, as a whole ObjectMeta's",
          "[validation][unknown]") {
  CHECK(found(with_root_metadata({{"uid", "u"}, {"labels", {{"any.key/x", "v"}}}})) ==
        "aaa, spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo");
  CHECK(found(with_root_metadata({{"foo", 1},
                                  {"ownerReferences",
                                   {{{"apiVersion", "v1"},
                                     {"kind", "K"},
                                     {"name", "n"},
                                     {"uid", "u"},
                                     {"bogus", 2}}}}})) ==
        "metadata.foo, metadata.ownerReferences[0].bogus, aaa, "
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo");
}

TEST_CASE("Unknown fields carry their JSON pointer and the API server's message",
          "[validation][unknown]") {
  const Parsed js(with(jobset(), kContainer + "/foo", "bar"));
  const auto fields = v::unknown_fields(js);
  REQUIRE(fields.size() == 1);
  CHECK(fields[0].tokens == std::vector<std::string>{"spec", "replicatedJobs", "0", "template",
                                                     "spec", "template", "spec", "containers", "0",
                                                     "foo"});
  CHECK(v::unknown_field_message(fields[0]) ==
        R"(unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo")");
}

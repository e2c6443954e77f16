#include "jobset_webhook/apiserver/apiserver.h"

#include <catch2/catch.hpp>

#include "cli/manifests.h"
#include "support/admission.h"
#include "support/review_builder.h"
#include "support/files.h"

namespace cli = jobset_webhook::cli;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;

TEST_CASE("The CRD's schema defaults fill what is absent under objects that exist",
          "[cli][cluster_defaults]") {
  struct Case {
    std::string name;
    std::string input;
    std::string want;
  };
  // Written as text, not with the builders: partial objects, and where each default lands in the
  // key order (Json keeps insertion order, and == compares in order).
  const std::vector<Case> cases = {
      {"replicas and groupName of every replicatedJob",
       R"({"spec":{"replicatedJobs":[{"name":"a"},{"name":"b","replicas":3,"groupName":"g"}]}})",
       R"({"spec":{"replicatedJobs":[{"name":"a","groupName":"default","replicas":1},{"name":"b","replicas":3,"groupName":"g"}]}})"},
      {"null is defaulted like absent",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":null}]}})",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":1,"groupName":"default"}]}})"},
      {"an explicit zero is kept",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":0,"groupName":""}]}})",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":0,"groupName":""}]}})"},
      {"restartStrategy only inside a failurePolicy",
       R"({"spec":{"failurePolicy":{"maxRestarts":3}}})",
       R"({"spec":{"failurePolicy":{"maxRestarts":3,"restartStrategy":"Recreate"}}})"},
      {"no failurePolicy, no restartStrategy", R"({"spec":{}})", R"({"spec":{}})"},
      {"whenDeleted only inside a retentionPolicy",
       R"({"spec":{"volumeClaimPolicies":[{"templates":[]},{"retentionPolicy":{}}]}})",
       R"({"spec":{"volumeClaimPolicies":[{"templates":[]},{"retentionPolicy":{"whenDeleted":"Delete"}}]}})"},
      {"port protocols of every kind of container",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":1,"groupName":"default","template":{"spec":{"template":{"spec":{
         "containers":[{"name":"c","ports":[{"containerPort":80},{"containerPort":53,"protocol":"UDP"}]}],
         "initContainers":[{"name":"i","ports":[{"containerPort":81}]}]}}}}}]}})",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":1,"groupName":"default","template":{"spec":{"template":{"spec":{
         "containers":[{"name":"c","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":53,"protocol":"UDP"}]}],
         "initContainers":[{"name":"i","ports":[{"containerPort":81,"protocol":"TCP"}]}]}}}}}]}})"},
      {"references and volume sources of the pod template",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":1,"groupName":"default","template":{"spec":{"template":{"spec":{
         "containers":[{"name":"c","env":[{"name":"E","valueFrom":{"configMapKeyRef":{"key":"k"}}}]}],
         "volumes":[{"name":"v","rbd":{"image":"i","monitors":["m"]}}]}}}}}]}})",
       R"({"spec":{"replicatedJobs":[{"name":"a","replicas":1,"groupName":"default","template":{"spec":{"template":{"spec":{
         "containers":[{"name":"c","env":[{"name":"E","valueFrom":{"configMapKeyRef":{"key":"k","name":""}}}]}],
         "volumes":[{"name":"v","rbd":{"image":"i","monitors":["m"],"keyring":"/etc/ceph/keyring","pool":"rbd","user":"admin"}}]}}}}}]}})"},
      {"a spec that is not an object is left alone", R"({"spec":[1]})", R"({"spec":[1]})"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Json js = Json::parse(c.input);
      jobset_webhook::apiserver::apply_crd_defaults(js);
      CHECK(js == Json::parse(c.want));
    }
  }
}

namespace {

// What cluster_defaults stores for every JobSet under root, against the schema defaults and then
// the server's mutating patch.
void stored_is_schema_then_mutating_defaults(const std::string& root, std::size_t min_jobsets) {
  std::size_t jobsets = 0;
  for (const auto& file : jobset_webhook::testing::yaml_files(root)) {
    const auto manifests = cli::load_manifests({file});
    REQUIRE(manifests.ok());
    for (const auto& js : manifests.value().jobsets) {
      DYNAMIC_SECTION(file << " " << js.display_name()) {
        Json want = js.object;
        jobset_webhook::apiserver::apply_crd_defaults(want);
        const auto response = jobset_webhook::testing::server_response(
            jobset_webhook::testing::MakeReview().Create(want).Obj(), Policy{}, Hook::kMutating);
        REQUIRE(response.at("allowed") == true);
        if (response.contains("patch")) {
          want = want.patch(Json::parse(
              jobset_webhook::testing::base64_decode(response.at("patch").get<std::string>())));
          jobset_webhook::apiserver::apply_crd_defaults(want);
        }
        const auto stored = jobset_webhook::apiserver::create_defaults(js.object);
        REQUIRE(stored.ok());
        CHECK(stored.value() == want);
      }
      ++jobsets;
    }
  }
  CHECK(jobsets >= min_jobsets);
}

}  // namespace

TEST_CASE("What the cluster stores is the schema defaults then the server's mutating patch",
          "[cli][cluster_defaults]") {
  stored_is_schema_then_mutating_defaults(jobset_webhook::testing::kFixtureJobSets, 6);
}

TEST_CASE("What the cluster stores of an upstream example is its schema defaults then the patch",
          "[cli][cluster_defaults][upstream_examples]") {
  stored_is_schema_then_mutating_defaults(jobset_webhook::testing::kUpstreamExamples, 20);
}

// apiserver::apply_crd_defaults: the CRD's schema defaults, as the API server applies them when it
// decodes an object.

#include "jobset_webhook/apiserver/apiserver.h"

#include <catch2/catch.hpp>

using jobset_webhook::Json;

TEST_CASE("The CRD's schema defaults fill what is absent under objects that exist",
          "[apiserver][crd_defaults]") {
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

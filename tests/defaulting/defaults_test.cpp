// Upstream's TestJobSetDefaulting (kubernetes-sigs/jobset v0.12.0) translated: each case pins the
// exact patch, and that applying it gives upstream's expected object.

#include "jobset_webhook/defaulting/defaults.h"

#include <catch2/catch.hpp>

#include "jobset_webhook/patch/json_patch.h"
#include "support/jobset_builder.h"
#include "support/json_edit.h"
#include "support/parsed.h"

namespace d = jobset_webhook::defaulting;
namespace patch = jobset_webhook::patch;
using jobset_webhook::Json;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::ReplicatedJobBuilder;
using jobset_webhook::testing::with;
using jobset_webhook::testing::without;

namespace {

const Json kPodTemplate = {
    {"spec",
     {{"restartPolicy", "Never"},
      {"containers", {{{"name", "test-container"}, {"image", "busybox:latest"}}}}}}};
const Json kSuccess = {{"operator", "All"}};
const Json kStartup = {{"startupPolicyOrder", "AnyOrder"}};
const Json kNetwork = {{"enableDNSHostnames", true}, {"publishNotReadyAddresses", true}};
const std::string kController = "jobset.sigs.k8s.io/jobset-controller";

// A ReplicatedJob without a name or replicas, as upstream's defaulting cases write it.
ReplicatedJobBuilder unnamed_rjob() {
  return MakeReplicatedJob("").Unset("/replicas").PodTemplate(kPodTemplate);
}

// A JobSet with upstream's standard defaults already set and an Indexed job.
Json defaulted() {
  return MakeJobSet("")
      .SuccessPolicy(kSuccess)
      .StartupPolicy("AnyOrder")
      .Network(kNetwork)
      .ReplicatedJob(unnamed_rjob().CompletionMode("Indexed"))
      .ManagedBy(kController)
      .Obj();
}

// Equality of JSON values whatever the key order (ordered_json compares in order).
bool same(const Json& a, const Json& b) {
  return nlohmann::json::parse(a.dump()) == nlohmann::json::parse(b.dump());
}

struct Case {
  std::string name;
  Json js;
  std::string want_patch;  // the patch as the webhook sends it (before base64)
  Json want;               // the object after the patch
};

void run_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed js(c.js);
      const Json ops = d::defaults_patch(js);
      CHECK(ops.dump() == c.want_patch);
      const auto applied = patch::apply(c.js, ops);
      REQUIRE(applied.ok());
      CHECK(same(applied.value(), c.want));
      // Defaulting what was defaulted changes nothing.
      CHECK(d::defaults_patch(Parsed(applied.value())).empty());
    }
  }
}

const std::string kCompletionMode = "/spec/replicatedJobs/0/template/spec/completionMode";
const std::string kRestartPolicy =
    "/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy";

}  // namespace

TEST_CASE("Upstream's defaulting cases, translated", "[defaulting]") {
  const Json no_mode =
      with(defaulted(), "/spec/replicatedJobs", Json::array({unnamed_rjob().Obj()}));
  const Json non_indexed =
      without(with(defaulted(), kCompletionMode, "NonIndexed"), "/spec/startupPolicy");
  const Json dns_unset = without(defaulted(), "/spec/network");
  const Json dns_false = with(with(defaulted(), "/spec/network", {{"enableDNSHostnames", false}}),
                              kCompletionMode, "NonIndexed");
  const Json publish_false =
      with(with(defaulted(), "/spec/network", {{"publishNotReadyAddresses", false}}),
           kCompletionMode, "NonIndexed");
  const Json publish_true =
      with(with(defaulted(), "/spec/network",
                {{"enableDNSHostnames", false}, {"publishNotReadyAddresses", true}}),
           kCompletionMode, "NonIndexed");
  const Json restart_unset = with(
      defaulted(), "/spec/replicatedJobs",
      {unnamed_rjob().PodTemplate({{"spec", Json::object()}}).CompletionMode("Indexed").Obj()});
  const Json restart_always =
      with(defaulted(), "/spec/replicatedJobs",
           Json::array({unnamed_rjob()
                            .PodTemplate({{"spec", {{"restartPolicy", "Always"}}}})
                            .CompletionMode("Indexed")
                            .Obj()}));
  const Json unnamed_rule = with(without(defaulted(), "/spec/startupPolicy"), "/spec/failurePolicy",
                                 {{"rules", {Json::object()}}});
  const Json two_rules = with(without(defaulted(), "/spec/startupPolicy"), "/spec/failurePolicy",
                              {{"rules", {{{"name", "ruleWithAName"}}, Json::object()}}});
  const Json claim = with(defaulted(), "/spec/volumeClaimPolicies",
                          {{{"templates", {{{"metadata", {{"name", "test-volume"}}}}}}}});
  run_cases({
      {"job completion mode is unset", no_mode,
       R"([{"op":"add","path":"/spec/replicatedJobs/0/template/spec/completionMode","value":"Indexed"}])",
       with(no_mode, kCompletionMode, "Indexed")},
      {"job completion mode is set to non-indexed", non_indexed,
       R"([{"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}}])",
       with(non_indexed, "/spec/startupPolicy", kStartup)},
      {"enableDNSHostnames is unset", dns_unset,
       R"([{"op":"add","path":"/spec/network","value":{"enableDNSHostnames":true,"publishNotReadyAddresses":true}}])",
       with(dns_unset, "/spec/network", kNetwork)},
      {"enableDNSHostnames is false", dns_false,
       R"([{"op":"add","path":"/spec/network/publishNotReadyAddresses","value":true}])",
       with(dns_false, "/spec/network/publishNotReadyAddresses", true)},
      {"PublishNotReadyNetworkAddresess is false", publish_false,
       R"([{"op":"add","path":"/spec/network/enableDNSHostnames","value":true}])",
       with(publish_false, "/spec/network/enableDNSHostnames", true)},
      {"PublishNotReadyNetworkAddresess is true", publish_true, "[]", publish_true},
      {"pod restart policy unset", restart_unset,
       R"([{"op":"add","path":"/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy","value":"OnFailure"}])",
       with(restart_unset, kRestartPolicy, "OnFailure")},
      {"pod restart policy set", restart_always, "[]", restart_always},
      {"success policy unset", without(restart_always, "/spec/successPolicy"),
       R"([{"op":"add","path":"/spec/successPolicy","value":{"operator":"All"}}])", restart_always},
      {"success policy operator set, replicatedJobNames unset",
       with(restart_always, "/spec/successPolicy", {{"operator", "Any"}}), "[]",
       with(restart_always, "/spec/successPolicy", {{"operator", "Any"}})},
      {"startup policy order InOrder set",
       with(restart_always, "/spec/startupPolicy", {{"startupPolicyOrder", "InOrder"}}), "[]",
       with(restart_always, "/spec/startupPolicy", {{"startupPolicyOrder", "InOrder"}})},
      {"managedBy field is left nil",
       without(without(defaulted(), "/spec/managedBy"), "/spec/startupPolicy"),
       R"([{"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}}])",
       without(defaulted(), "/spec/managedBy")},
      {"when provided, managedBy field is preserved",
       without(with(defaulted(), "/spec/managedBy", "other-controller"), "/spec/startupPolicy"),
       R"([{"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}}])",
       with(defaulted(), "/spec/managedBy", "other-controller")},
      {"failure policy rule name is defaulted when: there is one rule and it does not have a name",
       unnamed_rule,
       R"([{"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}},)"
       R"({"op":"add","path":"/spec/failurePolicy/rules/0/name","value":"failurePolicyRule0"}])",
       with(with(unnamed_rule, "/spec/startupPolicy", kStartup), "/spec/failurePolicy/rules/0/name",
            "failurePolicyRule0")},
      {"failure policy rule name is defaulted when: there are two rules, the first rule has a "
       "name, the second rule does "
       "not have a name",
       two_rules,
       R"([{"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}},)"
       R"({"op":"add","path":"/spec/failurePolicy/rules/1/name","value":"failurePolicyRule1"}])",
       with(with(two_rules, "/spec/startupPolicy", kStartup), "/spec/failurePolicy/rules/1/name",
            "failurePolicyRule1")},
      {"volumeClaimPolicy retentionPolicy is defaulted to Delete when nil", claim,
       R"([{"op":"add","path":"/spec/volumeClaimPolicies/0/retentionPolicy","value":{"whenDeleted":"Delete"}}])",
       with(claim, "/spec/volumeClaimPolicies/0/retentionPolicy", {{"whenDeleted", "Delete"}})},
  });
}

// Here and below the objects are written out, not built: what is missing (spec, template, pod
// spec) or of the wrong type is the point, and the builders always write a valid JobSet.
TEST_CASE("Missing parents are created in one operation per missing object", "[defaulting]") {
  const Json no_spec = {{"metadata", {{"name", "js"}}}};
  const Json bare_rjob = {{"spec", {{"replicatedJobs", {{{"name", "w"}}}}}}};
  const Json no_pod_spec = {
      {"spec",
       {{"replicatedJobs",
         {{{"name", "w"}, {"template", {{"spec", {{"completionMode", "Indexed"}}}}}}}}}}};
  run_cases({
      {"a JobSet without spec gets one spec", no_spec,
       R"([{"op":"add","path":"/spec","value":{"successPolicy":{"operator":"All"},"startupPolicy":{"startupPolicyOrder":"AnyOrder"},)"
       R"("network":{"enableDNSHostnames":true,"publishNotReadyAddresses":true}}}])",
       with(no_spec, "/spec",
            {{"successPolicy", kSuccess}, {"startupPolicy", kStartup}, {"network", kNetwork}})},
      {"a replicatedJob without template gets one template",
       bare_rjob,
       R"([{"op":"add","path":"/spec/successPolicy","value":{"operator":"All"}},)"
       R"({"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}},)"
       R"({"op":"add","path":"/spec/replicatedJobs/0/template","value":{"spec":{"completionMode":"Indexed","template":{"spec":{"restartPolicy":"OnFailure"}}}}},)"
       R"({"op":"add","path":"/spec/network","value":{"enableDNSHostnames":true,"publishNotReadyAddresses":true}}])",
       {{"spec",
         {{"replicatedJobs",
           {{{"name", "w"},
             {"template",
              {{"spec",
                {{"completionMode", "Indexed"},
                 {"template", {{"spec", {{"restartPolicy", "OnFailure"}}}}}}}}}}}},
          {"successPolicy", kSuccess},
          {"startupPolicy", kStartup},
          {"network", kNetwork}}}}},
      {"a job without pod spec gets one pod template", no_pod_spec,
       R"([{"op":"add","path":"/spec/successPolicy","value":{"operator":"All"}},)"
       R"({"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}},)"
       R"({"op":"add","path":"/spec/replicatedJobs/0/template/spec/template","value":{"spec":{"restartPolicy":"OnFailure"}}},)"
       R"({"op":"add","path":"/spec/network","value":{"enableDNSHostnames":true,"publishNotReadyAddresses":true}}])",
       with(with(with(with(no_pod_spec, "/spec/replicatedJobs/0/template/spec/template",
                           {{"spec", {{"restartPolicy", "OnFailure"}}}}),
                      "/spec/successPolicy", kSuccess),
                 "/spec/startupPolicy", kStartup),
            "/spec/network", kNetwork)},
  });
}

TEST_CASE("Present but empty values are replaced, as a diff would say", "[defaulting]") {
  const Json nulls =
      with(with(with(defaulted(), "/spec/successPolicy", nullptr), "/spec/network", nullptr),
           "/spec/failurePolicy", {{"rules", {{{"name", ""}}}}});
  const Json empty_restart = with(defaulted(), kRestartPolicy, "");
  run_cases({
      {"null policies and an empty rule name", nulls,
       R"([{"op":"replace","path":"/spec/successPolicy","value":{"operator":"All"}},)"
       R"({"op":"replace","path":"/spec/network","value":{"enableDNSHostnames":true,"publishNotReadyAddresses":true}},)"
       R"({"op":"replace","path":"/spec/failurePolicy/rules/0/name","value":"failurePolicyRule0"}])",
       with(with(with(nulls, "/spec/successPolicy", kSuccess), "/spec/network", kNetwork),
            "/spec/failurePolicy/rules/0/name", "failurePolicyRule0")},
      {"an empty restartPolicy", empty_restart,
       R"([{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy","value":"OnFailure"}])",
       with(empty_restart, kRestartPolicy, "OnFailure")},
  });
}

TEST_CASE("Values of the wrong type are left to validation", "[defaulting]") {
  const std::vector<std::string> inputs = {
      R"([])",
      R"({"spec":"x"})",
      R"({"spec":{"successPolicy":"x","startupPolicy":1,"network":[],"failurePolicy":"x","volumeClaimPolicies":"x","replicatedJobs":"x"}})",
      R"({"spec":{"successPolicy":{},"startupPolicy":{},"network":{"enableDNSHostnames":"x","publishNotReadyAddresses":0},)"
      R"("failurePolicy":{"rules":[1,{"name":3}]},"volumeClaimPolicies":[1,{"retentionPolicy":"x"}],)"
      R"("replicatedJobs":[1,null,{"template":"x"},{"template":{"spec":{"completionMode":5,"template":{"spec":{"restartPolicy":7}}}}}]}})",
  };
  for (const auto& input : inputs) {
    DYNAMIC_SECTION(input) { CHECK(d::defaults_patch(Parsed(input)).dump() == "[]"); }
  }
}

TEST_CASE("The CRD's own defaults fill what the API server fills", "[defaulting]") {
  const Json js = {
      {"spec",
       {{"replicatedJobs", {{{"name", "a"}}, {{"name", "b"}, {"groupName", "g"}, {"replicas", 3}}}},
        {"failurePolicy", Json::object()},
        {"volumeClaimPolicies", {Json::object(), {{"retentionPolicy", Json::object()}}}}}}};
  // In the schema's order: properties by name.
  CHECK(
      d::crd_defaults_patch(Parsed(js)).dump() ==
      R"([{"op":"add","path":"/spec/failurePolicy/restartStrategy","value":"Recreate"},)"
      R"({"op":"add","path":"/spec/replicatedJobs/0/groupName","value":"default"},)"
      R"({"op":"add","path":"/spec/replicatedJobs/0/replicas","value":1},)"
      R"({"op":"add","path":"/spec/volumeClaimPolicies/1/retentionPolicy/whenDeleted","value":"Delete"}])");
  CHECK(d::crd_defaults_patch(
            Parsed(R"({"spec":{"replicatedJobs":[{"groupName":"x","replicas":0}]}})"))
            .dump() == "[]");
}

TEST_CASE("A CREATE stores the CRD's defaults, the webhook's on them, the CRD's again",
          "[defaulting][create_defaults]") {
  // A volumeClaimPolicy without retentionPolicy: the webhook adds it, whole. A failurePolicy:
  // the CRD's restartStrategy, then the webhook's rule names.
  const Json raw = Json::parse(R"({"spec":{
    "failurePolicy":{"rules":[{"action":"FailJobSet"}]},
    "replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{
      "containers":[{"name":"c","ports":[{"containerPort":80}]}]}}}}}],
    "volumeClaimPolicies":[{"templates":[]}]}})");
  const auto stored = d::create_defaults(Parsed(raw));
  REQUIRE(stored.ok());
  REQUIRE(stored.value());
  const Json& object = stored.value()->object;
  CHECK(
      object.dump() ==
      R"({"spec":{"failurePolicy":{"rules":[{"action":"FailJobSet","name":"failurePolicyRule0"}],)"
      R"("restartStrategy":"Recreate"},"replicatedJobs":[{"name":"a","template":{"spec":{)"
      R"("template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80,)"
      R"("protocol":"TCP"}]}],"restartPolicy":"OnFailure"}},"completionMode":"Indexed"}},)"
      R"("groupName":"default","replicas":1}],"volumeClaimPolicies":[{"templates":[],)"
      R"("retentionPolicy":{"whenDeleted":"Delete"}}],"successPolicy":{"operator":"All"},)"
      R"("startupPolicy":{"startupPolicyOrder":"AnyOrder"},"network":{"enableDNSHostnames":true,)"
      R"("publishNotReadyAddresses":true}}})");
  // The validating webhook's view-only form reads the same object.
  const auto view = d::create_defaults_view(Parsed(raw));
  REQUIRE(view.ok());
  REQUIRE(view.value());
  CHECK(jobset_webhook::patch::to_json(view.value()->root()).value().dump() == object.dump());
  // The view is of the stored object, and the stored object needs nothing more.
  CHECK(d::crd_defaults_patch(stored.value()->view.root()).dump() == "[]");
  CHECK(d::defaults_patch(stored.value()->view.root()).dump() == "[]");
  const auto again = d::create_defaults(stored.value()->view.root());
  REQUIRE(again.ok());
  CHECK_FALSE(again.value());
  const auto again_view = d::create_defaults_view(stored.value()->view.root());
  REQUIRE(again_view.ok());
  CHECK_FALSE(again_view.value());
}

// On UPDATE the mutating webhook gives back what the update dropped of the stored object's
// defaults, and nothing else (defaults.h, restored_defaults_patch).
namespace {

// A stored JobSet as the API server keeps it after CREATE: named replicatedJobs, every default.
Json stored_jobset() {
  Json rjobs = Json::array();
  for (const char* name : {"leader", "workers"}) {
    rjobs.push_back(MakeReplicatedJob(name)
                        .PodTemplate(kPodTemplate)
                        .CompletionMode("Indexed")
                        .PodSpec("restartPolicy", "OnFailure")
                        .Obj());
  }
  return with(defaulted(), "/spec/replicatedJobs", rjobs);
}

std::string restored(const Json& old_js, const Json& new_js) {
  return d::restored_defaults_patch(Parsed(old_js), Parsed(new_js)).dump();
}

}  // namespace

TEST_CASE("On UPDATE, defaults the update dropped come back from the stored object",
          "[defaulting][update]") {
  const Json old_js = stored_jobset();
  const std::string rjob1 = "/spec/replicatedJobs/1/template/spec";

  SECTION("kubectl apply's merge patch: the manifest's list, without completionMode") {
    // kubectl sends a JSON merge patch for a custom resource; it replaces replicatedJobs whole.
    Json new_js = old_js;
    new_js["spec"]["replicatedJobs"][1] =
        without(new_js["spec"]["replicatedJobs"][1], "/template/spec/completionMode");
    new_js["spec"]["replicatedJobs"][1]["replicas"] = 3;
    CHECK(restored(old_js, new_js) ==
          R"([{"op":"add","path":")" + rjob1 + R"(/completionMode","value":"Indexed"}])");
  }
  SECTION("matched by name, not by index") {
    Json new_js = old_js;
    std::swap(new_js["spec"]["replicatedJobs"][0], new_js["spec"]["replicatedJobs"][1]);
    new_js["spec"]["replicatedJobs"][0] =
        without(new_js["spec"]["replicatedJobs"][0], "/template/spec/template/spec/restartPolicy");
    CHECK(
        restored(old_js, new_js) ==
        R"([{"op":"add","path":"/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy","value":"OnFailure"}])");
    new_js["spec"]["replicatedJobs"][0]["name"] = "renamed";
    CHECK(restored(old_js, new_js) == "[]");
  }
  SECTION("a whole object without defaults (kubectl replace of the manifest)") {
    Json new_js = old_js;
    for (const char* field : {"/spec/successPolicy", "/spec/startupPolicy", "/spec/network"})
      new_js = without(new_js, field);
    CHECK(
        restored(old_js, new_js) ==
        R"([{"op":"add","path":"/spec/successPolicy","value":{"operator":"All"}},)"
        R"({"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}},)"
        R"({"op":"add","path":"/spec/network","value":{"enableDNSHostnames":true,"publishNotReadyAddresses":true}}])");
  }
  SECTION("nothing the stored object does not hold with the default value") {
    Json new_js = old_js;
    new_js["spec"]["replicatedJobs"][1] =
        without(new_js["spec"]["replicatedJobs"][1], "/template/spec/completionMode");
    Json non_indexed = old_js;
    non_indexed["spec"]["replicatedJobs"][1]["template"]["spec"]["completionMode"] = "NonIndexed";
    CHECK(restored(non_indexed, new_js) == "[]");  // the change stays for validation to judge
    CHECK(restored(without(old_js, "/spec/replicatedJobs/1/template/spec/completionMode"),
                   new_js) == "[]");  // never defaulted (created without the webhook)
    Json policy = old_js;
    policy["spec"]["successPolicy"]["targetReplicatedJobs"] = {"leader"};
    CHECK(restored(policy, without(old_js, "/spec/successPolicy")) == "[]");
  }
  SECTION("an update that keeps every default gets no patch") {
    CHECK(restored(old_js, old_js) == "[]");
    CHECK(restored(Json::object(), old_js) == "[]");
  }
}

// The CRD's CEL rule `self == oldSelf` on spec.volumeClaimPolicies compares values as stored. A
// JobSet that a typed client wrote (upstream's mjobset.kb.io answers with a patch to the object it
// re-encoded) holds `status: {}` in each claim template; kubectl apply of the unchanged manifest
// replaces the list whole. Where the two lists decode to the same Go value, the stored list comes
// back whole (docs/e2e.md, "kubectl apply again of a JobSet with volumeClaimPolicies").
TEST_CASE("On UPDATE, volumeClaimPolicies that decode to the stored ones come back as stored",
          "[defaulting][update]") {
  const Json claim = Json::parse(
      R"({"metadata":{"name":"cache"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
  Json old_js = stored_jobset();
  old_js["spec"]["volumeClaimPolicies"] =
      Json::array({{{"templates", {with(claim, "/status", Json::object())}},
                    {"retentionPolicy", {{"whenDeleted", "Delete"}}}}});
  const std::string stored_list = old_js["spec"]["volumeClaimPolicies"].dump();
  const auto sent = [&](Json templates) {
    Json js = old_js;
    js["spec"]["volumeClaimPolicies"] = Json::array({{{"templates", std::move(templates)}}});
    return js;
  };
  const std::string replaced =
      R"([{"op":"replace","path":"/spec/volumeClaimPolicies","value":)" + stored_list + "}]";

  SECTION("the manifest's list, without status and retentionPolicy: the stored list, whole") {
    CHECK(restored(old_js, sent({claim})) == replaced);
  }
  SECTION("a storage request written another way is the same quantity") {
    CHECK(restored(old_js, sent({with(claim, "/spec/resources/requests/storage", "1024Mi")})) ==
          replaced);
  }
  SECTION("only the retentionPolicy dropped: that default comes back, as before") {
    CHECK(
        restored(old_js, sent({with(claim, "/status", Json::object())})) ==
        R"([{"op":"add","path":"/spec/volumeClaimPolicies/0/retentionPolicy","value":{"whenDeleted":"Delete"}}])");
  }
  SECTION("a real change is left for the CEL rule to judge") {
    const std::string only_retention =
        R"([{"op":"add","path":"/spec/volumeClaimPolicies/0/retentionPolicy","value":{"whenDeleted":"Delete"}}])";
    CHECK(restored(old_js, sent({with(claim, "/spec/resources/requests/storage", "2Gi")})) ==
          only_retention);
    CHECK(restored(old_js, sent({with(claim, "/status", {{"phase", "Pending"}})})) ==
          only_retention);
    CHECK(restored(old_js, sent({claim, claim})) == only_retention);
    Json retained = sent({claim});
    retained["spec"]["volumeClaimPolicies"][0]["retentionPolicy"] = {{"whenDeleted", "Retain"}};
    CHECK(restored(old_js, retained) == "[]");
  }
  SECTION("the stored list unchanged gets no patch") { CHECK(restored(old_js, old_js) == "[]"); }
}

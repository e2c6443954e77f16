#include "controller/plan_scaler.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/child_jobs.h"

using jobset_webhook::Json;
using namespace jobset_webhook::controller;
using namespace jobset_webhook::testing;

namespace {

const std::string kNow = "2026-12-03T10:00:00Z";

const Json* condition(const Json& status, const std::string& type) {
  for (const auto& c : status["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("plan_scaler patches the replicatedJob's replicas with a test of the value read",
          "[controller][scaler]") {
  const Json js = jobset(2);
  const ScalerPlan plan = plan_scaler(scaler(3), &js);
  CHECK(plan.current == 2);
  CHECK(plan.wanted == 3);
  REQUIRE(plan.jobset_patch);
  // workers is spec.replicatedJobs[1]: the driver comes first.
  CHECK(*plan.jobset_patch == Json::parse(R"([
    {"op": "test", "path": "/spec/replicatedJobs/1/replicas", "value": 2},
    {"op": "replace", "path": "/spec/replicatedJobs/1/replicas", "value": 3}])"));
  CHECK(plan.held.empty());
}

TEST_CASE("plan_scaler leaves a JobSet alone that has the replicas asked", "[controller][scaler]") {
  const Json js = jobset(3);
  const ScalerPlan plan = plan_scaler(scaler(3), &js);
  CHECK(plan.current == 3);
  CHECK_FALSE(plan.jobset_patch);
}

TEST_CASE("plan_scaler patches nothing without a JobSet or its replicatedJob",
          "[controller][scaler]") {
  CHECK_FALSE(plan_scaler(scaler(3), nullptr).current);
  CHECK_FALSE(plan_scaler(scaler(3), nullptr).jobset_patch);
  Json other = scaler(3);
  other["spec"]["replicatedJobName"] = "ps";
  const Json js = jobset(2);
  CHECK_FALSE(plan_scaler(other, &js).current);
  CHECK_FALSE(plan_scaler(other, &js).jobset_patch);

  const Json none = scaler_status(other, &js, workers(2), plan_scaler(other, &js), {}, kNow);
  CHECK((*condition(none, "Ready"))["reason"] == "ReplicatedJobNotFound");
  CHECK((*condition(none, "Ready"))["message"] == "JobSet js has no replicatedJob ps");
  const Json gone =
      scaler_status(scaler(3), nullptr, {}, plan_scaler(scaler(3), nullptr), {}, kNow);
  CHECK((*condition(gone, "Ready"))["status"] == "False");
  CHECK((*condition(gone, "Ready"))["message"] == "JobSet js does not exist in namespace ns");
  CHECK(gone["replicas"] == 0);
}

TEST_CASE("plan_scaler holds a scale refused for the scaler's generation until the spec changes",
          "[controller][scaler]") {
  const Json js = jobset(2);
  Json s = scaler(3, 4);
  ScaleResult refused{ScaleResult::Kind::kRefused, "admission webhook denied the request: no"};
  s["status"] = scaler_status(s, &js, workers(2), plan_scaler(s, &js), refused, kNow);
  const Json* limited = condition(s["status"], "ScalingLimited");
  REQUIRE(limited != nullptr);
  CHECK((*limited)["status"] == "True");
  CHECK((*limited)["reason"] == "ScaleRefused");
  CHECK((*limited)["message"] == "admission webhook denied the request: no");
  CHECK((*limited)["observedGeneration"] == 4);

  const ScalerPlan held = plan_scaler(s, &js);
  CHECK_FALSE(held.jobset_patch);
  CHECK(held.held == "admission webhook denied the request: no");
  // Its status keeps saying so, and keeps its transition time.
  const Json again = scaler_status(s, &js, workers(2), held, {}, "2026-12-03T11:00:00Z");
  CHECK(*condition(again, "ScalingLimited") == *limited);

  s["metadata"]["generation"] = 5;  // `kubectl scale` again
  CHECK(plan_scaler(s, &js).jobset_patch);
}

TEST_CASE("plan_scaler does not scale a JobSet being deleted", "[controller][scaler]") {
  Json js = jobset(2);
  js["metadata"]["deletionTimestamp"] = kNow;
  const ScalerPlan plan = plan_scaler(scaler(3), &js);
  CHECK_FALSE(plan.jobset_patch);
  CHECK(plan.held == "JobSet js is being deleted");
}

TEST_CASE("scaler_status counts the Jobs of the current attempt below replicas",
          "[controller][scaler]") {
  const Json js = jobset(3, /*restarts=*/1);
  std::vector<Json> jobs = {job("driver", 0, 1), job("workers", 0, 1), job("workers", 1, 1),
                            job("workers", 2, 0),   // the previous attempt's
                            job("workers", 3, 1)};  // above replicas, not deleted yet
  Json foreign = job("workers", 2, 1);
  foreign["metadata"]["ownerReferences"][0]["uid"] = "another-jobset";
  jobs.push_back(foreign);
  const ScalerPlan plan = plan_scaler(scaler(3), &js);
  const Json status = scaler_status(scaler(3), &js, jobs, plan, {}, kNow);
  CHECK(status["replicas"] == 2);
  CHECK(status["selector"] ==
        "jobset.sigs.k8s.io/jobset-name=js,jobset.sigs.k8s.io/replicatedjob-name=workers,"
        "batch.kubernetes.io/job-completion-index=0");
  CHECK(status["observedGeneration"] == 1);
  CHECK((*condition(status, "Ready"))["status"] == "False");
  CHECK((*condition(status, "Ready"))["reason"] == "JobsNotInPlace");
  CHECK((*condition(status, "Ready"))["message"] == "2 of 3 Jobs of replicatedJob workers exist");
  CHECK((*condition(status, "ScalingLimited"))["status"] == "False");

  jobs.push_back(job("workers", 2, 1));
  const Json ready = scaler_status(scaler(3), &js, jobs, plan, {}, kNow);
  CHECK(ready["replicas"] == 3);
  CHECK((*condition(ready, "Ready"))["status"] == "True");
  CHECK((*condition(ready, "Ready"))["reason"] == "AtDesiredReplicas");
}

TEST_CASE("scaler_status after an applied scale reads the replicas asked", "[controller][scaler]") {
  const Json js = jobset(1);
  const ScalerPlan plan = plan_scaler(scaler(2), &js);
  const Json status = scaler_status(scaler(2), &js, workers(1), plan,
                                    ScaleResult{ScaleResult::Kind::kApplied, ""}, kNow);
  CHECK((*condition(status, "Ready"))["message"] == "1 of 2 Jobs of replicatedJob workers exist");
  const Json before = scaler_status(scaler(2), &js, workers(1), plan, {}, kNow);
  CHECK((*condition(before, "Ready"))["reason"] == "ScaleNotApplied");
}

TEST_CASE("owner_patch makes the JobSet an owner once", "[controller][scaler]") {
  const Json js = jobset(2);
  const auto patch = owner_patch(scaler(2), js);
  REQUIRE(patch);
  CHECK(*patch == Json::parse(R"({"metadata": {"resourceVersion": "7", "ownerReferences": [
    {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js",
     "uid": "js-uid"}]}})"));
  Json owned = scaler(2);
  owned["metadata"]["ownerReferences"] = (*patch)["metadata"]["ownerReferences"];
  CHECK_FALSE(owner_patch(owned, js));
}

TEST_CASE("scalers_to_create gives an opted-in JobSet a scaler per replicatedJob without one",
          "[controller][scaler]") {
  Json js = jobset(4);
  CHECK(scalers_to_create(js, {}).empty());  // not opted in
  js["metadata"]["annotations"] = {{kAutoScalersAnnotation, "true"}};
  const auto made = scalers_to_create(js, {scaler(4)});  // workers has one
  REQUIRE(made.size() == 1);
  CHECK(made[0]["metadata"]["name"] == "js-driver");
  CHECK(made[0]["metadata"]["namespace"] == "ns");
  CHECK(made[0]["metadata"]["ownerReferences"][0]["uid"] == "js-uid");
  CHECK(made[0]["spec"] ==
        Json::parse(R"({"jobSetName": "js", "replicatedJobName": "driver", "replicas": 1})"));
  CHECK(scalers_to_create(js, {}).size() == 2);
  js["metadata"]["deletionTimestamp"] = kNow;
  CHECK(scalers_to_create(js, {}).empty());
}

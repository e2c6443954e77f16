#include "controller/scaler_reconciler.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "jobset_webhook/runtime/time.h"
#include "support/child_jobs.h"
#include "support/fake_api.h"

using jobset_webhook::Json;
using namespace jobset_webhook::controller;
using namespace jobset_webhook::testing;

namespace {

const std::string kJobSetPath = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/js";
const std::string kScalers =
    "/apis/elastic.jobset-webhook.io/v1alpha1/namespaces/ns/replicatedjobscalers";
const std::string kScalerPath = kScalers + "/js-workers";

// The controller's world: the cache the watches filled, and the API server behind it.
struct World {
  FakeApi api;
  Cache cache;
  ControllerMetrics metrics;
  bool leading = true;
  jobset_webhook::runtime::Log log{jobset_webhook::runtime::LogLevel::kDebug,
                                   [](std::string_view) {}};
  ScalerReconciler reconciler{
      ReconcilerEnv{api, cache, metrics, [this] { return leading; },
                    [] { return std::chrono::steady_clock::time_point{}; }, log, "test-identity",
                    [] { return *jobset_webhook::runtime::parse_rfc3339("2026-12-03T10:00:00Z"); },
                    0},
      [] { return true; }};

  World(const Json& js, const std::vector<Json>& scalers, const std::vector<Json>& jobs) {
    std::set<std::string> touched;
    cache.replace(cache.jobsets, {js}, touched);
    cache.replace(cache.jobs, jobs, touched);
    cache.replace(cache.scalers, scalers, touched);
    api.objects[kJobSetPath] = js;
    for (const auto& s : scalers)
      api.objects[kScalers + "/" + s["metadata"]["name"].get<std::string>()] = s;
  }

  // The stored scaler back in the cache, as its watch would deliver it.
  void sync_scaler() {
    cache.apply(cache.scalers,
                jobset_webhook::kube::WatchEvent{"MODIFIED", api.objects[kScalerPath]});
  }

  std::int64_t stored_replicas() const {
    return api.objects.at(kJobSetPath)["spec"]["replicatedJobs"][1]["replicas"];
  }

  const Json& condition(const std::string& type) const {
    for (const auto& c : api.objects.at(kScalerPath)["status"]["conditions"]) {
      if (c["type"] == type) return c;
    }
    FAIL("no condition " << type);
    static const Json none;
    return none;
  }

  std::vector<std::string> events() const {
    std::vector<std::string> out;
    for (const auto& e : api.created) {
      if (e["kind"] == "Event")
        out.push_back(e["type"].get<std::string>() + " " + e["reason"].get<std::string>() + ": " +
                      e["message"].get<std::string>());
    }
    return out;
  }
};

Json owned(Json s) {
  s["metadata"]["ownerReferences"] = Json::array({Json{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                                                       {"kind", "JobSet"},
                                                       {"name", "js"},
                                                       {"uid", "js-uid"}}});
  return s;
}

}  // namespace

TEST_CASE("a scaler's replicas are patched into its JobSet, once, and its status says so",
          "[controller][scaler]") {
  World w(jobset(2), {owned(scaler(3))}, workers(2));
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.stored_replicas() == 3);
  // A quorum read, the JSON patch with its test, the Event, the status.
  CHECK(w.api.calls == std::vector<std::string>{"GET " + kJobSetPath, "PATCH " + kJobSetPath,
                                                "POST /api/v1/namespaces/ns/events",
                                                "PATCH " + kScalerPath + "/status"});
  CHECK(w.api.patches[0][0]["op"] == "test");
  CHECK(w.events() == std::vector<std::string>{
                          "Normal Scaled: Scaled replicatedJob workers of JobSet js from 2 to 3"});
  CHECK(w.api.created[0]["involvedObject"]["kind"] == "ReplicatedJobScaler");
  CHECK(w.metrics.scales_applied == 1);
  CHECK(w.condition("Ready")["reason"] == "JobsNotInPlace");
  CHECK(w.condition("ScalingLimited")["status"] == "False");

  // The next pass, with the cache caught up, writes nothing.
  w.sync_scaler();
  std::set<std::string> touched;
  w.cache.replace(w.cache.jobsets, {w.api.objects[kJobSetPath]}, touched);
  w.api.calls.clear();
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.api.calls.empty());
}

TEST_CASE("what the webhooks said of an applied scale is a Warning Event on the scaler",
          "[controller][scaler]") {
  World w(jobset(2), {owned(scaler(3))}, workers(2));
  w.api.patch_warnings = {
      "replicatedJob \"workers\" scaled up from 2 to 3: the JobSet "
      "controller will create Jobs js-workers-2"};
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.events() ==
        std::vector<std::string>{
            "Normal Scaled: Scaled replicatedJob workers of JobSet js from 2 to 3",
            "Warning ScaleWarning: replicatedJob \"workers\" scaled up from 2 to 3: the JobSet "
            "controller will create Jobs js-workers-2"});
}

TEST_CASE(
    "a scale refused by a webhook lands in the scaler's condition and an Event, and is "
    "not tried again until the scaler changes",
    "[controller][scaler]") {
  World w(jobset(2), {owned(scaler(9))}, workers(2));
  const std::string refusal =
      "admission webhook \"jobset-webhook.jobset.x-k8s.io\" denied the request: no";
  w.api.failures["PATCH " + kJobSetPath] = jobset_webhook::kube::api_error(400, refusal);
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.stored_replicas() == 2);
  CHECK(w.condition("ScalingLimited")["status"] == "True");
  CHECK(w.condition("ScalingLimited")["message"] == refusal);
  CHECK(w.condition("Ready")["reason"] == "ScaleNotApplied");
  CHECK(w.events() == std::vector<std::string>{"Warning ScaleRefused: Cannot scale replicatedJob "
                                               "workers of JobSet js from 2 to 9: " +
                                               refusal});
  CHECK(w.metrics.scales_refused == 1);

  w.sync_scaler();
  w.api.calls.clear();
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.api.calls.empty());  // no loop

  // `kubectl scale` again: a new generation is tried.
  Json again = w.api.objects[kScalerPath];
  again["metadata"]["generation"] = 2;
  again["spec"]["replicas"] = 4;
  w.api.objects[kScalerPath] = again;
  w.sync_scaler();
  w.api.failures.clear();
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.stored_replicas() == 4);
  CHECK(w.condition("ScalingLimited")["status"] == "False");
}

TEST_CASE("a scale whose test fails on a replicas changed meanwhile is no refusal",
          "[controller][scaler]") {
  World w(jobset(2), {owned(scaler(3))}, workers(2));
  // Someone scales the JobSet between our read and our patch.
  w.api.after = [&w](const std::string& call) {
    if (call == "GET " + kJobSetPath && w.stored_replicas() == 2) {
      w.api.after = nullptr;
      w.api.objects[kJobSetPath]["spec"]["replicatedJobs"][1]["replicas"] = 5;
    }
  };
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kRetry);
  CHECK(w.stored_replicas() == 5);  // never overwritten blindly
  CHECK(w.metrics.scales_conflicted == 1);
  CHECK(w.metrics.scales_refused == 0);
  CHECK(w.events().empty());
  // The retry plans from the new value.
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.stored_replicas() == 3);
}

TEST_CASE("a user's scaler is given its JobSet as owner; an opted-in JobSet gets scalers",
          "[controller][scaler]") {
  Json js = jobset(2);
  js["metadata"]["annotations"] = {{kAutoScalersAnnotation, "true"}};
  World w(js, {scaler(2)}, workers(2));
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  // The driver's scaler is created; the workers' (the user's) is owned.
  REQUIRE(w.api.paths_of("POST").size() >= 1);
  CHECK(w.api.paths_of("POST")[0] == kScalers);
  CHECK(w.api.created[0]["metadata"]["name"] == "js-driver");
  CHECK(w.metrics.scalers_created == 1);
  CHECK(w.api.objects[kScalerPath]["metadata"]["ownerReferences"][0]["uid"] == "js-uid");
  CHECK(w.condition("Ready")["status"] == "True");

  // A follower does nothing.
  World f(js, {scaler(3)}, workers(2));
  f.leading = false;
  CHECK(f.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(f.api.calls.empty());
}

TEST_CASE("a scaler without its JobSet says so", "[controller][scaler]") {
  World w(jobset(2), {}, {});
  Json lonely = scaler(3);
  lonely["spec"]["jobSetName"] = "gone";
  std::set<std::string> touched;
  w.cache.replace(w.cache.scalers, {lonely}, touched);
  w.api.objects[kScalerPath] = lonely;
  CHECK(touched.count("ns/gone") == 1);
  CHECK(w.reconciler.reconcile("ns/gone") == Outcome::kDone);
  CHECK(w.condition("Ready")["reason"] == "JobSetNotFound");
  CHECK(w.api.paths_of("PATCH") == std::vector<std::string>{kScalerPath + "/status"});
}

#include "controller/plan_scale_down.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "jobset_webhook/upstream_jobset.h"
#include "support/child_jobs.h"

using jobset_webhook::Json;
using jobset_webhook::kJobSetControllerName;
using namespace jobset_webhook::controller;
using namespace jobset_webhook::testing;

namespace {

// "name/propagation" per deletion, in plan order, or "skipped: <why>".
std::string describe(const ScaleDownPlan& plan) {
  if (!plan.skipped.empty()) return "skipped: " + plan.skipped;
  std::string out;
  for (const auto& d : plan.deletions) {
    if (!out.empty()) out += ", ";
    out += d.name + "/" + to_string(d.propagation);
  }
  return out;
}

}  // namespace

TEST_CASE("plan_scale_down names the Jobs above replicas, highest index first",
          "[controller][plan_scale_down]") {
  struct Case {
    std::string name;
    Json js;
    std::vector<Json> jobs;
    std::string want;
  };
  std::vector<Case> cases;
  cases.push_back({"4 workers scaled to 2", jobset(2), workers(4),
                   "js-workers-3/Foreground, js-workers-2/Foreground"});
  {
    // Listed in any order, planned by index.
    auto jobs = workers(5);
    std::swap(jobs[1], jobs[4]);
    cases.push_back({"unordered list", jobset(1), jobs,
                     "js-workers-4/Foreground, js-workers-3/Foreground, js-workers-2/Foreground, "
                     "js-workers-1/Foreground"});
  }
  cases.push_back({"no change", jobset(4), workers(4), ""});
  cases.push_back({"scale-up: upstream creates, nothing deleted", jobset(6), workers(4), ""});
  cases.push_back({"scaled to zero", jobset(0), workers(2),
                   "js-workers-1/Foreground, js-workers-0/Foreground"});
  {
    // Indices past 10 compare as numbers, not strings.
    auto jobs = workers(12);
    cases.push_back(
        {"two-digit indices", jobset(9), jobs,
         "js-workers-11/Foreground, js-workers-10/Foreground, js-workers-9/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["metadata"]["ownerReferences"][0]["uid"] = "other-uid";
    cases.push_back(
        {"another JobSet's Job (same labels)", jobset(2), jobs, "js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["metadata"]["ownerReferences"][0]["controller"] = false;
    cases.push_back(
        {"owner reference that is not the controller", jobset(2), jobs, "js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["metadata"].erase("ownerReferences");
    cases.push_back({"orphan Job", jobset(2), jobs, "js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["metadata"]["deletionTimestamp"] = "2026-12-01T15:00:00Z";
    cases.push_back({"Job already being deleted", jobset(2), jobs, "js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4] = with_condition(jobs[4], "Failed");
    cases.push_back({"failed Job left to upstream's failure policy", jobset(2), jobs,
                     "js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4] = with_condition(jobs[4], "Complete");
    jobs[4]["status"]["active"] = 0;
    cases.push_back({"completed Job deleted (it would count for successPolicy All)", jobset(2),
                     jobs, "js-workers-3/Foreground, js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["metadata"]["labels"][kJobIndexKey] = "3x";
    jobs[3]["metadata"]["labels"].erase(kJobIndexKey);
    cases.push_back(
        {"unreadable or missing job-index", jobset(1), jobs, "js-workers-1/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["metadata"]["labels"][kReplicatedJobNameKey] = "gone";
    cases.push_back({"replicatedJob not in the spec", jobset(2), jobs, "js-workers-2/Foreground"});
  }
  {
    // backoffLimit 0: one deleted Pod fails the Job while foreground deletion keeps it visible.
    auto jobs = workers(4);
    jobs[4]["spec"]["backoffLimit"] = 0;
    jobs[3]["spec"]["parallelism"] = 4;
    jobs[3]["spec"]["backoffLimit"] = 4;
    jobs[3]["status"]["failed"] = 1;
    cases.push_back({"Pods that could pass backoffLimit: Background", jobset(2), jobs,
                     "js-workers-3/Background, js-workers-2/Background"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["spec"]["parallelism"] = 4;
    jobs[4]["spec"]["backoffLimit"] = 4;
    jobs[4]["status"]["active"] = 4;
    jobs[3]["spec"]["podFailurePolicy"] = Json{{"rules", Json::array()}};
    cases.push_back({"Pods within backoffLimit: Foreground; podFailurePolicy: Background",
                     jobset(2), jobs, "js-workers-3/Foreground, js-workers-2/Background"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["spec"]["backoffLimitPerIndex"] = 1;
    jobs[4]["spec"].erase("backoffLimit");
    cases.push_back({"backoffLimitPerIndex: Background", jobset(2), jobs,
                     "js-workers-3/Background, js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["status"]["uncountedTerminatedPods"] = {{"failed", Json::array({"a", "b"})}};
    jobs[4]["status"]["failed"] = 4;
    cases.push_back({"uncounted failed Pods count towards the limit", jobset(2), jobs,
                     "js-workers-3/Background, js-workers-2/Foreground"});
  }
  {
    auto js = jobset(2);
    js["metadata"]["deletionTimestamp"] = "2026-12-01T15:00:00Z";
    cases.push_back({"JobSet being deleted", js, workers(4), "skipped: being deleted"});
  }
  cases.push_back({"JobSet completed", with_condition(jobset(2), "Completed"), workers(4),
                   "skipped: finished"});
  cases.push_back(
      {"JobSet failed", with_condition(jobset(2), "Failed"), workers(4), "skipped: finished"});
  {
    auto js = jobset(2);
    js["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
    cases.push_back({"JobSet managed by another controller", js, workers(4),
                     "skipped: managed by kueue.x-k8s.io/multikueue"});
  }
  {
    auto js = jobset(2);
    js["spec"]["managedBy"] = kJobSetControllerName;
    cases.push_back({"managedBy upstream's own controller", js, workers(4),
                     "js-workers-3/Foreground, js-workers-2/Foreground"});
  }
  // status.restarts went to 1: the attempt-0 Jobs are upstream's to delete.
  cases.push_back(
      {"restart: previous attempt's Jobs are never named", jobset(2, 1), workers(4), ""});
  {
    // Attempt 0's js-workers-3 held by a finalizer while attempt 1 runs: no hold on the rest.
    auto jobs = workers(3);
    for (auto& j : jobs) j["metadata"]["labels"][kRestartsKey] = "1";
    jobs.push_back(job("workers", 3, 0));
    jobs.back()["metadata"]["finalizers"] = Json::array({"example.com/hold"});
    cases.push_back({"a stuck Job of an older attempt holds nothing back", jobset(1, 1), jobs,
                     "js-workers-2/Foreground, js-workers-1/Foreground"});
  }
  {
    auto jobs = workers(4);
    for (auto& j : jobs) j["metadata"]["labels"][kRestartsKey] = "1";
    cases.push_back({"Jobs of the current attempt after a restart", jobset(2, 1), jobs,
                     "js-workers-3/Foreground, js-workers-2/Foreground"});
  }
  {
    auto jobs = workers(4);
    jobs[0]["metadata"]["labels"][kRestartsKey] = "2";
    cases.push_back({"a Job newer than the JobSet seen", jobset(2, 1), jobs,
                     "skipped: the JobSet read is older than Job js-driver-0 (restart attempt 2, "
                     "status.restarts 1)"});
  }
  {
    auto jobs = workers(4);
    jobs[4]["metadata"]["labels"][kRestartsKey] = "x";
    cases.push_back(
        {"unreadable restart-attempt: Job left alone", jobset(2), jobs, "js-workers-2/Foreground"});
  }
  {
    // Upstream's RestartJob gate: js-workers-1 is being recreated (attempt 0, target 1).
    auto js = jobset(2);
    js["status"]["replicatedJobsStatus"] =
        Json::array({Json{{"name", "workers"}, {"jobRestarts", Json::array({0, 1, 0, 0})}}});
    auto jobs = workers(4);
    for (auto& j : jobs) j["metadata"]["labels"][kJobRestartAttemptKey] = "0";
    cases.push_back({"per-Job restart in progress holds nothing back", js, jobs,
                     "js-workers-3/Foreground, js-workers-2/Foreground"});
    jobs[2]["metadata"]["labels"][kJobRestartAttemptKey] = "1";
    cases.push_back({"per-Job restarts all current", js, jobs,
                     "js-workers-3/Foreground, js-workers-2/Foreground"});
    jobs[2]["metadata"]["labels"][kJobRestartAttemptKey] = "2";
    cases.push_back({"a Job's own attempt newer than the JobSet seen", js, jobs,
                     "skipped: the JobSet read is older than Job js-workers-1 (job restart "
                     "attempt 2, jobRestarts 1)"});
    jobs[2]["metadata"]["labels"][kJobRestartAttemptKey] = "1";
    js["status"]["replicatedJobsStatus"][0]["jobRestarts"] = Json::array({0, 1, 0, 1});
    cases.push_back({"a Job above replicas behind its per-Job target is upstream's", js, jobs,
                     "js-workers-2/Foreground"});
  }
  {
    auto js = jobset(2);
    js["spec"]["replicatedJobs"][1].erase("replicas");
    cases.push_back({"replicas absent means 1 (the API default)", js, workers(3),
                     "js-workers-2/Foreground, js-workers-1/Foreground"});
  }
  cases.push_back({"not an object", Json::array(), workers(2), "skipped: no metadata.uid"});
  cases.push_back({"Jobs of odd shape are skipped",
                   jobset(0),
                   {Json(nullptr), Json::array({1}), Json{{"metadata", 3}}},
                   ""});

  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(describe(plan_scale_down(c.js, c.jobs)) == c.want); }
  }
}

TEST_CASE("A plan that leaves Jobs above replicas says why it waits",
          "[controller][plan_scale_down]") {
  auto elsewhere = jobset(2);
  elsewhere["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
  CHECK(plan_scale_down(elsewhere, workers(4)).waiting == WaitReason::kManagedElsewhere);
  CHECK(plan_scale_down(elsewhere, workers(2)).waiting == WaitReason::kNone);
  auto jobs = workers(2);
  jobs[1]["metadata"]["labels"][kRestartsKey] = "1";
  CHECK(plan_scale_down(jobset(2), jobs).waiting == WaitReason::kNewerAttempt);
  CHECK(plan_scale_down(jobset(2), workers(4)).waiting == WaitReason::kNone);
  CHECK(plan_scale_down(with_condition(jobset(2), "Completed"), workers(4)).waiting ==
        WaitReason::kNone);
}

TEST_CASE("A deletion carries the Job's UID, ReplicatedJob, index and completion",
          "[controller][plan_scale_down]") {
  auto jobs = workers(3);
  jobs[3] = with_condition(jobs[3], "Complete");
  const auto plan = plan_scale_down(jobset(2), jobs);
  REQUIRE(plan.deletions.size() == 1);
  const auto& d = plan.deletions[0];
  CHECK(d.name == "js-workers-2");
  CHECK(d.uid == "js-workers-2-uid");
  CHECK(d.replicated_job == "workers");
  CHECK(d.index == 2);
  CHECK(d.completed);
  CHECK(d.propagation == Propagation::kForeground);
}

TEST_CASE("Several ReplicatedJobs are planned in spec order", "[controller][plan_scale_down]") {
  auto js = jobset(1);
  js["spec"]["replicatedJobs"][0]["replicas"] = 0;
  const auto plan = plan_scale_down(js, workers(3));
  CHECK(describe(plan) ==
        "js-driver-0/Foreground, js-workers-2/Foreground, js-workers-1/Foreground");
}

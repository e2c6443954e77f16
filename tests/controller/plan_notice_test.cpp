#include "controller/plan_notice.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "jobset_webhook/runtime/time.h"
#include "jobset_webhook/scale_down_notice.h"
#include "support/child_jobs.h"

using jobset_webhook::Json;
using namespace jobset_webhook::controller;
using namespace jobset_webhook::testing;

namespace {

using TimePoint = std::chrono::system_clock::time_point;

const TimePoint kT0 = *jobset_webhook::runtime::parse_rfc3339("2026-12-02T16:00:00Z");

TimePoint at(int seconds) { return kT0 + std::chrono::seconds(seconds); }

// The state the controller writes when workers 4 -> 2 with a 20 s notice began at kT0.
const char* const kStateFourToTwo =
    R"({"restarts":0,"replicatedJobs":{"workers":{"deadline":"2026-12-02T16:00:20Z",)"
    R"("leaving":[2,3],"replicas":2}}})";

Json opted(Json js, const std::string& seconds) {
  js["metadata"]["annotations"][jobset_webhook::kNoticeSecondsAnnotation] = seconds;
  return js;
}

Json with_state(Json js, const std::string& state) {
  js["metadata"]["annotations"][kNoticeStateKey] = state;
  return js;
}

Json annotated(Json obj, const std::string& replicas, const std::string& leaving,
               const std::string& deadline) {
  obj["metadata"]["annotations"][kNoticeReplicasKey] = replicas;
  obj["metadata"]["annotations"][kNoticeLeavingKey] = leaving;
  obj["metadata"]["annotations"][kNoticeDeadlineKey] = deadline;
  return obj;
}

// The world in the middle of kStateFourToTwo: Jobs 2 and 3 and every worker Pod annotated.
struct World {
  std::vector<Json> jobs = workers(4);
  std::vector<Json> pods = worker_pods(4);
  World() {
    for (int i : {3, 4}) jobs[i] = annotated(jobs[i], "2", "2,3", "2026-12-02T16:00:20Z");
    for (int i = 1; i <= 4; ++i) pods[i] = annotated(pods[i], "2", "2,3", "2026-12-02T16:00:20Z");
  }
};

// One line per part of the plan: the state written, Events, patches, what is due, the next
// deadline.
std::string describe(const NoticePlan& plan) {
  std::string out;
  const auto line = [&](const std::string& s) { out += s + "\n"; };
  if (plan.state)
    line("state: " + (plan.state->is_null() ? "removed" : plan.state->get<std::string>()));
  for (const auto& e : plan.events) line(std::string(to_string(e.kind)) + ": " + e.message);
  for (const auto& p : plan.patches)
    line("patch " + p.resource + "/" + p.name + " " + p.annotations.dump());
  if (!plan.due.empty()) {
    std::string due;
    for (const auto& r : plan.due) due += (due.empty() ? "" : ",") + r;
    line("due: " + due);
  }
  if (plan.next_deadline) line("next: " + jobset_webhook::runtime::rfc3339(*plan.next_deadline));
  line("in progress: " + std::to_string(plan.in_progress));
  if (plan.past_deadline > 0) line("past deadline: " + std::to_string(plan.past_deadline));
  return out;
}

const std::string kAnnotations2and3 =
    R"({"elastic.jobset-webhook.io/scale-down-deadline":"2026-12-02T16:00:20Z",)"
    R"("elastic.jobset-webhook.io/scale-down-leaving":"2,3",)"
    R"("elastic.jobset-webhook.io/scale-down-replicas":"2"})";
const std::string kRemoved = R"({"elastic.jobset-webhook.io/scale-down-deadline":null,)"
                             R"("elastic.jobset-webhook.io/scale-down-leaving":null,)"
                             R"("elastic.jobset-webhook.io/scale-down-replicas":null})";

std::string removed_from_all_workers(int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += "patch pods/js-workers-" + std::to_string(i) + "-0-abcde " + kRemoved + "\n";
  return out;
}

}  // namespace

TEST_CASE("plan_notice announces, waits, deletes at the deadline and cancels",
          "[controller][plan_notice]") {
  struct Case {
    std::string name;
    Json js;
    std::vector<Json> jobs;
    std::vector<Json> pods;
    std::int64_t default_seconds;
    TimePoint now;
    std::string want;
  };
  const World w;
  std::vector<Case> cases;
  cases.push_back(
      {"opted in, 4 -> 2: the leaving Jobs and every worker Pod are told", opted(jobset(2), "20"),
       workers(4), worker_pods(4), 0, kT0,
       std::string("state: ") + kStateFourToTwo + "\n" +
           "ScaleDownNoticeStarted: Scale-down notice for replicatedJob workers: Jobs "
           "js-workers-2, js-workers-3 leave (replicas 2), deleted after 2026-12-02T16:00:20Z "
           "(notice of 20s)\n"
           "patch jobs/js-workers-2 " +
           kAnnotations2and3 + "\n" + "patch jobs/js-workers-3 " + kAnnotations2and3 + "\n" +
           "patch pods/js-workers-0-0-abcde " + kAnnotations2and3 + "\n" +
           "patch pods/js-workers-1-0-abcde " + kAnnotations2and3 + "\n" +
           "patch pods/js-workers-2-0-abcde " + kAnnotations2and3 + "\n" +
           "patch pods/js-workers-3-0-abcde " + kAnnotations2and3 + "\n" +
           "next: 2026-12-02T16:00:20Z\nin progress: 1\n"});
  cases.push_back({"a deadline is whole seconds, never shorter than the period",
                   opted(jobset(3), "20"),
                   workers(4),
                   {},
                   0,
                   kT0 + std::chrono::milliseconds(300),
                   R"(state: {"restarts":0,"replicatedJobs":{"workers":{"deadline":)"
                   R"("2026-12-02T16:00:21Z","leaving":[3],"replicas":3}}})"
                   "\n"
                   "ScaleDownNoticeStarted: Scale-down notice for replicatedJob workers: Job "
                   "js-workers-3 leaves (replicas 3), deleted after 2026-12-02T16:00:21Z (notice "
                   "of 20s)\n"
                   "patch jobs/js-workers-3 "
                   R"({"elastic.jobset-webhook.io/scale-down-deadline":"2026-12-02T16:00:21Z",)"
                   R"("elastic.jobset-webhook.io/scale-down-leaving":"3",)"
                   R"("elastic.jobset-webhook.io/scale-down-replicas":"3"})"
                   "\nnext: 2026-12-02T16:00:21Z\nin progress: 1\n"});
  cases.push_back({"not opted in: due at once, as without a notice", jobset(2), workers(4),
                   worker_pods(4), 0, kT0, "due: workers\nin progress: 0\n"});
  cases.push_back({"a value that is not seconds reads as the default", opted(jobset(2), "5m"),
                   workers(4), worker_pods(4), 0, kT0, "due: workers\nin progress: 0\n"});
  cases.push_back({"the policy's default applies without the annotation",
                   jobset(3),
                   workers(4),
                   {},
                   300,
                   kT0,
                   R"(state: {"restarts":0,"replicatedJobs":{"workers":{"deadline":)"
                   R"("2026-12-02T16:05:00Z","leaving":[3],"replicas":3}}})"
                   "\n"
                   "ScaleDownNoticeStarted: Scale-down notice for replicatedJob workers: Job "
                   "js-workers-3 leaves (replicas 3), deleted after 2026-12-02T16:05:00Z (notice "
                   "of 5m)\n"
                   "patch jobs/js-workers-3 "
                   R"({"elastic.jobset-webhook.io/scale-down-deadline":"2026-12-02T16:05:00Z",)"
                   R"("elastic.jobset-webhook.io/scale-down-leaving":"3",)"
                   R"("elastic.jobset-webhook.io/scale-down-replicas":"3"})"
                   "\nnext: 2026-12-02T16:05:00Z\nin progress: 1\n"});
  cases.push_back({"annotation 0 turns the policy's default off",
                   opted(jobset(2), "0"),
                   workers(4),
                   {},
                   300,
                   kT0,
                   "due: workers\nin progress: 0\n"});
  cases.push_back(
      {"during the notice: nothing to write, the deadline kept (a restarted "
       "controller reads it, not now + period)",
       with_state(opted(jobset(2), "20"), kStateFourToTwo), w.jobs, w.pods, 0, at(15),
       "next: 2026-12-02T16:00:20Z\nin progress: 1\n"});
  cases.push_back({"at the deadline: due", with_state(opted(jobset(2), "20"), kStateFourToTwo),
                   w.jobs, w.pods, 0, at(20), "due: workers\nin progress: 1\npast deadline: 1\n"});
  cases.push_back({"the period lowered during the notice changes no promised deadline",
                   with_state(opted(jobset(2), "0"), kStateFourToTwo), w.jobs, w.pods, 0, at(5),
                   "next: 2026-12-02T16:00:20Z\nin progress: 1\n"});
  {
    // Jobs 3 and 2 deleted at the deadline: the notice ends, the staying Pods are cleared.
    std::vector<Json> jobs(w.jobs.begin(), w.jobs.begin() + 3);
    std::vector<Json> pods(w.pods.begin(), w.pods.begin() + 3);
    cases.push_back({"the leaving Jobs gone after the deadline: ended",
                     with_state(opted(jobset(2), "20"), kStateFourToTwo), jobs, pods, 0, at(21),
                     "state: removed\n"
                     "ScaleDownNoticeEnded: Scale-down notice for replicatedJob workers ended: "
                     "Jobs js-workers-2, js-workers-3 deleted after 2026-12-02T16:00:20Z\n" +
                         removed_from_all_workers(2) + "in progress: 0\n"});
  }
  {
    // Foreground deletion keeps a Job visible with its deletionTimestamp: it no longer leaves.
    auto jobs = w.jobs;
    jobs[3]["metadata"]["deletionTimestamp"] = "2026-12-02T16:00:20Z";
    jobs[4]["metadata"]["deletionTimestamp"] = "2026-12-02T16:00:20Z";
    cases.push_back({"the leaving Jobs being deleted: ended, they are left alone",
                     with_state(opted(jobset(2), "20"), kStateFourToTwo), jobs, w.pods, 0, at(21),
                     "state: removed\n"
                     "ScaleDownNoticeEnded: Scale-down notice for replicatedJob workers ended: "
                     "Jobs js-workers-2, js-workers-3 deleted after 2026-12-02T16:00:20Z\n" +
                         removed_from_all_workers(4) + "in progress: 0\n"});
  }
  cases.push_back({"scaled back to 4 before the deadline: cancelled, nothing due",
                   with_state(opted(jobset(4), "20"), kStateFourToTwo), w.jobs, w.pods, 0, at(8),
                   "state: removed\n"
                   "ScaleDownNoticeCancelled: Scale-down notice for replicatedJob workers "
                   "cancelled: scaled back up to 4, Jobs js-workers-2, js-workers-3 stay\n"
                   "patch jobs/js-workers-2 " +
                       kRemoved + "\n" + "patch jobs/js-workers-3 " + kRemoved + "\n" +
                       removed_from_all_workers(4) + "in progress: 0\n"});
  cases.push_back(
      {"scaled back to 3: cancelled for index 2 only, the deadline kept",
       with_state(opted(jobset(3), "20"), kStateFourToTwo), w.jobs, w.pods, 0, at(8),
       R"(state: {"restarts":0,"replicatedJobs":{"workers":{"deadline":"2026-12-02T16:00:20Z",)"
       R"("leaving":[3],"replicas":3}}})"
       "\n"
       "ScaleDownNoticeCancelled: Scale-down notice for replicatedJob workers cancelled for Job "
       "js-workers-2 (scaled back up to 3); Job js-workers-3 still leaves after "
       "2026-12-02T16:00:20Z\n"
       "patch jobs/js-workers-2 " +
           kRemoved + "\n" +
           R"(patch jobs/js-workers-3 {"elastic.jobset-webhook.io/scale-down-leaving":"3",)"
           R"("elastic.jobset-webhook.io/scale-down-replicas":"3"})"
           "\n" +
           [] {
             std::string out;
             for (int i = 0; i < 4; ++i)
               out += "patch pods/js-workers-" + std::to_string(i) +
                      R"(-0-abcde {"elastic.jobset-webhook.io/scale-down-leaving":"3",)"
                      R"("elastic.jobset-webhook.io/scale-down-replicas":"3"})"
                      "\n";
             return out;
           }() +
           "next: 2026-12-02T16:00:20Z\nin progress: 1\n"});
  cases.push_back(
      {"scaled further down to 1: extended to index 1, deadline now + period",
       with_state(opted(jobset(1), "20"), kStateFourToTwo), w.jobs, w.pods, 0, at(10),
       R"(state: {"restarts":0,"replicatedJobs":{"workers":{"deadline":"2026-12-02T16:00:30Z",)"
       R"("leaving":[1,2,3],"replicas":1}}})"
       "\n"
       "ScaleDownNoticeExtended: Scale-down notice for replicatedJob workers extended: Jobs "
       "js-workers-1, js-workers-2, js-workers-3 leave (replicas 1), deleted after "
       "2026-12-02T16:00:30Z\n" +
           [] {
             const std::string a =
                 R"({"elastic.jobset-webhook.io/scale-down-deadline":"2026-12-02T16:00:30Z",)"
                 R"("elastic.jobset-webhook.io/scale-down-leaving":"1,2,3",)"
                 R"("elastic.jobset-webhook.io/scale-down-replicas":"1"})";
             std::string out = "patch jobs/js-workers-1 " + a + "\n";
             out += "patch jobs/js-workers-2 " + a + "\n";
             out += "patch jobs/js-workers-3 " + a + "\n";
             for (int i = 0; i < 4; ++i)
               out += "patch pods/js-workers-" + std::to_string(i) + "-0-abcde " + a + "\n";
             return out;
           }() +
           "next: 2026-12-02T16:00:30Z\nin progress: 1\n"});
  {
    // Upstream restarted: attempt 1 has Jobs 0 and 1 (replicas 2), attempt 0's are being
    // deleted by upstream.
    auto js = with_state(opted(jobset(2, 1), "20"), kStateFourToTwo);
    std::vector<Json> jobs = {job("driver", 0, 1), job("workers", 0, 1), job("workers", 1, 1)};
    std::vector<Json> pods = w.pods;
    pods.push_back(pod("workers", 0, 1));
    cases.push_back({"a restart cancels the notice; the old attempt's Pods are upstream's", js,
                     jobs, pods, 0, at(5),
                     "state: removed\n"
                     "ScaleDownNoticeCancelled: Scale-down notice for replicatedJob workers "
                     "cancelled: the JobSet restarted\nin progress: 0\n"});
  }
  {
    auto js = with_state(opted(jobset(2), "20"), kStateFourToTwo);
    js["spec"]["suspend"] = true;
    cases.push_back({"suspension cancels the notice and the Jobs go at once (no Pod runs)",
                     js,
                     w.jobs,
                     {},
                     0,
                     at(5),
                     "state: removed\n"
                     "ScaleDownNoticeCancelled: Scale-down notice for replicatedJob workers "
                     "cancelled: the JobSet is suspended\n"
                     "patch jobs/js-workers-2 " +
                         kRemoved + "\n" + "patch jobs/js-workers-3 " + kRemoved +
                         "\ndue: driver,workers\nin progress: 0\n"});
  }
  {
    auto js = with_condition(with_state(opted(jobset(2), "20"), kStateFourToTwo), "Completed");
    cases.push_back({"a finished JobSet's notice is cancelled",
                     js,
                     {},
                     {},
                     0,
                     at(5),
                     "state: removed\n"
                     "ScaleDownNoticeCancelled: Scale-down notice for replicatedJob workers "
                     "cancelled: the JobSet finished\nin progress: 0\n"});
  }
  {
    auto js = with_state(opted(jobset(2), "20"), kStateFourToTwo);
    js["metadata"]["deletionTimestamp"] = "2026-12-02T16:00:05Z";
    cases.push_back({"a JobSet being deleted: cancelled, its Jobs and Pods left to go", js, w.jobs,
                     w.pods, 0, at(5),
                     "state: removed\n"
                     "ScaleDownNoticeCancelled: Scale-down notice for replicatedJob workers "
                     "cancelled: the JobSet is being deleted\nin progress: 0\n"});
  }
  {
    auto pods = worker_pods(4);
    pods[2]["metadata"]["labels"][kJobSetUidKey] = "an-older-js-uid";
    pods[3]["metadata"]["deletionTimestamp"] = "2026-12-02T16:00:00Z";
    cases.push_back({"Pods of another JobSet of the name, and Pods being deleted, are not told",
                     opted(jobset(3), "20"), workers(4), pods, 0, kT0, [] {
                       const std::string a =
                           R"({"elastic.jobset-webhook.io/scale-down-deadline":)"
                           R"("2026-12-02T16:00:20Z","elastic.jobset-webhook.io/)"
                           R"(scale-down-leaving":"3","elastic.jobset-webhook.io/)"
                           R"(scale-down-replicas":"3"})";
                       return std::string(R"(state: {"restarts":0,"replicatedJobs":{"workers":{)"
                                          R"("deadline":"2026-12-02T16:00:20Z","leaving":[3],)"
                                          R"("replicas":3}}})"
                                          "\n") +
                              "ScaleDownNoticeStarted: Scale-down notice for replicatedJob "
                              "workers: Job js-workers-3 leaves (replicas 3), deleted after "
                              "2026-12-02T16:00:20Z (notice of 20s)\n" +
                              "patch jobs/js-workers-3 " + a + "\n" +
                              "patch pods/js-workers-0-0-abcde " + a + "\n" +
                              "patch pods/js-workers-3-0-abcde " + a + "\n" +
                              "next: 2026-12-02T16:00:20Z\nin progress: 1\n";
                     }()});
  }
  cases.push_back({"a state that is not the controller's is removed",
                   with_state(opted(jobset(4), "20"), "not json"),
                   workers(4),
                   {},
                   0,
                   kT0,
                   "state: removed\nin progress: 0\n"});

  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const ScaleDownPlan scale_down = plan_scale_down(c.js, c.jobs);
      CHECK(describe(plan_notice(c.js, c.jobs, c.pods, scale_down, c.default_seconds, c.now)) ==
            c.want);
    }
  }
}

TEST_CASE("A notice is planned for Jobs to delete with a period, or a state to carry on",
          "[controller][plan_notice]") {
  const auto wanted = [](const Json& js, std::int64_t default_seconds) {
    return notice_wanted(js, plan_scale_down(js, workers(4)), default_seconds);
  };
  CHECK_FALSE(wanted(jobset(2), 0));
  CHECK(wanted(jobset(2), 30));
  CHECK_FALSE(wanted(jobset(4), 30));  // nothing leaves: no Pods listed
  CHECK(wanted(opted(jobset(2), "20"), 0));
  CHECK_FALSE(wanted(opted(jobset(2), "0"), 30));
  CHECK(wanted(with_state(jobset(4), kStateFourToTwo), 0));
  CHECK(notice_seconds(opted(jobset(2), "45"), 30) == 45);
  CHECK(notice_seconds(opted(jobset(2), "-1"), 30) == 30);
}

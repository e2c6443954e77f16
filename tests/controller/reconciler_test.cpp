#include "controller/reconciler.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "jobset_webhook/runtime/time.h"
#include "jobset_webhook/scale_down_notice.h"
#include "support/child_jobs.h"
#include "support/fake_api.h"

using jobset_webhook::Json;
using namespace jobset_webhook::controller;
using namespace jobset_webhook::testing;
using namespace std::chrono_literals;

namespace {

const std::string kJobSetPath = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/js";
const std::string kEvents = "/api/v1/namespaces/ns/events";

std::string job_path(const std::string& name) {
  return "/apis/batch/v1/namespaces/ns/jobs/" + name;
}

// The controller's world: the watches' cache, the API server behind it, a Lease and a clock.
struct World {
  FakeApi api;
  Cache cache;
  ControllerMetrics metrics;
  bool leading = true;
  std::chrono::steady_clock::time_point now{};
  std::vector<std::string> lines;
  jobset_webhook::runtime::Log log{jobset_webhook::runtime::LogLevel::kDebug,
                                   [this](std::string_view line) { lines.emplace_back(line); }};
  std::chrono::system_clock::time_point wall =
      *jobset_webhook::runtime::parse_rfc3339("2026-12-02T16:00:00Z");
  std::int64_t default_notice = 0;
  ReconcilerEnv env() {
    return ReconcilerEnv{api,
                         cache,
                         metrics,
                         [this] { return leading; },
                         [this] { return now; },
                         log,
                         "test-identity",
                         [this] { return wall; },
                         default_notice};
  }
  Reconciler reconciler{env()};

  // The JobSet as the watch saw it (cache) and as the API server now holds it.
  World(const Json& cached, const Json& stored, const std::vector<Json>& jobs) {
    metrics.leader = 1;  // as the elector sets it while this replica holds the Lease
    std::set<std::string> touched;
    cache.replace(cache.jobsets, {cached}, touched);
    cache.replace(cache.jobs, jobs, touched);
    api.objects[kJobSetPath] = stored;
    for (const auto& j : jobs) api.objects[job_path(j["metadata"]["name"])] = j;
  }

  std::vector<std::string> deleted() const {
    std::vector<std::string> out;
    for (const auto& p : api.paths_of("DELETE")) out.push_back(p.substr(p.rfind('/') + 1));
    return out;
  }

  std::vector<std::string> events(const std::string& type) const {
    std::vector<std::string> out;
    for (const auto& e : api.created) {
      if (e["type"] == type)
        out.push_back(e["reason"].get<std::string>() + ": " + e["message"].get<std::string>());
    }
    return out;
  }

  std::int64_t waiting(WaitReason r) const { return metrics.waiting[static_cast<int>(r)]; }
};

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE(
    "A scale-down deletes the Jobs above replicas one at a time, highest index first, "
    "each after a fresh read of the JobSet",
    "[controller][reconciler]") {
  World w(jobset(1), jobset(1), workers(4));
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted() == Names{"js-workers-3", "js-workers-2", "js-workers-1"});
  // GET before every DELETE; the last GET finds nothing left to do.
  CHECK(w.api.paths_of("GET") == Names(4, kJobSetPath));
  const Names want_order = {
      "GET " + kJobSetPath, "DELETE " + job_path("js-workers-3"), "POST " + kEvents,
      "GET " + kJobSetPath, "DELETE " + job_path("js-workers-2"), "POST " + kEvents};
  CHECK(Names(w.api.calls.begin(), w.api.calls.begin() + 6) == want_order);
  CHECK(w.api.deletes[0].precondition_uid == "js-workers-3-uid");
  CHECK(w.api.deletes[0].propagation_policy == "Foreground");
  CHECK(w.events("Normal") ==
        Names{"ScaleDownDeletedJob: Deleted Job js-workers-3 (index 3 of replicatedJob workers, "
              "replicas 1, Foreground propagation)",
              "ScaleDownDeletedJob: Deleted Job js-workers-2 (index 2 of replicatedJob workers, "
              "replicas 1, Foreground propagation)",
              "ScaleDownDeletedJob: Deleted Job js-workers-1 (index 1 of replicatedJob workers, "
              "replicas 1, Foreground propagation)"});
  CHECK(w.metrics.jobs_deleted == 3);
  // The cache still shows them (the watch is behind): a second pass deletes nothing again.
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted().size() == 3);
}

TEST_CASE("A scale back up during a scale-down stops the deletions at once",
          "[controller][reconciler]") {
  // 8 -> 1, and as soon as the first Job is gone, 1 -> 8.
  World w(jobset(1), jobset(1), workers(8));
  w.api.after = [&w](const std::string& call) {
    if (call == "DELETE " + job_path("js-workers-7")) w.api.objects[kJobSetPath] = jobset(8);
  };
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted() == Names{"js-workers-7"});
}

TEST_CASE("Jobs of a scale-up that arrive before the JobSet's update are not deleted",
          "[controller][reconciler]") {
  // The JobSet watch still shows replicas 1; the Jobs watch already has the Jobs of 1 -> 3.
  World w(jobset(1), jobset(3), workers(3));
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted().empty());
  CHECK(w.api.paths_of("GET") == Names{kJobSetPath});
}

TEST_CASE("The Event names the replicas of the read the deletion was made on",
          "[controller][reconciler]") {
  // Cached at 2, stored at 1: js-workers-2 and -1 go, under replicas 1.
  World w(jobset(2), jobset(1), workers(3));
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted() == Names{"js-workers-2", "js-workers-1"});
  CHECK(w.events("Normal").back() ==
        "ScaleDownDeletedJob: Deleted Job js-workers-1 (index 1 of replicatedJob workers, "
        "replicas 1, Foreground propagation)");
}

TEST_CASE("A process that lost its Lease sends no further DELETE", "[controller][reconciler]") {
  SECTION("lost between two deletions") {
    World w(jobset(1), jobset(1), workers(4));
    w.api.after = [&w](const std::string& call) {
      if (call.rfind("DELETE ", 0) == 0) w.leading = false;
    };
    CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
    CHECK(w.deleted() == Names{"js-workers-3"});
  }
  SECTION("lost while the JobSet was read (a paused process wakes past its renew deadline)") {
    World w(jobset(1), jobset(1), workers(4));
    w.api.after = [&w](const std::string& call) {
      if (call == "GET " + kJobSetPath) w.leading = false;
    };
    CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
    CHECK(w.deleted().empty());
  }
}

TEST_CASE("A stuck Job of an older restart attempt does not hold back a scale-down",
          "[controller][reconciler]") {
  // Attempt 0's js-workers-3 is held by a finalizer; attempt 1 runs 0..2; 4 -> 1.
  auto jobs = workers(3);
  for (auto& j : jobs) j["metadata"]["labels"][kRestartsKey] = "1";
  jobs.push_back(job("workers", 3, 0));
  jobs.back()["metadata"]["finalizers"] = Json::array({"example.com/hold"});
  World w(jobset(4, 1), jobset(1, 1), jobs);
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted() == Names{"js-workers-2", "js-workers-1"});
  CHECK(w.events("Warning").empty());
}

TEST_CASE(
    "A DELETE refused by RBAC makes the JobSet wait, with a Warning Event at most every "
    "five minutes",
    "[controller][reconciler]") {
  World w(jobset(1), jobset(1), workers(3));
  w.api.failures["DELETE " + job_path("js-workers-2")] =
      jobset_webhook::kube::api_error(403, "jobs.batch \"js-workers-2\" is forbidden");
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kRetry);
  CHECK(w.deleted() == Names{"js-workers-2"});  // tried, refused; js-workers-1 not before it
  CHECK(w.waiting(WaitReason::kForbidden) == 1);
  const Names warning = {
      "ScaleDownBlocked: Jobs above replicas are not deleted (forbidden): cannot delete Job "
      "js-workers-2: jobs.batch \"js-workers-2\" is forbidden"};
  CHECK(w.events("Warning") == warning);

  w.now += 1min;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kRetry);
  CHECK(w.events("Warning").size() == 1);
  w.now += 5min;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kRetry);
  CHECK(w.events("Warning").size() == 2);

  // RBAC fixed: the deletions go through and the JobSet no longer counts as waiting.
  w.api.failures.clear();
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.waiting(WaitReason::kForbidden) == 0);
  CHECK(w.deleted().back() == "js-workers-1");
}

TEST_CASE("A JobSet managed by another controller with Jobs above replicas gets a Warning",
          "[controller][reconciler]") {
  auto js = jobset(1);
  js["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
  World w(js, js, workers(3));
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted().empty());
  CHECK(w.waiting(WaitReason::kManagedElsewhere) == 1);
  CHECK(w.events("Warning") ==
        Names{"ScaleDownBlocked: Jobs above replicas are not deleted (managed_elsewhere): "
              "managed by kueue.x-k8s.io/multikueue"});
  // Deleted: no longer waiting.
  w.api.objects.erase(kJobSetPath);
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.waiting(WaitReason::kManagedElsewhere) == 0);
}

TEST_CASE("A replica without the Lease reports nothing waiting, and forgets a JobSet it sees",
          "[controller][reconciler]") {
  auto js = jobset(1);
  js["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
  World w(js, js, workers(3));
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  const std::string waiting = "\njobset_scale_down_waiting_jobsets{reason=\"managed_elsewhere\"} ";
  CHECK(w.metrics.text(1, 1, 1).find(waiting + "1\n") != std::string::npos);
  // The Lease lost: the count it had is not reported as if it still acted on it.
  w.metrics.leader = 0;
  CHECK(w.metrics.text(1, 1, 1).find(waiting + "0\n") != std::string::npos);
  // The JobSet deleted meanwhile: the follower drops its key (scale_down_controller.cpp, work())
  // and forgets it, so that leading again it does not count a JobSet that is gone.
  w.reconciler.forget("ns/js");
  w.metrics.leader = 1;
  CHECK(w.waiting(WaitReason::kManagedElsewhere) == 0);
  CHECK(w.metrics.text(1, 1, 1).find(waiting + "0\n") != std::string::npos);
}

TEST_CASE("A JobSet read older than its Jobs is read again soon, without an Event",
          "[controller][reconciler]") {
  auto jobs = workers(3);
  jobs[1]["metadata"]["labels"][kRestartsKey] = "1";
  World w(jobset(1), jobset(1), jobs);
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kRecheck);
  CHECK(w.deleted().empty());
  CHECK(w.waiting(WaitReason::kNewerAttempt) == 1);
  CHECK(w.api.created.empty());
}

TEST_CASE("A Job already gone or replaced is passed over, the next one deleted",
          "[controller][reconciler]") {
  World w(jobset(1), jobset(1), workers(4));
  w.api.objects.erase(job_path("js-workers-3"));                       // 404
  w.api.objects[job_path("js-workers-2")]["metadata"]["uid"] = "new";  // 409: a newer Job
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted() == Names{"js-workers-3", "js-workers-2", "js-workers-1"});
  CHECK(w.metrics.jobs_deleted == 1);
  CHECK(w.events("Normal").size() == 1);
}

TEST_CASE("A JobSet that the API server no longer has, or cannot give, is left alone",
          "[controller][reconciler]") {
  World gone(jobset(1), jobset(1), workers(3));
  gone.api.objects.erase(kJobSetPath);
  CHECK(gone.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(gone.deleted().empty());

  World unreachable(jobset(1), jobset(1), workers(3));
  unreachable.api.failures["GET " + kJobSetPath] =
      jobset_webhook::kube::api_error(jobset_webhook::kube::kTransportError, "Connection");
  CHECK(unreachable.reconciler.reconcile("ns/js") == Outcome::kRetry);
  CHECK(unreachable.deleted().empty());

  World uncached(jobset(1), jobset(1), workers(3));
  CHECK(uncached.reconciler.reconcile("ns/other") == Outcome::kDone);
  CHECK(uncached.api.calls.empty());
}

TEST_CASE("The cache keeps what the plan reads and drops the rest", "[controller][cache]") {
  auto j = job("workers", 3);
  j["metadata"]["managedFields"] = Json::array({Json{{"manager", "kube-controller-manager"}}});
  j["metadata"]["annotations"] = {{"a", "b"}};
  j["spec"]["template"] = {{"spec", {{"containers", Json::array()}}}};
  auto js = jobset(2);
  js["spec"]["replicatedJobs"][1]["template"] = {{"spec", Json::object()}};
  const Json trimmed_job = trim_for_cache(j);
  CHECK_FALSE(trimmed_job["metadata"].contains("managedFields"));
  CHECK_FALSE(trimmed_job["metadata"].contains("annotations"));
  CHECK_FALSE(trimmed_job["spec"].contains("template"));
  CHECK(trimmed_job["spec"]["backoffLimit"] == 6);
  CHECK(trimmed_job["metadata"]["labels"] == j["metadata"]["labels"]);
  CHECK(trim_for_cache(js)["spec"]["replicatedJobs"][1] ==
        Json{{"name", "workers"}, {"replicas", 2}});
  CHECK(trim_for_cache(Json::array({1})) == Json::array({1}));
  // The plan reads the trimmed Job as it reads the whole one.
  CHECK(plan_scale_down(jobset(2), {trimmed_job}).deletions.size() == 1);
}

namespace {

std::string pod_path(const std::string& name) { return "/api/v1/namespaces/ns/pods/" + name; }

// workers 4 -> 2 with a 20 s notice, the Pods of the four workers and the driver stored.
struct NoticedWorld : World {
  NoticedWorld() : World(jobset(4), noticed(), workers(4)) {
    for (const auto& p : worker_pods(4)) api.objects[pod_path(p["metadata"]["name"])] = p;
  }
  static Json noticed() {
    auto js = jobset(2);
    js["metadata"]["annotations"][jobset_webhook::kNoticeSecondsAnnotation] = "20";
    return js;
  }
};

std::string annotation(const Json& obj, const char* key) {
  const auto& meta = obj["metadata"];
  if (!meta.contains("annotations") || !meta["annotations"].contains(key)) return "<none>";
  return meta["annotations"][key].get<std::string>();
}

}  // namespace

TEST_CASE(
    "A notice is written before anything is deleted; a restarted controller keeps its deadline; "
    "at the deadline the Jobs go highest index first and the notice ends",
    "[controller][reconciler][notice]") {
  NoticedWorld w;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kNotice);
  CHECK(w.deleted().empty());
  CHECK(w.reconciler.notice_recheck() == 20100ms);
  CHECK(annotation(w.api.objects[kJobSetPath], kNoticeStateKey) ==
        R"({"restarts":0,"replicatedJobs":{"workers":{"deadline":"2026-12-02T16:00:20Z",)"
        R"("leaving":[2,3],"replicas":2}}})");
  // The state is written at the version read, before the Jobs and Pods are told.
  CHECK(w.api.patches.front()["metadata"].contains("resourceVersion"));
  CHECK(w.api.paths_of("PATCH").front() == kJobSetPath);
  CHECK(w.events("Normal") ==
        Names{"ScaleDownNoticeStarted: Scale-down notice for replicatedJob workers: Jobs "
              "js-workers-2, js-workers-3 leave (replicas 2), deleted after "
              "2026-12-02T16:00:20Z (notice of 20s)"});
  for (int i = 0; i < 4; ++i) {
    const Json& p = w.api.objects[pod_path("js-workers-" + std::to_string(i) + "-0-abcde")];
    CHECK(annotation(p, kNoticeLeavingKey) == "2,3");
    CHECK(annotation(p, kNoticeReplicasKey) == "2");
    CHECK(annotation(p, kNoticeDeadlineKey) == "2026-12-02T16:00:20Z");
  }
  CHECK(annotation(w.api.objects[pod_path("js-driver-0-0-abcde")], kNoticeLeavingKey) == "<none>");
  CHECK(annotation(w.api.objects[job_path("js-workers-3")], kNoticeLeavingKey) == "2,3");
  CHECK(annotation(w.api.objects[job_path("js-workers-1")], kNoticeLeavingKey) == "<none>");
  const std::string text = w.metrics.text(1, 1, 1);
  CHECK(text.find("\njobset_scale_down_notices 1\n") != std::string::npos);
  CHECK(text.find("\njobset_scale_down_notice_deadline_seconds ") != std::string::npos);
  // A replica without the Lease reports no notice: the leader's are the ones that go on.
  w.metrics.leader = 0;
  const std::string follower = w.metrics.text(1, 1, 1);
  CHECK(follower.find("\njobset_scale_down_notices 0\n") != std::string::npos);
  CHECK(follower.find("\njobset_scale_down_notice_deadline_seconds ") == std::string::npos);
  w.metrics.leader = 1;

  // 10 s on: nothing to write again.
  const std::size_t patched = w.api.paths_of("PATCH").size();
  w.wall += 10s;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kNotice);
  CHECK(w.reconciler.notice_recheck() == 10100ms);
  CHECK(w.api.paths_of("PATCH").size() == patched);

  // A new process (a restart, or another leader) reads the same deadline from the annotations.
  Reconciler restarted{w.env()};
  w.wall += 5s;
  CHECK(restarted.reconcile("ns/js") == Outcome::kNotice);
  CHECK(restarted.notice_recheck() == 5100ms);
  CHECK(w.api.paths_of("PATCH").size() == patched);
  CHECK(w.deleted().empty());

  w.wall += 5s;
  CHECK(restarted.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted() == Names{"js-workers-3", "js-workers-2"});
  // Past its deadline until the Jobs are gone: what an alert waits on when they never go.
  CHECK(w.metrics.text(1, 1, 1).find("\njobset_scale_down_notices_past_deadline 1\n") !=
        std::string::npos);

  // The watch shows them gone: the notice ends, the staying Pods are cleared.
  for (const char* gone : {"js-workers-3", "js-workers-2"}) {
    w.cache.apply(w.cache.jobs, {"DELETED", job("workers", gone[11] - '0')});
    w.api.objects.erase(pod_path(std::string(gone) + "-0-abcde"));
  }
  CHECK(restarted.reconcile("ns/js") == Outcome::kDone);
  CHECK(annotation(w.api.objects[kJobSetPath], kNoticeStateKey) == "<none>");
  CHECK(annotation(w.api.objects[pod_path("js-workers-0-0-abcde")], kNoticeLeavingKey) == "<none>");
  CHECK(w.events("Normal").back() ==
        "ScaleDownNoticeEnded: Scale-down notice for replicatedJob workers ended: Jobs "
        "js-workers-2, js-workers-3 deleted after 2026-12-02T16:00:20Z");
  CHECK(w.metrics.text(1, 1, 1).find("\njobset_scale_down_notices 0\n") != std::string::npos);
  CHECK(w.metrics.text(1, 1, 1).find("\njobset_scale_down_notices_past_deadline 0\n") !=
        std::string::npos);
}

TEST_CASE("A scale back up during the notice deletes nothing and cancels it",
          "[controller][reconciler][notice]") {
  NoticedWorld w;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kNotice);
  w.api.objects[kJobSetPath]["spec"]["replicatedJobs"][1]["replicas"] = 4;
  w.wall += 30s;  // even past the deadline: nothing is above replicas any more
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kDone);
  CHECK(w.deleted().empty());
  CHECK(w.events("Normal").back() ==
        "ScaleDownNoticeCancelled: Scale-down notice for replicatedJob workers cancelled: "
        "scaled back up to 4, Jobs js-workers-2, js-workers-3 stay");
  CHECK(annotation(w.api.objects[job_path("js-workers-3")], kNoticeLeavingKey) == "<none>");
}

TEST_CASE("A leaving Job that completes during the notice is deleted at once",
          "[controller][reconciler][notice]") {
  NoticedWorld w;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kNotice);
  const Json done = with_condition(job("workers", 2), "Complete");
  w.cache.apply(w.cache.jobs, {"MODIFIED", done});
  w.wall += 5s;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kNotice);
  CHECK(w.deleted() == Names{"js-workers-2"});
}

TEST_CASE("A notice written against a JobSet changed since its read is planned again",
          "[controller][reconciler][notice]") {
  NoticedWorld w;
  w.api.failures["PATCH " + kJobSetPath] = jobset_webhook::kube::api_error(409, "conflict");
  w.api.after = [&w](const std::string& call) {
    if (call == "PATCH " + kJobSetPath) w.api.failures.clear();
  };
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kNotice);
  CHECK(w.api.paths_of("GET") == Names(2, kJobSetPath));
  CHECK(w.events("Normal").size() == 1);  // the Event of the write that went through
  CHECK(w.deleted().empty());
}

TEST_CASE("A Pod the notice cannot be written to is tried again with back-off, nothing deleted",
          "[controller][reconciler][notice]") {
  NoticedWorld w;
  const std::string pod0 = pod_path("js-workers-0-0-abcde");
  w.api.failures["PATCH " + pod0] = jobset_webhook::kube::api_error(500, "etcd timeout");
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kRetry);
  CHECK(annotation(w.api.objects[pod_path("js-workers-1-0-abcde")], kNoticeLeavingKey) == "2,3");
  w.api.failures.clear();
  w.wall += 1s;
  CHECK(w.reconciler.reconcile("ns/js") == Outcome::kNotice);
  CHECK(annotation(w.api.objects[pod0], kNoticeLeavingKey) == "2,3");
  CHECK(w.deleted().empty());
  CHECK(w.events("Normal").size() == 1);
}

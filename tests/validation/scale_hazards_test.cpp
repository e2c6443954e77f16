#include <algorithm>
#include <catch2/catch.hpp>

#include "jobset_webhook/validation/scale_warnings.h"
#include "jobset_webhook/validation/update.h"
#include "validation/scale_hazards.h"
#include "support/jobset_builder.h"
#include "support/json_edit.h"
#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::testing::JobSetBuilder;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::with;

namespace {

// JobSet m2 with replicatedJobs a and b, as the JobSet of the global-index finding.
JobSetBuilder m2_builder(int a, int b) {
  return MakeJobSet("m2")
      .Namespace("default")
      .ReplicatedJob(MakeReplicatedJob("a").Replicas(a))
      .ReplicatedJob(MakeReplicatedJob("b").Replicas(b));
}
Json m2(int a, int b) { return m2_builder(a, b).Obj(); }

Json with_status(Json js, const std::string& name, int ready, int succeeded) {
  return with(std::move(js), "/status/replicatedJobsStatus",
              {{{"name", name}, {"ready", ready}, {"succeeded", succeeded}, {"failed", 0}}});
}

std::vector<std::string> warnings(const Json& old_js, const Json& new_js,
                                  const jobset_webhook::Policy& policy = {}) {
  const auto findings = v::validate_update(Parsed(old_js), Parsed(new_js), policy);
  REQUIRE(findings.errors.empty());
  return jobset_webhook::field::texts(findings.warnings);
}

bool has(const std::vector<std::string>& all, const std::string& warning) {
  return std::find(all.begin(), all.end(), warning) != all.end();
}

std::size_t count_containing(const std::vector<std::string>& all, const std::string& part) {
  return std::size_t(std::count_if(all.begin(), all.end(), [&](const std::string& w) {
    return w.find(part) != std::string::npos;
  }));
}

const std::string kStale =
    "upstream's JobSet controller writes the replica counts into the labels and annotations of a "
    "Job and its pods only when it creates the Job, so until the JobSet restarts the Jobs that "
    "exist and their pods (and a workload that reads the counts through the downward API) keep "
    "the old ones: ";

const std::string kShift =
    "upstream's JobSet controller labels a Job once, when it creates it, with an index counted "
    "from the replicas before it: ";

}  // namespace

// Upstream's globalJobIndex and globalReplicas (pkg/controllers/jobset_controller.go, v0.12.0),
// written by labelAndAnnotateObject when a Job is created and never again.
TEST_CASE("A scale names the global indices it shifts", "[validation][scale_hazards]") {
  SECTION("up: a new Job gets the index a Job of the next replicatedJob has") {
    CHECK(has(warnings(m2(1, 1), m2(2, 1)),
              "replicatedJob \"a\" scaled up from 1 to 2: " + kShift +
                  "Job m2-a-1 gets jobset.sigs.k8s.io/job-global-index and "
                  "jobset.sigs.k8s.io/job-group-index 1, which Job m2-b-0 "
                  "already has and keeps until the JobSet restarts"));
  }
  SECTION("up past the next replicatedJob: the collision is with the first index it reaches") {
    CHECK(has(warnings(m2(1, 2), m2(5, 2)),
              "replicatedJob \"a\" scaled up from 1 to 5: " + kShift +
                  "Job m2-a-1 gets jobset.sigs.k8s.io/job-global-index and "
                  "jobset.sigs.k8s.io/job-group-index 1, which Job m2-b-0 "
                  "already has and keeps until the JobSet restarts"));
  }
  SECTION("down: the later Jobs keep the indices of the old counts") {
    CHECK(has(warnings(m2(4, 2), m2(2, 2)),
              "replicatedJob \"a\" scaled down from 4 to 2: " + kShift +
                  "the Jobs of the replicatedJobs after it keep the "
                  "jobset.sigs.k8s.io/job-global-index and jobset.sigs.k8s.io/job-group-index they "
                  "have (Job m2-b-0: 4, by the new "
                  "counts 2) until the JobSet restarts"));
  }
  SECTION("groups of their own: job-group-index does not shift with the global one") {
    const auto grouped = [](int a) {
      return MakeJobSet("g")
          .ReplicatedJob(MakeReplicatedJob("a").Replicas(a).GroupName("x"))
          .ReplicatedJob(MakeReplicatedJob("b").GroupName("y"))
          .Obj();
    };
    CHECK(has(warnings(grouped(1), grouped(2)),
              "replicatedJob \"a\" scaled up from 1 to 2: " + kShift +
                  "Job g-a-1 gets jobset.sigs.k8s.io/job-global-index 1, which Job g-b-0 already "
                  "has and keeps until the JobSet restarts"));
  }
  SECTION("groups of their own: the later replicatedJobs of its group shift job-group-index") {
    // Upstream's groupJobIndex (pkg/controllers/jobset_controller.go, v0.12.0): the replicas of
    // the replicatedJobs of the same groupName before it, plus the Job's index.
    const auto grouped = [](int a) {
      return MakeJobSet("g")
          .ReplicatedJob(MakeReplicatedJob("a").Replicas(a).GroupName("x"))
          .ReplicatedJob(MakeReplicatedJob("b").GroupName("y"))
          .ReplicatedJob(MakeReplicatedJob("c").Replicas(2).GroupName("x"))
          .Obj();
    };
    CHECK(has(warnings(grouped(3), grouped(1)),
              "replicatedJob \"a\" scaled down from 3 to 1: upstream's JobSet controller labels a "
              "Job once, when it creates it, with an index counted from the replicas before it in "
              "its groupName: the Jobs of the replicatedJobs after it in group \"x\" keep the "
              "jobset.sigs.k8s.io/job-group-index they have (Job g-c-0: 3, by the new counts 1) "
              "until the JobSet restarts"));
    // b is the last of its group: nothing after it in "y" shifts.
    const auto b_scaled = [](int b) {
      return MakeJobSet("g")
          .ReplicatedJob(MakeReplicatedJob("a").GroupName("x"))
          .ReplicatedJob(MakeReplicatedJob("b").Replicas(b).GroupName("y"))
          .ReplicatedJob(MakeReplicatedJob("c").GroupName("x"))
          .Obj();
    };
    CHECK(count_containing(warnings(b_scaled(1), b_scaled(2)), "in its groupName") == 0);
  }
  SECTION("the last replicatedJob, or one followed by empty ones, shifts nothing") {
    CHECK(count_containing(warnings(m2(1, 1), m2(1, 3)), kShift) == 0);
    CHECK(count_containing(warnings(m2(1, 0), m2(2, 0)), kShift) == 0);
  }
  SECTION("a JobSet that another controller manages gets no promise about upstream's") {
    const auto managed = [](int a) {
      return m2_builder(a, 1).ManagedBy("kueue.x-k8s.io/multikueue").Obj();
    };
    CHECK(count_containing(warnings(managed(1), managed(2)), kShift) == 0);
  }
}

// Upstream's labelAndAnnotateObject (pkg/controllers/jobset_controller.go, v0.12.0) writes
// replicatedjob-replicas, global-replicas and group-replicas when constructJob makes a Job, and
// nothing writes them again.
TEST_CASE("A scale names the Jobs that keep stale replica counts", "[validation][scale_hazards]") {
  SECTION("the last replicatedJob: its own count, and the sums of the JobSet and of its group") {
    CHECK(warnings(m2(1, 1), m2(1, 3)) ==
          std::vector<std::string>{
              "replicatedJob \"b\" scaled up from 1 to 3: the JobSet controller will create Jobs "
              "m2-b-1, m2-b-2",
              "replicatedJob \"b\" scaled up from 1 to 3: " + kStale +
                  "Job m2-b-0 keeps jobset.sigs.k8s.io/replicatedjob-replicas 1 (now 3); Jobs "
                  "m2-a-0, m2-b-0 keep jobset.sigs.k8s.io/global-replicas and "
                  "jobset.sigs.k8s.io/group-replicas 2 (now 4)"});
  }
  SECTION("a few Jobs by name, then how many more") {
    CHECK(has(warnings(m2(2, 5), m2(2, 4)),
              "replicatedJob \"b\" scaled down from 5 to 4: " + kStale +
                  "Jobs m2-b-0, m2-b-1, m2-b-2 and 2 more keep "
                  "jobset.sigs.k8s.io/replicatedjob-replicas 5 (now 4); Jobs m2-a-0, m2-a-1, "
                  "m2-b-0 and 4 more keep jobset.sigs.k8s.io/global-replicas and "
                  "jobset.sigs.k8s.io/group-replicas 7 (now 6)"));
  }
  SECTION("groups: group-replicas of the scaled one's group only, each sum told once") {
    const auto grouped = [](int a, int b, int c) {
      return MakeJobSet("g")
          .ReplicatedJob(MakeReplicatedJob("a").Replicas(a).GroupName("x"))
          .ReplicatedJob(MakeReplicatedJob("b").Replicas(b).GroupName("y"))
          .ReplicatedJob(MakeReplicatedJob("c").Replicas(c).GroupName("x"))
          .Obj();
    };
    const auto all = warnings(grouped(1, 1, 2), grouped(2, 1, 1));
    // a + 1 and c - 1: neither the JobSet's sum nor group x's moves.
    CHECK(count_containing(all, "global-replicas") == 0);
    CHECK(count_containing(all, "group-replicas") == 0);
    CHECK(has(all, "replicatedJob \"a\" scaled up from 1 to 2: " + kStale +
                       "Job g-a-0 keeps jobset.sigs.k8s.io/replicatedjob-replicas 1 (now 2)"));
    CHECK(
        has(all, "replicatedJob \"c\" scaled down from 2 to 1: " + kStale +
                     "Jobs g-c-0, g-c-1 keep jobset.sigs.k8s.io/replicatedjob-replicas 2 (now 1)"));
    CHECK(has(warnings(grouped(1, 1, 2), grouped(1, 1, 3)),
              "replicatedJob \"c\" scaled up from 2 to 3: " + kStale +
                  "Jobs g-c-0, g-c-1 keep jobset.sigs.k8s.io/replicatedjob-replicas 2 (now 3); "
                  "Jobs g-a-0, g-b-0, g-c-0 and 1 more keep jobset.sigs.k8s.io/global-replicas 4 "
                  "(now 5); Jobs g-a-0, g-c-0, g-c-1 keep jobset.sigs.k8s.io/group-replicas 3 "
                  "(now 4) (groupName x)"));
  }
  SECTION("a replicatedJob that had no Job: only the sums") {
    CHECK(has(warnings(m2(0, 1), m2(2, 1)),
              "replicatedJob \"a\" scaled up from 0 to 2: " + kStale +
                  "Job m2-b-0 keeps jobset.sigs.k8s.io/global-replicas and "
                  "jobset.sigs.k8s.io/group-replicas 1 (now 3)"));
  }
  SECTION("a JobSet that another controller manages: nothing about upstream's labels") {
    const auto managed = [](int b) {
      return m2_builder(1, b).ManagedBy("kueue.x-k8s.io/multikueue").Obj();
    };
    CHECK(count_containing(warnings(managed(1), managed(2)), kStale) == 0);
  }
}

// Upstream's executeSuccessPolicy and numJobsExpectedToSucceed (pkg/controllers/
// success_policy.go): operator All waits for the sum of the targets' replicas, the new ones.
TEST_CASE("A scale says when the success policy would complete the JobSet",
          "[validation][scale_hazards]") {
  const auto all_of = [](int a, int b, Json targets) {
    return m2_builder(a, b)
        .SuccessPolicy({{"operator", "All"}, {"targetReplicatedJobs", std::move(targets)}})
        .Obj();
  };
  SECTION("Jobs that already succeeded reach the new count: Completed on the next reconcile") {
    const Json old_js = with_status(all_of(4, 1, {"a"}), "a", 2, 2);
    CHECK(has(warnings(old_js, all_of(2, 1, {"a"})),
              "replicatedJob \"a\" scaled down from 4 to 2: the JobSet controller will mark the "
              "JobSet Completed on its next reconcile: status.replicatedJobsStatus counts 2 "
              "succeeded Jobs of its targetReplicatedJobs, and successPolicy All now waits for "
              "2; once Completed, its Jobs still running are deleted"));
  }
  SECTION("fewer succeeded than the new count: nothing to say") {
    const Json old_js = with_status(all_of(4, 1, {"a"}), "a", 3, 1);
    CHECK(count_containing(warnings(old_js, all_of(2, 1, {"a"})), "successPolicy") == 0);
  }
  SECTION("targets scaled to 0: the first success anywhere completes it") {
    CHECK(
        has(warnings(all_of(1, 2, {"b"}), all_of(1, 0, {"b"})),
            "replicatedJob \"b\" scaled down from 2 to 0: successPolicy All now waits for 0 "
            "Jobs of its targetReplicatedJobs: the first Job of any replicatedJob that "
            "succeeds completes the JobSet (upstream's executeSuccessPolicy); once Completed, its "
            "Jobs still running are deleted"));
  }
  SECTION("a replicatedJob the policy does not target, or operator Any, changes nothing") {
    const Json old_js = with_status(all_of(4, 1, {"b"}), "a", 0, 4);
    CHECK(count_containing(warnings(old_js, all_of(0, 1, {"b"})), "successPolicy") == 0);
    const auto any = [](int b) {
      return m2_builder(1, b).SuccessPolicy({{"operator", "Any"}}).Obj();
    };
    CHECK(count_containing(warnings(any(2), any(0)), "successPolicy") == 0);
  }
}

// Upstream's dependencyReachedStatus (pkg/controllers/depends_on.go) and allReplicasStarted
// (pkg/controllers/startup_policy.go) compare counts with replicas for equality.
TEST_CASE("A scale says which replicatedJobs wait for the scaled one",
          "[validation][scale_hazards]") {
  SECTION("dependsOn Ready: the dependants wait until the Jobs above the count are gone") {
    const auto depends = [](int a) {
      return MakeJobSet("m2")
          .ReplicatedJob(MakeReplicatedJob("a").Replicas(a))
          .ReplicatedJob(MakeReplicatedJob("b").DependsOn("a", "Ready"))
          .Obj();
    };
    const Json old_js = with_status(depends(4), "a", 4, 0);
    CHECK(has(warnings(old_js, depends(2)),
              "replicatedJob \"a\" scaled down from 4 to 2: replicatedJob \"b\" depends on it "
              "(dependsOn Ready): the JobSet controller creates its missing Jobs only while the "
              "ready, failed and succeeded Jobs of this one number exactly 2, and "
              "status.replicatedJobsStatus counts 4: it waits until the Jobs above the new "
              "count are gone"));
    // Offline, without a status, nothing is known of the counts.
    CHECK(count_containing(warnings(depends(4), depends(2)), "dependsOn") == 0);
  }
  SECTION("startupPolicy InOrder: the replicatedJobs after it wait for the new count") {
    const auto in_order = [](int a, int b) {
      return m2_builder(a, b).StartupPolicy("InOrder").Obj();
    };
    CHECK(has(warnings(with_status(in_order(2, 1), "a", 2, 0), in_order(3, 1)),
              "replicatedJob \"a\" scaled up from 2 to 3: startupPolicy InOrder: the JobSet "
              "controller sets StartupPolicyInProgress again and creates no missing Job of the "
              "replicatedJobs after this one until its ready, failed and succeeded Jobs number "
              "exactly 3 (status.replicatedJobsStatus counts 2)"));
    CHECK(count_containing(warnings(in_order(2, 1), in_order(2, 3)), "InOrder") == 0);
  }
}

// Kueue's reconciler (kueue pkg/controller/jobframework/reconciler.go) suspends a running job
// whose counts match no Workload: "job with no matching workload, suspending".
TEST_CASE("A scale of a running JobSet that Kueue admitted says it restarts",
          "[validation][scale_hazards]") {
  const auto queued = [](int b, bool suspend = false) {
    return m2_builder(1, b).Label("kueue.x-k8s.io/queue-name", "team-a").Suspend(suspend).Obj();
  };
  CHECK(has(warnings(queued(2), queued(3)),
            "replicatedJob \"b\" scaled up from 2 to 3: Kueue manages this JobSet (label "
            "kueue.x-k8s.io/queue-name=team-a): a running JobSet whose replicas change matches "
            "no Workload, so Kueue suspends it and queues it again, stopping every Job, rather "
            "than resizing it"));
  CHECK(count_containing(warnings(queued(2, true), queued(3, true)), "Kueue") == 0);
}

// The policy's scaleHazards.deny turns a class of these warnings into a refusal at the replicas
// it is about; the other classes stay warnings.
TEST_CASE("The policy may refuse a class of scale hazards", "[validation][scale_hazards]") {
  using jobset_webhook::ScaleHazard;
  jobset_webhook::Policy policy;
  policy.deny_scale_hazards = {ScaleHazard::kSuccessPolicy};
  const auto all_of = [](int b) {
    return m2_builder(1, b)
        .SuccessPolicy({{"operator", "All"}, {"targetReplicatedJobs", {"b"}}})
        .Obj();
  };
  const auto refused = v::validate_update(Parsed(all_of(2)), Parsed(all_of(0)), policy);
  REQUIRE(refused.errors.size() == 1);
  CHECK(refused.errors[0].to_string() ==
        "spec.replicatedJobs[1].replicas: Forbidden: scaled down from 2 to 0: successPolicy All "
        "now waits for 0 Jobs of its targetReplicatedJobs: the first Job of any replicatedJob that "
        "succeeds completes the JobSet (upstream's executeSuccessPolicy); once Completed, its Jobs "
        "still running are deleted; the policy refuses it (scaleHazards.deny: successPolicy)");
  CHECK(refused.warnings.empty());
  // A scale without that hazard keeps its warnings, the stale counts among them.
  const auto allowed = warnings(all_of(2), all_of(3), policy);
  CHECK(count_containing(allowed, kStale) == 1);
  policy.deny_scale_hazards = {ScaleHazard::kStaleReplicaCounts, ScaleHazard::kGlobalIndex};
  const auto both = v::validate_update(Parsed(m2(1, 1)), Parsed(m2(2, 1)), policy);
  REQUIRE(both.errors.size() == 2);
  CHECK(both.errors[0].to_string().rfind(
            "spec.replicatedJobs[0].replicas: Forbidden: scaled up from 1 to 2: " + kShift, 0) ==
        0);
  CHECK(both.errors[1].to_string().find("(scaleHazards.deny: staleReplicaCounts)") !=
        std::string::npos);
}

TEST_CASE("A scale of many replicatedJobs keeps the text of the warnings a response can hold",
          "[validation][scale_hazards]") {
  const int n = 2000;
  const auto jobset = [&](int scaled) {
    JobSetBuilder js = MakeJobSet("js").Namespace("default");
    for (int i = 0; i < n; ++i)
      js.ReplicatedJob(MakeReplicatedJob("r" + std::to_string(i)).Replicas(i < scaled ? 1 : 2));
    return js.Obj();
  };
  std::vector<v::ReplicasChange> scaled;
  for (int i = 0; i < n; ++i) scaled.push_back({"r" + std::to_string(i), 2, 1, std::size_t(i)});
  const Parsed old_js(jobset(0)), new_js(jobset(n));

  jobset_webhook::Policy policy;
  const auto hazards = v::scale_hazards(old_js, new_js, scaled, policy);
  std::size_t kept = 0, elided = 0, kept_bytes = 0;
  for (const auto& h : hazards) {
    if (h.elided) {
      CHECK(h.detail.empty());
      ++elided;
    } else {
      ++kept;
      kept_bytes += h.detail.size();
    }
  }
  // Every scale but the last shifts the indices after it; every one leaves stale counts.
  CHECK(hazards.size() == std::size_t(2 * n - 1));
  CHECK(kept < 20);
  CHECK(elided == hazards.size() - kept);
  CHECK(kept_bytes < 2 * v::kMaxWarningsBytes);

  // A class the policy refuses is kept whole: each scale is refused in its own words.
  policy.deny_scale_hazards = {jobset_webhook::ScaleHazard::kStaleReplicaCounts};
  std::size_t refused = 0;
  for (const auto& h : v::scale_hazards(old_js, new_js, scaled, policy)) {
    if (h.kind == jobset_webhook::ScaleHazard::kStaleReplicaCounts) {
      CHECK_FALSE(h.elided);
      CHECK_FALSE(h.detail.empty());
      ++refused;
    }
  }
  CHECK(refused == std::size_t(n));
  CHECK(v::validate_update(old_js, new_js, policy).errors.size() == std::size_t(n));
}

// Upstream's getChildJobs (pkg/controllers/jobset_controller.go, v0.12.0), with the RestartJob
// gate: a Job's job-index must be below the length of getJobRestarts, its replicatedJob's
// jobRestarts list or, while that is empty, `replicas` zeros.
TEST_CASE("With the RestartJob gate a scale-down says the reconcile fails until the Jobs go",
          "[validation][scale_hazards]") {
  jobset_webhook::Policy gated;
  gated.feature_gates.restart_job = true;
  const std::string fails =
      "with the RestartJob feature gate, upstream's JobSet controller fails every reconcile of "
      "this JobSet with \"job index ";
  SECTION("an empty list stands for the new count") {
    CHECK(has(warnings(m2(1, 4), m2(1, 2), gated),
              "replicatedJob \"b\" scaled down from 4 to 2: " + fails +
                  "2 is out of bounds for replicated job b\" (getChildJobs: a Job's index must be "
                  "below the length of its jobRestarts list, 2 here) until Jobs m2-b-2, m2-b-3 "
                  "are deleted: meanwhile it updates no status and runs no success or failure "
                  "policy"));
    CHECK(count_containing(warnings(m2(1, 4), m2(1, 2)), fails) == 0);         // the gate off
    CHECK(count_containing(warnings(m2(1, 2), m2(1, 4), gated), fails) == 0);  // a scale-up
  }
  SECTION("a list as long as the old count covers every Job that stays") {
    const Json listed = with(m2(1, 4), "/status/replicatedJobsStatus",
                             {{{"name", "b"}, {"jobRestarts", {0, 1, 0, 0}}}});
    CHECK(count_containing(warnings(listed, m2(1, 2), gated), fails) == 0);
    const Json shorter = with(m2(1, 4), "/status/replicatedJobsStatus",
                              {{{"name", "b"}, {"jobRestarts", {0, 1, 0}}}});
    gated.elastic.scale_down = jobset_webhook::Policy::ScaleDown::kController;
    CHECK(has(warnings(shorter, m2(1, 1), gated),
              "replicatedJob \"b\" scaled down from 4 to 1: " + fails +
                  "3 is out of bounds for replicated job b\" (getChildJobs: a Job's index must be "
                  "below the length of its jobRestarts list, 3 here) until Job m2-b-3 is deleted "
                  "by the scale-down controller: meanwhile it updates no status and runs no "
                  "success or failure policy"));
  }
}

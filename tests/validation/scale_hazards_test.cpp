#include <algorithm>
#include <catch2/catch.hpp>

#include "jobset_webhook/validation/update.h"
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

std::vector<std::string> warnings(const Json& old_js, const Json& new_js) {
  const auto findings = v::validate_update(Parsed(old_js), Parsed(new_js), {});
  REQUIRE(findings.errors.empty());
  return findings.warnings;
}

bool has(const std::vector<std::string>& all, const std::string& warning) {
  return std::find(all.begin(), all.end(), warning) != all.end();
}

std::size_t count_containing(const std::vector<std::string>& all, const std::string& part) {
  return std::size_t(std::count_if(all.begin(), all.end(), [&](const std::string& w) {
    return w.find(part) != std::string::npos;
  }));
}

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
                  "Job m2-a-1 gets jobset.sigs.k8s.io/job-global-index 1, which Job m2-b-0 "
                  "already has; the Jobs that exist keep jobset.sigs.k8s.io/global-replicas 2 "
                  "(now 3) until the JobSet restarts"));
  }
  SECTION("up past the next replicatedJob: the collision is with the first index it reaches") {
    CHECK(has(warnings(m2(1, 2), m2(5, 2)),
              "replicatedJob \"a\" scaled up from 1 to 5: " + kShift +
                  "Job m2-a-1 gets jobset.sigs.k8s.io/job-global-index 1, which Job m2-b-0 "
                  "already has; the Jobs that exist keep jobset.sigs.k8s.io/global-replicas 3 "
                  "(now 7) until the JobSet restarts"));
  }
  SECTION("down: the later Jobs keep the indices of the old counts") {
    CHECK(has(warnings(m2(4, 2), m2(2, 2)),
              "replicatedJob \"a\" scaled down from 4 to 2: " + kShift +
                  "the Jobs of the replicatedJobs after it keep the "
                  "jobset.sigs.k8s.io/job-global-index they have (Job m2-b-0: 4, by the new "
                  "counts 2) and jobset.sigs.k8s.io/global-replicas 6 (now 4) until the JobSet "
                  "restarts"));
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

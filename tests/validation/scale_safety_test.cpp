#include <catch2/catch.hpp>

#include "jobset_webhook/validation/update.h"
#include "support/jobset_builder.h"
#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::JobSetBuilder;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::ReplicatedJobBuilder;

namespace {

// JobSet "js" in "default" whose one replicatedJob is rjob.
JobSetBuilder jobset_of(const ReplicatedJobBuilder& rjob) {
  return MakeJobSet("js").Namespace("default").ReplicatedJob(rjob);
}

ReplicatedJobBuilder workers(int replicas) {
  return MakeReplicatedJob("workers").Replicas(replicas);
}

const Json kRestartJobRule = {{"maxRestarts", 3},
                              {"rules", {{{"name", "restartOne"}, {"action", "RestartJob"}}}}};

// status.replicatedJobsStatus with these jobRestarts for "workers".
Json job_restarts(Json restarts) {
  return {{"replicatedJobsStatus", {{{"name", "workers"}, {"jobRestarts", std::move(restarts)}}}}};
}

Policy restart_job_gate() {
  Policy p;
  p.feature_gates.restart_job = true;
  return p;
}

struct Case {
  std::string name;
  Json old_js;
  Json new_js;
  std::string want;  // the errors as printed; empty when allowed
  Policy policy = {};
};

const std::string k55(55, 'w');
const std::string k45(45, 'p');

}  // namespace

// Upstream's ValidateCreate (pkg/webhooks/jobset_webhook.go, v0.12.0) checks these on CREATE
// only; each must still hold after a replicas change, in upstream's words, at the replicas.
TEST_CASE("A scale keeps every create rule that reads replicas", "[validation][scale_safety]") {
  const std::vector<Case> cases = {
      // validateCoordinator.
      {"scale-down below the coordinator's job index",
       jobset_of(workers(4).Indexed(1)).Coordinator("workers", 3).Obj(),
       jobset_of(workers(2).Indexed(1)).Coordinator("workers", 3).Obj(),
       "spec.replicatedJobs[0].replicas: Invalid value: 2: coordinator job index 3 is invalid for "
       "replicatedJob workers: every pod's coordinator label would name Job js-workers-3, which "
       "no longer exists; keep replicas at 4 or more, or set spec.coordinator.jobIndex below 2 "
       "in the same update"},
      {"scale-down that moves the coordinator too",
       jobset_of(workers(4).Indexed(1)).Coordinator("workers", 3).Obj(),
       jobset_of(workers(2).Indexed(1)).Coordinator("workers", 1).Obj(), ""},
      {"scale-down that keeps the coordinator's Job",
       jobset_of(workers(6).Indexed(1)).Coordinator("workers", 3).Obj(),
       jobset_of(workers(4).Indexed(1)).Coordinator("workers", 3).Obj(), ""},
      {"scale-down of another replicatedJob than the coordinator's",
       jobset_of(workers(4).Indexed(1)).Coordinator("leader", 3).Obj(),
       jobset_of(workers(2).Indexed(1)).Coordinator("leader", 3).Obj(), ""},
      {"scale-up towards a coordinator stored out of range",
       jobset_of(workers(2).Indexed(1)).Coordinator("workers", 3).Obj(),
       jobset_of(workers(3).Indexed(1)).Coordinator("workers", 3).Obj(), ""},
      // The product of replicas and parallelism.
      {"scale-up past 2147483647 pods", jobset_of(workers(1).Parallelism(1073741824)).Obj(),
       jobset_of(workers(3).Parallelism(1073741824)).Obj(),
       "spec.replicatedJobs[0].replicas: Invalid value: 3: the product of replicas and parallelism "
       "must not exceed 2147483647 for replicatedJob 'workers': keep replicas at most 1"},
      {"scale-down of a JobSet stored past 2147483647 pods",
       jobset_of(workers(4).Parallelism(1073741824)).Obj(),
       jobset_of(workers(3).Parallelism(1073741824)).Obj(), ""},
      // Job and pod names.
      {"scale-up to a Job name of 64 characters",
       jobset_of(MakeReplicatedJob(k55).Replicas(10)).Obj(),
       jobset_of(MakeReplicatedJob(k55).Replicas(10001)).Obj(),
       "spec.replicatedJobs[0].replicas: Invalid value: 10001: JobSet name is too long, job names "
       "generated for this JobSet will exceed 63 characters: \"js-" +
           k55 + "-10000\" has 64 characters; keep replicas at most 10000"},
      {"scale-up to the longest Job name that fits",
       jobset_of(MakeReplicatedJob(k55).Replicas(10)).Obj(),
       jobset_of(MakeReplicatedJob(k55).Replicas(10000)).Obj(), ""},
      {"scale-up to a pod name of 64 characters",
       jobset_of(MakeReplicatedJob(k45).Replicas(1).Indexed(10)).Obj(),
       jobset_of(MakeReplicatedJob(k45).Replicas(10000000).Indexed(10)).Obj(),
       "spec.replicatedJobs[0].replicas: Invalid value: 10000000: JobSet name is too long, pod "
       "names generated for this JobSet will exceed 63 characters: \"js-" +
           k45 + "-9999999-9-abcde\" has 64 characters; keep replicas at most 1000000"},
      // validateFailurePolicy, with the RestartJob gate.
      {"scale-up past 1024 with a RestartJob rule",
       jobset_of(workers(1000)).FailurePolicy(kRestartJobRule).Obj(),
       jobset_of(workers(1025)).FailurePolicy(kRestartJobRule).Obj(),
       "spec.replicatedJobs[0].replicas: Invalid value: 1025: JobSet cannot have a failure policy "
       "rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with "
       "replicas > 1024: keep replicas at most 1024",
       restart_job_gate()},
      {"scale-up to 1024 with a RestartJob rule",
       jobset_of(workers(1000)).FailurePolicy(kRestartJobRule).Obj(),
       jobset_of(workers(1024)).FailurePolicy(kRestartJobRule).Obj(), "", restart_job_gate()},
      {"scale-up past 1024 without a RestartJob rule", jobset_of(workers(1000)).Obj(),
       jobset_of(workers(1025)).Obj(), "", restart_job_gate()},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed old_js(c.old_js), new_js(c.new_js);
      CHECK(jobset_webhook::field::to_string(v::validate_update(old_js, new_js, c.policy).errors) ==
            c.want);
    }
  }
}

// Upstream's controller (pkg/controllers, v0.12.0): jobSetFinished stops the reconcile of a
// finished JobSet; with the RestartJob gate, labelAndAnnotateObject indexes
// status.replicatedJobsStatus[].jobRestarts by job index (getJobRestarts), and
// failurePolicyRecreateJob indexes jobRestartsCountTowardsMax the same way.
TEST_CASE("A scale fits the state the old object's status records", "[validation][scale_safety]") {
  const auto completed = [](const ReplicatedJobBuilder& rjob) {
    return jobset_of(rjob)
        .Status({{"conditions", {{{"type", "Completed"}, {"status", "True"}}}}})
        .Obj();
  };
  const std::vector<Case> cases = {
      {"scale of a Completed JobSet", completed(workers(2)), completed(workers(4)),
       "spec.replicatedJobs[0].replicas: Forbidden: Cannot mutate replicas when JobSet is in a "
       "terminal state (Completed or Failed): the JobSet controller creates and deletes no Job of "
       "a finished JobSet; create a new JobSet to run again"},
      {"scale of a Failed JobSet",
       jobset_of(workers(2))
           .Status({{"conditions", {{{"type", "Failed"}, {"status", "True"}}}}})
           .Obj(),
       jobset_of(workers(1)).Obj(),
       "spec.replicatedJobs[0].replicas: Forbidden: Cannot mutate replicas when JobSet is in a "
       "terminal state (Completed or Failed): the JobSet controller creates and deletes no Job of "
       "a finished JobSet; create a new JobSet to run again"},
      {"scale of a JobSet whose Completed condition is False",
       jobset_of(workers(2))
           .Status({{"conditions", {{{"type", "Completed"}, {"status", "False"}}}}})
           .Obj(),
       jobset_of(workers(4)).Obj(), ""},
      {"scale-up past jobRestarts", jobset_of(workers(2)).Status(job_restarts({0, 1})).Obj(),
       jobset_of(workers(3)).Obj(),
       "spec.replicatedJobs[0].replicas: Invalid value: 3: job index 2 is out of bounds for "
       "replicated job workers: status.replicatedJobsStatus[0].jobRestarts has 2 entries, which "
       "the JobSet controller (RestartJob feature gate) reads by job index and never lengthens; "
       "keep replicas at most 2",
       restart_job_gate()},
      {"scale-up past jobRestartsCountTowardsMax",
       jobset_of(workers(1))
           .Set("/status/replicatedJobsStatus", {{{"name", "other"}},
                                                 {{"name", "workers"},
                                                  {"jobRestarts", {0, 0, 0}},
                                                  {"jobRestartsCountTowardsMax", {1}}}})
           .Obj(),
       jobset_of(workers(2)).Obj(),
       "spec.replicatedJobs[0].replicas: Invalid value: 2: job index 1 is out of bounds for "
       "replicated job workers: status.replicatedJobsStatus[1].jobRestartsCountTowardsMax has 1 "
       "entries, which the JobSet controller (RestartJob feature gate) reads by job index and "
       "never lengthens; keep replicas at most 1",
       restart_job_gate()},
      {"scale-up within jobRestarts", jobset_of(workers(1)).Status(job_restarts({0, 1})).Obj(),
       jobset_of(workers(2)).Obj(), "", restart_job_gate()},
      {"scale-up with empty jobRestarts",
       jobset_of(workers(1)).Status(job_restarts(Json::array())).Obj(), jobset_of(workers(4)).Obj(),
       "", restart_job_gate()},
      {"scale-down below jobRestarts", jobset_of(workers(4)).Status(job_restarts({0, 1})).Obj(),
       jobset_of(workers(3)).Obj(), "", restart_job_gate()},
      {"scale-up past jobRestarts without the RestartJob gate",
       jobset_of(workers(2)).Status(job_restarts({0, 1})).Obj(), jobset_of(workers(3)).Obj(), ""},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed old_js(c.old_js), new_js(c.new_js);
      CHECK(jobset_webhook::field::to_string(v::validate_update(old_js, new_js, c.policy).errors) ==
            c.want);
    }
  }
}

TEST_CASE("A scale of a JobSet managed elsewhere promises no Job", "[validation][scale_safety]") {
  const auto managed = [](const ReplicatedJobBuilder& rjob, const std::string& by) {
    return jobset_of(rjob).ManagedBy(by).Obj();
  };
  const std::string kMultiKueue = "kueue.x-k8s.io/multikueue";
  Policy controller;
  controller.elastic.scale_down = Policy::ScaleDown::kController;
  const struct {
    std::string name;
    Json old_js, new_js;
    Policy policy;
    std::vector<std::string> want;
  } cases[] = {
      {"scale-up",
       managed(workers(2), kMultiKueue),
       managed(workers(4), kMultiKueue),
       {},
       {"replicatedJob \"workers\" scaled up from 2 to 4: \"kueue.x-k8s.io/multikueue\" manages "
        "this JobSet (spec.managedBy): the JobSet controller creates no Job; Jobs js-workers-2, "
        "js-workers-3 are for it to create"}},
      {"scale-down",
       managed(workers(2), kMultiKueue),
       managed(workers(1), kMultiKueue),
       {},
       {"replicatedJob \"workers\" scaled down from 2 to 1: \"kueue.x-k8s.io/multikueue\" manages "
        "this JobSet (spec.managedBy): the JobSet controller deletes no Job; Job js-workers-1 is "
        "for it to delete"}},
      {"scale-down with the scale-down controller",
       managed(workers(3), kMultiKueue),
       managed(workers(1), kMultiKueue),
       controller,
       {"replicatedJob \"workers\" scaled down from 3 to 1: \"kueue.x-k8s.io/multikueue\" manages "
        "this JobSet (spec.managedBy): the JobSet controller and the scale-down controller delete "
        "no Job; Jobs js-workers-1, js-workers-2 are for it to delete"}},
      {"managed by the JobSet controller itself",
       managed(workers(1), "jobset.sigs.k8s.io/jobset-controller"),
       managed(workers(2), "jobset.sigs.k8s.io/jobset-controller"),
       {},
       {"replicatedJob \"workers\" scaled up from 1 to 2: the JobSet controller will create Job "
        "js-workers-1",
        "replicatedJob \"workers\" scaled up from 1 to 2: upstream's JobSet controller writes the "
        "replica counts into the labels and annotations of a Job and its pods only when it "
        "creates the Job, so until the JobSet restarts the Jobs that exist and their pods (and a "
        "workload that reads the counts through the downward API) keep the old ones: Job "
        "js-workers-0 keeps jobset.sigs.k8s.io/replicatedjob-replicas, "
        "jobset.sigs.k8s.io/global-replicas and jobset.sigs.k8s.io/group-replicas 1 (now 2)"}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed old_js(c.old_js), new_js(c.new_js);
      const auto findings = v::validate_update(old_js, new_js, c.policy);
      REQUIRE(findings.errors.empty());
      CHECK(jobset_webhook::field::texts(findings.warnings) == c.want);
    }
  }
}

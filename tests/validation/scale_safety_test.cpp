#include <catch2/catch.hpp>

#include "jobset_webhook/validation/update.h"
#include "support/json_edit.h"
#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::with;

namespace {

Json jobset(const std::string& rjob, int replicas) {
  return {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
          {"kind", "JobSet"},
          {"metadata", {{"name", "js"}, {"namespace", "default"}}},
          {"spec",
           {{"replicatedJobs",
             {{{"name", rjob},
               {"replicas", replicas},
               {"template",
                {{"spec",
                  {{"template",
                    {{"spec",
                      {{"containers", {{{"name", "main"}, {"image", "bash:5.1"}}}}}}}}}}}}}}}}}};
}

Json workers(int replicas) { return jobset("workers", replicas); }

const std::string kReplicas = "/spec/replicatedJobs/0/replicas";
const std::string kJobSpec = "/spec/replicatedJobs/0/template/spec";

Json indexed(Json js, int completions) {
  return with(with(std::move(js), kJobSpec + "/completionMode", "Indexed"),
              kJobSpec + "/completions", completions);
}

Json with_coordinator(Json js, int job_index) {
  return with(std::move(js), "/spec/coordinator",
              {{"replicatedJob", "workers"}, {"jobIndex", job_index}, {"podIndex", 0}});
}

Json with_restart_job_rule(Json js) {
  return with(
      std::move(js), "/spec/failurePolicy",
      {{"maxRestarts", 3}, {"rules", {{{"name", "restartOne"}, {"action", "RestartJob"}}}}});
}

Json with_job_restarts(Json js, Json job_restarts) {
  return with(std::move(js), "/status/replicatedJobsStatus",
              {{{"name", "workers"}, {"jobRestarts", std::move(job_restarts)}}});
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
      {"scale-down below the coordinator's job index", with_coordinator(indexed(workers(4), 1), 3),
       with_coordinator(indexed(workers(2), 1), 3),
       "spec.replicatedJobs[0].replicas: Invalid value: 2: coordinator job index 3 is invalid for "
       "replicatedJob workers: every pod's coordinator label would name Job js-workers-3, which "
       "no longer exists; keep replicas at 4 or more, or set spec.coordinator.jobIndex below 2 "
       "in the same update"},
      {"scale-down that moves the coordinator too", with_coordinator(indexed(workers(4), 1), 3),
       with_coordinator(indexed(workers(2), 1), 1), ""},
      {"scale-down that keeps the coordinator's Job", with_coordinator(indexed(workers(6), 1), 3),
       with_coordinator(indexed(workers(4), 1), 3), ""},
      {"scale-down of another replicatedJob than the coordinator's",
       with(with_coordinator(indexed(workers(4), 1), 3), "/spec/coordinator/replicatedJob",
            "leader"),
       with(with_coordinator(indexed(workers(2), 1), 3), "/spec/coordinator/replicatedJob",
            "leader"),
       ""},
      {"scale-up towards a coordinator stored out of range",
       with_coordinator(indexed(workers(2), 1), 3), with_coordinator(indexed(workers(3), 1), 3),
       ""},
      // The product of replicas and parallelism.
      {"scale-up past 2147483647 pods", with(workers(1), kJobSpec + "/parallelism", 1073741824),
       with(workers(3), kJobSpec + "/parallelism", 1073741824),
       "spec.replicatedJobs[0].replicas: Invalid value: 3: the product of replicas and parallelism "
       "must not exceed 2147483647 for replicatedJob 'workers': keep replicas at most 1"},
      {"scale-down of a JobSet stored past 2147483647 pods",
       with(workers(4), kJobSpec + "/parallelism", 1073741824),
       with(workers(3), kJobSpec + "/parallelism", 1073741824), ""},
      // Job and pod names.
      {"scale-up to a Job name of 64 characters", jobset(k55, 10), jobset(k55, 10001),
       "spec.replicatedJobs[0].replicas: Invalid value: 10001: JobSet name is too long, job names "
       "generated for this JobSet will exceed 63 characters: \"js-" +
           k55 + "-10000\" has 64 characters; keep replicas at most 10000"},
      {"scale-up to the longest Job name that fits", jobset(k55, 10), jobset(k55, 10000), ""},
      {"scale-up to a pod name of 64 characters", indexed(jobset(k45, 1), 10),
       indexed(jobset(k45, 10000000), 10),
       "spec.replicatedJobs[0].replicas: Invalid value: 10000000: JobSet name is too long, pod "
       "names generated for this JobSet will exceed 63 characters: \"js-" +
           k45 + "-9999999-9-abcde\" has 64 characters; keep replicas at most 1000000"},
      // validateFailurePolicy, with the RestartJob gate.
      {"scale-up past 1024 with a RestartJob rule", with_restart_job_rule(workers(1000)),
       with_restart_job_rule(workers(1025)),
       "spec.replicatedJobs[0].replicas: Invalid value: 1025: JobSet cannot have a failure policy "
       "rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with "
       "replicas > 1024: keep replicas at most 1024",
       restart_job_gate()},
      {"scale-up to 1024 with a RestartJob rule", with_restart_job_rule(workers(1000)),
       with_restart_job_rule(workers(1024)), "", restart_job_gate()},
      {"scale-up past 1024 without a RestartJob rule", workers(1000), workers(1025), "",
       restart_job_gate()},
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
  const auto completed = [](Json js) {
    return with(std::move(js), "/status/conditions", {{{"type", "Completed"}, {"status", "True"}}});
  };
  const std::vector<Case> cases = {
      {"scale of a Completed JobSet", completed(workers(2)), completed(workers(4)),
       "spec.replicatedJobs[0].replicas: Forbidden: Cannot mutate replicas when JobSet is in a "
       "terminal state (Completed or Failed): the JobSet controller creates and deletes no Job of "
       "a finished JobSet; create a new JobSet to run again"},
      {"scale of a Failed JobSet",
       with(workers(2), "/status/conditions", {{{"type", "Failed"}, {"status", "True"}}}),
       workers(1),
       "spec.replicatedJobs[0].replicas: Forbidden: Cannot mutate replicas when JobSet is in a "
       "terminal state (Completed or Failed): the JobSet controller creates and deletes no Job of "
       "a finished JobSet; create a new JobSet to run again"},
      {"scale of a JobSet whose Completed condition is False",
       with(workers(2), "/status/conditions", {{{"type", "Completed"}, {"status", "False"}}}),
       workers(4), ""},
      {"scale-up past jobRestarts", with_job_restarts(workers(2), {0, 1}), workers(3),
       "spec.replicatedJobs[0].replicas: Invalid value: 3: job index 2 is out of bounds for "
       "replicated job workers: status.replicatedJobsStatus[0].jobRestarts has 2 entries, which "
       "the JobSet controller (RestartJob feature gate) reads by job index and never lengthens; "
       "keep replicas at most 2",
       restart_job_gate()},
      {"scale-up past jobRestartsCountTowardsMax",
       with(workers(1), "/status/replicatedJobsStatus",
            {{{"name", "other"}},
             {{"name", "workers"},
              {"jobRestarts", {0, 0, 0}},
              {"jobRestartsCountTowardsMax", {1}}}}),
       workers(2),
       "spec.replicatedJobs[0].replicas: Invalid value: 2: job index 1 is out of bounds for "
       "replicated job workers: status.replicatedJobsStatus[1].jobRestartsCountTowardsMax has 1 "
       "entries, which the JobSet controller (RestartJob feature gate) reads by job index and "
       "never lengthens; keep replicas at most 1",
       restart_job_gate()},
      {"scale-up within jobRestarts", with_job_restarts(workers(1), {0, 1}), workers(2), "",
       restart_job_gate()},
      {"scale-up with empty jobRestarts", with_job_restarts(workers(1), Json::array()), workers(4),
       "", restart_job_gate()},
      {"scale-down below jobRestarts", with_job_restarts(workers(4), {0, 1}), workers(3), "",
       restart_job_gate()},
      {"scale-up past jobRestarts without the RestartJob gate",
       with_job_restarts(workers(2), {0, 1}), workers(3), ""},
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
  const auto managed = [](Json js, const std::string& by) {
    return with(std::move(js), "/spec/managedBy", by);
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
        "js-workers-1"}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed old_js(c.old_js), new_js(c.new_js);
      const auto findings = v::validate_update(old_js, new_js, c.policy);
      REQUIRE(findings.errors.empty());
      CHECK(findings.warnings == c.want);
    }
  }
}

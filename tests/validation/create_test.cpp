// Upstream's TestValidateCreate (kubernetes-sigs/jobset v0.12.0,
// pkg/webhooks/jobset_webhook_test.go) translated to JSON, plus the two generateName cases main
// added. Upstream checks substrings and tolerates extra errors; these cases pin the whole answer,
// so where upstream's input also trips other rules (an unnamed rule, a too-long name) the extra
// errors are spelled out.

#include "jobset_webhook/decide.h"
#include "jobset_webhook/validation/create.h"

#include <catch2/catch.hpp>

#include "support/jobset_builder.h"
#include "support/json_edit.h"
#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::ReplicatedJobBuilder;
using jobset_webhook::testing::with;

namespace {

// A ReplicatedJob as upstream's cases write it: groupName "default", one replica, one container
// "test" running bash:latest.
ReplicatedJobBuilder rjob(const std::string& name) {
  return MakeReplicatedJob(name).GroupName("default").Container("test", "bash:latest");
}

// Its container mounting this volume at /test/path.
ReplicatedJobBuilder mounting(const std::string& name, const std::string& volume) {
  return rjob(name).VolumeMount(volume, "/test/path");
}

// Indexed, with these completions and parallelism.
ReplicatedJobBuilder indexed(const std::string& name, std::int64_t completions,
                             std::int64_t parallelism) {
  return rjob(name).Indexed(completions).Parallelism(parallelism);
}

Policy gates(bool in_place_restart, bool restart_job) {
  Policy p;
  p.feature_gates.in_place_restart = in_place_restart;
  p.feature_gates.restart_job = restart_job;
  return p;
}

struct Case {
  std::string name;
  Json js;
  std::string want;  // the errors as a rejection prints them; empty when allowed
  Policy policy = {};
};

void run_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed js(c.js);
      CHECK(jobset_webhook::field::to_string(v::validate_create_rules(js, c.policy)) == c.want);
    }
  }
}

const std::string kA56(56, 'a');
const std::string kA60(60, 'a');
const std::string kA62(62, 'a');
const std::string kA64(64, 'a');
const std::string kRuleNameFormat =
    "a failure policy rule name must start with an alphabetic character, optionally followed by a "
    "string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const std::string kDns1035Format =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, "
    "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";

}  // namespace

TEST_CASE("Upstream's general create cases, translated", "[validation][create]") {
  const Json all = {{"operator", "All"}};
  run_cases({
      {"number of pods exceeds the limit",
       MakeJobSet("js")
           .ReplicatedJob(
               rjob("test-jobset-replicated-job-0").Replicas(2147483647).Parallelism(2147483647))
           .ReplicatedJob(rjob("test-jobset-replicated-job-1")
                              .Replicas(-2147483648LL)
                              .Parallelism(-2147483648LL))
           .SuccessPolicy(all)
           .Obj(),
       "[<nil>: Internal error: the product of replicas and parallelism must not exceed 2147483647 "
       "for replicatedJob "
       "'test-jobset-replicated-job-0', <nil>: Internal error: the product of replicas and "
       "parallelism must not exceed "
       "2147483647 for replicatedJob 'test-jobset-replicated-job-1']"},
      {"number of pods within the limit",
       MakeJobSet("js")
           .ReplicatedJob(rjob("test-jobset-replicated-job-0"))
           .SuccessPolicy(all)
           .Obj(),
       ""},
      {"success policy has non matching replicated job",
       MakeJobSet("js")
           .ReplicatedJob(rjob("test-jobset-replicated-job-0"))
           .SuccessPolicy({{"operator", "All"}, {"targetReplicatedJobs", {"does not exist"}}})
           .Obj(),
       "<nil>: Internal error: invalid replicatedJob name 'does not exist' does not appear in "
       ".spec.ReplicatedJobs"},
      {"network has invalid dns name",
       MakeJobSet("js")
           .EnableDNSHostnames(true)
           .NetworkSubdomain(kA64)
           .ReplicatedJob(rjob("test-jobset-replicated-job-0"))
           .SuccessPolicy(all)
           .Obj(),
       "spec.network.subdomain: Invalid value: \"" + kA64 +
           "\": .spec.network.subdomain is too long, must be less than 63 characters"},
      {"jobset name with invalid character",
       MakeJobSet("js").ReplicatedJob(rjob("username.llama65b")).SuccessPolicy(all).Obj(),
       "spec.replicatedJobs[0].name: Invalid value: \"js-username.llama65b-0\": " + kDns1035Format},
      {"group name is not DNS 1035 compliant",
       MakeJobSet("js").ReplicatedJob(rjob("rj").GroupName(kA64)).SuccessPolicy(all).Obj(),
       "spec.replicatedJobs[0].groupName: Invalid value: \"" + kA64 +
           "\": .spec.replicatedJob[].groupName is too long, must be less than 63 characters"},
      {"jobset name will result in job name being too long",
       MakeJobSet(kA62).ReplicatedJob(rjob("rj").Replicas(101)).SuccessPolicy(all).Obj(),
       "spec.replicatedJobs[0].name: Invalid value: \"" + kA62 +
           "-rj-100\": JobSet name is too long, job names generated for this JobSet will exceed 63 "
           "characters"},
      {"jobset name will result in a pod name being too long",
       MakeJobSet(kA56).ReplicatedJob(indexed("rj", 1, 1)).SuccessPolicy(all).Obj(),
       "spec.replicatedJobs[0].name: Invalid value: \"" + kA56 +
           "-rj-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 "
           "characters"},
  });
}

TEST_CASE("Upstream's managedBy create cases, translated", "[validation][create]") {
  const auto spec = [](const std::string& managed_by) {
    auto js = MakeJobSet("js").ReplicatedJob(indexed("rj", 1, 1)).SuccessPolicy(Json::object());
    if (!managed_by.empty()) js.ManagedBy(managed_by);
    return js.Obj();
  };
  run_cases({
      {"jobset controller name is not a domain-prefixed path",
       spec("notDomainPrefixedPathControllerName"),
       R"(spec.managedBy: Invalid value: "notDomainPrefixedPathControllerName": must be a domain-prefixed path (such as "acme.io/foo"))"},
      {"jobset controller name is too long", spec("foo.bar/" + std::string(63, 'a')),
       "spec.managedBy: Too long: may not be more than 63 bytes"},
      {"jobset controller name is set and valid", spec("jobset.sigs.k8s.io/jobset-controller"), ""},
      {"jobset controller name is unset", spec(""), ""},
  });
}

TEST_CASE("Upstream's failure policy create cases, translated", "[validation][create]") {
  const auto spec = [](Json failure_policy) {
    return MakeJobSet("js")
        .ReplicatedJob(indexed("rj", 1, 1))
        .FailurePolicy(std::move(failure_policy))
        .SuccessPolicy(Json::object())
        .Obj();
  };
  const std::string length0 =
      "<nil>: Internal error: invalid failure policy rule name of length 0, the rule name must be "
      "at least 1 characters "
      "long and at most 128 characters long";
  const std::string unnamed =
      "<nil>: Internal error: invalid failure policy rule name '', " + kRuleNameFormat;
  const auto restart_job = [](const char* action, const char* name, std::int64_t replicas) {
    return MakeJobSet("js")
        .ReplicatedJob(indexed("rj", 1, 1).Replicas(replicas))
        .FailurePolicy({{"rules", {{{"action", action}, {"name", name}}}}})
        .SuccessPolicy(Json::object())
        .Obj();
  };
  run_cases({
      {"failure policy rule name is valid",
       spec({{"rules", {{{"name", "superAwesomeFailurePolicyRule"}}}}}), ""},
      {"jobset failure policy has an invalid on job failure reason",
       spec({{"maxRestarts", 1},
             {"rules", {{{"action", "FailJobSet"}, {"onJobFailureReasons", {"fakeReason"}}}}}}),
       "[" + length0 + ", " + unnamed +
           ", <nil>: Internal error: invalid job failure reason 'fakeReason' in failure policy is "
           "not a recognized job "
           "failure reason]"},
      {"jobset failure policy has an invalid replicated job",
       spec({{"maxRestarts", 1},
             {"rules",
              {{{"action", "FailJobSet"}, {"targetReplicatedJobs", {"fakeReplicatedJob"}}}}}}),
       "[" + length0 + ", " + unnamed +
           ", <nil>: Internal error: invalid replicatedJob name 'fakeReplicatedJob' in failure "
           "policy does not appear in "
           ".spec.ReplicatedJobs]"},
      {"jobset failure policy rule name is 0 characters long a.k.a unset",
       spec({{"rules", {Json::object()}}}), "[" + length0 + ", " + unnamed + "]"},
      {"jobset failure policy rule name is greater than 128 characters long",
       spec({{"rules", {{{"name", std::string(129, 'a')}}}}}),
       "<nil>: Internal error: invalid failure policy rule name of length 129, the rule name must "
       "be at least 1 "
       "characters long and at most 128 characters long"},
      {"there are two failure policy rules with the same name",
       spec({{"rules", {{{"name", "repeatedRuleName"}}, {{"name", "repeatedRuleName"}}}}}),
       "<nil>: Internal error: rule names are not unique, rules with indices [0 1] all have the "
       "same name "
       "'repeatedRuleName'"},
      {"failure policy rule name does not start with an alphabetic character",
       spec({{"rules", {{{"name", "1ruleToRuleThemAll"}}}}}),
       "<nil>: Internal error: invalid failure policy rule name '1ruleToRuleThemAll', " +
           kRuleNameFormat},
      {"failure policy rule name does not end with an alphanumeric nor '_'",
       spec({{"rules", {{{"name", "ruleToRuleThemAll,"}}}}}),
       "<nil>: Internal error: invalid failure policy rule name 'ruleToRuleThemAll,', " +
           kRuleNameFormat},
      {"jobset failure policy rule has RestartJob action and a replicated job with replicas > 1024",
       restart_job("RestartJob", "restartJobRule", 1025),
       "<nil>: Internal error: JobSet cannot have a failure policy rule with RestartJob or "
       "RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > 1024",
       gates(false, true)},
      {"jobset failure policy rule has RestartJobAndIgnoreMaxRestarts action and a replicated job "
       "with replicas > 1024",
       restart_job("RestartJobAndIgnoreMaxRestarts", "restartJobAndIgnoreMaxRestartsRule", 1025),
       "<nil>: Internal error: JobSet cannot have a failure policy rule with RestartJob or "
       "RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > 1024",
       gates(false, true)},
      {"jobset failure policy rule has RestartJob action and RestartJob feature gate is disabled",
       restart_job("RestartJob", "restartJobRule", 1),
       "<nil>: Internal error: RestartJob and RestartJobAndIgnoreMaxRestarts failure policy "
       "actions are not allowed "
       "when RestartJob feature gate is disabled"},
      {"jobset failure policy rule has RestartJobAndIgnoreMaxRestarts action and RestartJob "
       "feature gate is disabled",
       restart_job("RestartJobAndIgnoreMaxRestarts", "restartJobAndIgnoreMaxRestartsRule", 1),
       "<nil>: Internal error: RestartJob and RestartJobAndIgnoreMaxRestarts failure policy "
       "actions are not allowed "
       "when RestartJob feature gate is disabled"},
      // Not upstream's: with the gate off, upstream returns before the other rule checks.
      {"a disabled RestartJob action hides the other failure policy errors",
       spec({{"rules",
              {{{"action", "RestartJob"}},
               {{"name", "1bad"}, {"targetReplicatedJobs", {"nope"}}}}}}),
       "<nil>: Internal error: RestartJob and RestartJobAndIgnoreMaxRestarts failure policy "
       "actions are not allowed "
       "when RestartJob feature gate is disabled"},
  });
}

TEST_CASE("Upstream's coordinator create cases, translated", "[validation][create]") {
  const auto two_jobs = [](const ReplicatedJobBuilder& a, const std::string& rj, int job, int pod) {
    return MakeJobSet("js")
        .Coordinator(rj, job, pod)
        .ReplicatedJob(a)
        .ReplicatedJob(indexed("replicatedjob-b", 2, 2).Replicas(2))
        .SuccessPolicy(Json::object())
        .Obj();
  };
  const auto indexed_a = indexed("replicatedjob-a", 2, 2).Replicas(2);
  const auto label_error = [](const std::string& endpoint) {
    return "<nil>: Internal error: spec will lead to invalid label value \"" + endpoint +
           "\" for coordinator label \"jobset.sigs.k8s.io/coordinator\" (long JobSet / "
           "ReplicatedJob / SubDomain "
           "name?): must be no more than 63 bytes";
  };
  const std::string job_too_long =
      "JobSet name is too long, job names generated for this JobSet will exceed 63 characters";
  const std::string pod_too_long =
      "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters";
  run_cases({
      {"coordinator replicated job does not exist", two_jobs(indexed_a, "fake-rjob", 0, 0),
       "<nil>: Internal error: coordinator replicatedJob fake-rjob does not exist"},
      {"coordinator replicated job missing completions",
       two_jobs(rjob("replicatedjob-a").Replicas(2).CompletionMode("Indexed").Parallelism(2),
                "replicatedjob-a", 0, 0),
       "<nil>: Internal error: job for coordinator pod must be indexed completion mode, and "
       "completions number must be set"},
      {"coordinator job index invalid", two_jobs(indexed_a, "replicatedjob-a", 2, 0),
       "<nil>: Internal error: coordinator job index 2 is invalid for replicatedJob "
       "replicatedjob-a"},
      {"coordinator pod index invalid", two_jobs(indexed_a, "replicatedjob-a", 0, 2),
       "<nil>: Internal error: coordinator pod index 2 is invalid for replicatedJob "
       "replicatedjob-a job index 0"},
      {"coordinator label value is too long due to long JobSet name",
       MakeJobSet(kA60)
           .Coordinator("replicatedjob-a", 0, 0)
           .ReplicatedJob(indexed("replicatedjob-a", 1, 1))
           .SuccessPolicy(Json::object())
           .Obj(),
       "[spec.replicatedJobs[0].name: Invalid value: \"" + kA60 + "-replicatedjob-a-0\": " +
           job_too_long + ", spec.replicatedJobs[0].name: Invalid value: \"" + kA60 +
           "-replicatedjob-a-0\": " + pod_too_long + ", " +
           label_error(kA60 + "-replicatedjob-a-0-0." + kA60) + "]"},
      {"coordinator label value is too long due to long ReplicatedJob name",
       MakeJobSet("jobset")
           .Coordinator(kA60, 0, 0)
           .ReplicatedJob(indexed(kA60, 1, 1))
           .SuccessPolicy(Json::object())
           .Obj(),
       "[spec.replicatedJobs[0].name: Invalid value: \"jobset-" + kA60 + "-0\": " + job_too_long +
           ", spec.replicatedJobs[0].name: Invalid value: \"jobset-" + kA60 +
           "-0\": " + pod_too_long + ", " + label_error("jobset-" + kA60 + "-0-0.jobset") + "]"},
      {"coordinator label value is too long due to long SubDomain",
       MakeJobSet("jobset")
           .NetworkSubdomain(kA60)
           .Coordinator("replicatedjob-a", 0, 0)
           .ReplicatedJob(indexed("replicatedjob-a", 1, 1))
           .SuccessPolicy(Json::object())
           .Obj(),
       label_error("jobset-replicatedjob-a-0-0." + kA60)},
  });
}

TEST_CASE("Upstream's dependsOn create cases, translated", "[validation][create]") {
  using Names = std::initializer_list<const char*>;
  const auto three = [](Names deps2, Names deps3) {
    auto rj2 = rjob("job-2"), rj3 = rjob("job-3");
    for (const char* d : deps2) rj2.DependsOn(d);
    for (const char* d : deps3) rj3.DependsOn(d);
    return MakeJobSet("js")
        .SuccessPolicy(Json::object())
        .ReplicatedJob(rjob("job-1"))
        .ReplicatedJob(rj2)
        .ReplicatedJob(rj3)
        .Obj();
  };
  run_cases({
      {"DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-1",
       three({"job-1"}, {"job-1"}), ""},
      {"DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-2",
       three({"job-1"}, {"job-2"}), ""},
      {"DependsOn is valid since job-3 depends on job-1 and job-2", three({}, {"job-1", "job-2"}),
       ""},
      {"DependsOn is invalid since job-2 depends on job-3", three({"job-3"}, {"job-1"}),
       "<nil>: Internal error: replicatedJob: job-2 cannot depend on replicatedJob: job-3"},
      {"DependsOn is invalid since job-2 depends on job-3 and job-1",
       three({"job-1", "job-3"}, {"job-1"}),
       "<nil>: Internal error: replicatedJob: job-2 cannot depend on replicatedJob: job-3"},
      {"job-2 depends on invalid ReplicatedJob",
       MakeJobSet("js")
           .SuccessPolicy(Json::object())
           .ReplicatedJob(rjob("job-1"))
           .ReplicatedJob(rjob("job-2").DependsOn("invalid"))
           .Obj(),
       "<nil>: Internal error: replicatedJob: job-2 cannot depend on replicatedJob: invalid"},
      {"dependsOn should not fail if there are no replicated jobs",
       MakeJobSet("js").SuccessPolicy(Json::object()).Obj(), ""},
      {"dependsOn cannot be set for first replicated job",
       MakeJobSet("js")
           .SuccessPolicy(Json::object())
           .ReplicatedJob(rjob("job-1").DependsOn("invalid"))
           .Obj(),
       "[<nil>: Internal error: DependsOn can't be set for the first ReplicatedJob, <nil>: "
       "Internal error: "
       "replicatedJob: job-1 cannot depend on replicatedJob: invalid]"},
      // Not upstream's: Go sees a non-nil empty slice; and a job may name itself.
      {"an explicit empty dependsOn on the first replicated job is rejected too",
       MakeJobSet("js")
           .SuccessPolicy(Json::object())
           .ReplicatedJob(rjob("job-1").Set("/dependsOn", Json::array()))
           .Obj(),
       "<nil>: Internal error: DependsOn can't be set for the first ReplicatedJob"},
      {"a replicated job may depend on itself, as upstream allows",
       MakeJobSet("js")
           .SuccessPolicy(Json::object())
           .ReplicatedJob(rjob("job-1"))
           .ReplicatedJob(rjob("job-2").DependsOn("job-2"))
           .Obj(),
       ""},
  });
}

TEST_CASE("Upstream's volumeClaimPolicy create cases, translated", "[validation][create]") {
  // job-1 mounting this volume; its JobSet claims it (with this retention policy).
  const auto claimed = [](const std::string& volume, const std::string& when_deleted = "Delete") {
    return MakeJobSet("js")
        .SuccessPolicy(Json::object())
        .VolumeClaimPolicy(volume, when_deleted)
        .ReplicatedJob(mounting("job-1", volume));
  };
  run_cases({
      {"volumeClaimPolicy is valid since volume exists in the container",
       claimed("test-volume").Obj(), ""},
      {"volumeClaimPolicy is valid since volume exists in the initContainer",
       MakeJobSet("js")
           .SuccessPolicy(Json::object())
           .VolumeClaimPolicy("test-volume")
           .ReplicatedJob(rjob("job-1"))
           .ReplicatedJob(
               rjob("job-2")
                   .Unset("/template/spec/template/spec/containers")
                   .AddInitContainer({{"name", "test-init"},
                                      {"image", "bash:latest"},
                                      {"volumeMounts",
                                       {{{"name", "test-volume"}, {"mountPath", "/test/path"}}}}}))
           .Obj(),
       ""},
      {"volumeClaimPolicy is invalid since template names are not unique",
       claimed("duplicate-volume").VolumeClaimPolicy("duplicate-volume", "Retain").Obj(),
       "spec.volumeClaimPolicies[1].template[0].name: Invalid value: \"duplicate-volume\": names "
       "must be unique for "
       "VolumeClaimPolicies template"},
      {"volumeClaimPolicy is invalid since template name has uppercase letters",
       claimed("InvalidVolumeName").Obj(),
       "spec.volumeClaimPolicies[0].template[0].name: Invalid value: \"InvalidVolumeName\": a "
       "lowercase RFC 1123 "
       "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
       "and end with an "
       "alphanumeric character (e.g. 'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"volumeClaimPolicy is invalid since template name is too long", claimed(kA64).Obj(),
       "spec.volumeClaimPolicies[0].template[0].name: Invalid value: \"" + kA64 +
           "\": VolumeClaimPolicies template name is too long"},
      {"volumeClaimPolicy is invalid since no matching volumeMount in containers",
       MakeJobSet("js")
           .SuccessPolicy(Json::object())
           .VolumeClaimPolicy("test-volume")
           .ReplicatedJob(rjob("job-1"))
           .Obj(),
       // The value is the replicatedJobs list as JSON, cut to 80 bytes.
       R"(spec.replicatedJobs: Invalid value: [{"groupName":"default","name":"job-1","replicas":1,"template":{"spec":{"temp...: )"
       "replicatedJob containers don't have a matching volumeMount: test-volume from "
       "VolumeClaimPolicies"},
      {"volumeClaimPolicy is invalid since volume name conflicts with existing volume",
       MakeJobSet("js")
           .SuccessPolicy(Json::object())
           .VolumeClaimPolicy("conflicting-volume")
           .ReplicatedJob(
               mounting("job-1", "conflicting-volume")
                   .AddVolume({{"name", "conflicting-volume"}, {"emptyDir", Json::object()}}))
           .Obj(),
       "spec.replicatedJobs[0].template.spec.template.spec.volumes[0].name: Invalid value: "
       "\"conflicting-volume\": "
       "volume name conflicts with VolumeClaimPolicy template name: conflicting-volume"},
      {"volumeClaimPolicy is valid when existing PVC matches template spec",
       claimed("test-volume", "Retain").Namespace("default").Obj(), ""},
  });
}

TEST_CASE("Checks that need an existing PVC from the cluster are not made",
          "[validation][create]") {
  // Upstream looks up the PVC <template>-<jobset> and, when it exists, rejects a template whose
  // spec differs from it ("spec does not match existing PVC ...") or a retention policy other than
  // Retain ("retentionPolicy must be retain when PVC exists"). Without cluster access the same
  // JobSets are accepted here: the PVC cannot be seen.
  const Parsed parsed(MakeJobSet("js")
                          .Namespace("default")
                          .SuccessPolicy(Json::object())
                          .VolumeClaimPolicy("test-volume", "Delete")
                          .ReplicatedJob(mounting("job-1", "test-volume"))
                          .Obj());
  CHECK(v::validate_create_rules(parsed, Policy{}).empty());
}

TEST_CASE("Upstream's in-place restart create cases, translated", "[validation][create]") {
  const auto spec = [](const Json& job_spec) {
    auto job_1 = rjob("job-1");
    for (const auto& [key, value] : job_spec.items()) job_1.JobSpec(key, value);
    return MakeJobSet("js")
        .SuccessPolicy(Json::object())
        .FailurePolicy({{"restartStrategy", "InPlaceRestart"}})
        .ReplicatedJob(job_1)
        .Obj();
  };
  const Json ready = {{"parallelism", 1},
                      {"completions", 1},
                      {"backoffLimit", 2147483647},
                      {"podReplacementPolicy", "Failed"}};
  const auto without = [](Json j, const char* key) {
    j.erase(key);
    return j;
  };
  const std::string unequal =
      "replicatedJob job-1: completions and parallelism must be set and equal to each other when "
      "in-place restart is enabled";
  run_cases({
      {"InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
       spec(Json::object()),
       "<nil>: Internal error: InPlaceRestart restart strategy cannot be set when InPlaceRestart "
       "feature gate is disabled"},
      {"InPlaceRestart restart strategy can be set when InPlaceRestart feature gate is enabled",
       spec(ready), "", gates(true, false)},
      {"InPlaceRestart enabled: backoffLimit is not MaxInt32",
       spec(with(ready, "/backoffLimit", 0)),
       "spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: 0: replicatedJob job-1: "
       "must be set to "
       "2147483647 (MaxInt32) when in-place restart is enabled",
       gates(true, false)},
      {"InPlaceRestart enabled: podReplacementPolicy is not Failed",
       spec(with(ready, "/podReplacementPolicy", "TerminatingOrFailed")),
       "spec.replicatedJobs[0].template.spec.podReplacementPolicy: Invalid value: "
       "\"TerminatingOrFailed\": "
       "replicatedJob job-1: must be set to Failed when in-place restart is enabled",
       gates(true, false)},
      {"InPlaceRestart enabled: completions != parallelism", spec(with(ready, "/completions", 2)),
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: 2: " + unequal,
       gates(true, false)},
      {"InPlaceRestart enabled: completions is nil", spec(without(ready, "completions")),
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: null: " + unequal,
       gates(true, false)},
      {"InPlaceRestart enabled: parallelism is nil", spec(without(ready, "parallelism")),
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: 1: " + unequal,
       gates(true, false)},
  });
}

TEST_CASE("Child names are checked against the name generateName will produce",
          "[validation][create]") {
  const std::string generate_name = std::string(49, 'a') + "-";
  const auto js = [&](const ReplicatedJobBuilder& rjob) {
    return MakeJobSet("")
        .GenerateName(generate_name)
        .ReplicatedJob(rjob)
        .SuccessPolicy({{"operator", "All"}});
  };
  run_cases({
      {"generateName that produces overlong child job names is rejected", js(rjob("worker")).Obj(),
       "spec.replicatedJobs[0].name: Invalid value: \"" + generate_name +
           "xxxxx-worker-0\": JobSet name is too long, job names generated for this JobSet will "
           "exceed 63 characters"},
      {"generateName that produces overlong PVC names is rejected",
       js(mounting("worker", "datasets")).VolumeClaimPolicy("datasets").Obj(),
       "[spec.replicatedJobs[0].name: Invalid value: \"" + generate_name +
           "xxxxx-worker-0\": JobSet name is too long, job names generated for this JobSet will "
           "exceed 63 characters, "
           "spec.volumeClaimPolicies[0].template[0].name: Invalid value: \"datasets\": "
           "VolumeClaimPolicies template "
           "name is too long]"},
  });
}

TEST_CASE("The name for validation is the name, else the one generateName will produce",
          "[validation][create]") {
  // Bare metadata, as text: the name is all that is read.
  CHECK(v::name_for_validation(Parsed(R"({"metadata":{"name":"js","generateName":"x-"}})")) ==
        "js");
  const Json long_prefix = {{"metadata", {{"generateName", std::string(60, 'a')}}}};
  const auto name = v::name_for_validation(Parsed(long_prefix));
  CHECK(name.size() == 63);
  CHECK(name.substr(0, 58) == std::string(58, 'a'));
  CHECK(v::name_for_validation(Parsed(R"({"metadata":{}})")).empty());
  CHECK(v::name_for_validation(Parsed(R"({})")).empty());
}

TEST_CASE("Wrong JSON types never crash the create rules", "[validation][create]") {
  // As text: wrong types and out-of-range numbers that no builder writes.
  const std::vector<std::string> inputs = {
      R"([])",
      R"("x")",
      R"({"spec":[]})",
      R"({"spec":{"replicatedJobs":{}}})",
      R"({"spec":{"replicatedJobs":[1,"x",null,[]]}})",
      R"({"metadata":{"name":5},"spec":{"replicatedJobs":[{"name":3,"replicas":"2","groupName":[],"dependsOn":"x","template":{"spec":{"parallelism":1.5,"completions":"x","completionMode":"Indexed"}}}]}})",
      R"({"spec":{"failurePolicy":"x","coordinator":[],"volumeClaimPolicies":{"a":1},"successPolicy":{"targetReplicatedJobs":[1,null]}}})",
      R"({"spec":{"failurePolicy":{"restartStrategy":"InPlaceRestart","rules":[1,{"name":[],"targetReplicatedJobs":"x","onJobFailureReasons":[2]}]},"replicatedJobs":[{"name":"a","replicas":99999999999999,"template":{"spec":{"parallelism":-99999999999999}}}]}})",
      R"({"spec":{"coordinator":{"replicatedJob":"a","jobIndex":1e300,"podIndex":-1},"replicatedJobs":[{"name":"a","template":{"spec":{"completionMode":"Indexed","completions":18446744073709551615}}}]}})",
      R"({"spec":{"volumeClaimPolicies":[{"templates":[1,{"metadata":[]},{"metadata":{"name":"x"}}]}],"replicatedJobs":[{"template":{"spec":{"template":{"spec":{"volumes":[1,{"name":"x"}],"containers":[{"volumeMounts":[null,{"name":"x"}]}]}}}}}]}})",
  };
  for (const auto& input : inputs) {
    DYNAMIC_SECTION(input) {
      const Parsed js(input);
      CHECK_NOTHROW(v::validate_create_rules(js, gates(true, true)));
      CHECK_NOTHROW(v::validate_create_rules(js, Policy{}));
      CHECK_NOTHROW(v::validate_create_schema(js));
      CHECK_NOTHROW(jobset_webhook::validate_create_after_defaults(js, Policy{}));
    }
  }
}

TEST_CASE("Errors without a field name the field that caused them as their origin",
          "[validation][create]") {
  const auto coordinated = [](Json coordinator,
                              const ReplicatedJobBuilder& a = indexed("a", 2, 2).Replicas(2)) {
    return MakeJobSet("js").Set("/spec/coordinator", std::move(coordinator)).ReplicatedJob(a).Obj();
  };
  const auto rule = [](const std::string& name, Json extra = Json::object()) {
    extra["name"] = name;
    if (!extra.contains("action")) extra["action"] = "FailJobSet";
    return extra;
  };
  struct OriginCase {
    std::string name;
    Json js;
    Policy policy;
    std::vector<std::string> want;  // the origins, in the errors' order
  };
  Policy restart_job;
  restart_job.feature_gates.restart_job = true;
  const std::vector<OriginCase> cases = {
      {"success policy targets",
       MakeJobSet("js")
           .ReplicatedJob(rjob("a"))
           .SuccessPolicy({{"operator", "All"}, {"targetReplicatedJobs", {"a", "x"}}})
           .Obj(),
       {},
       {"spec.successPolicy.targetReplicatedJobs[1]"}},
      {"failure policy rules",
       MakeJobSet("js")
           .ReplicatedJob(rjob("a"))
           .FailurePolicy(
               {{"rules",
                 {rule("r", {{"targetReplicatedJobs", {"a", "x"}}}),
                  rule("s", {{"onJobFailureReasons", {"Nope"}}}), rule("r"), rule("1bad")}}})
           .Obj(),
       {},
       {"spec.failurePolicy.rules[0].targetReplicatedJobs[1]",
        "spec.failurePolicy.rules[1].onJobFailureReasons[0]", "spec.failurePolicy.rules[3].name",
        "spec.failurePolicy.rules[2].name"}},
      {"RestartJob without its gate",
       MakeJobSet("js")
           .ReplicatedJob(rjob("a"))
           .FailurePolicy({{"rules", {rule("r"), rule("s", {{"action", "RestartJob"}})}}})
           .Obj(),
       {},
       {"spec.failurePolicy.rules[1].action"}},
      {"RestartJob with too many replicas",
       MakeJobSet("js")
           .ReplicatedJob(rjob("a"))
           .ReplicatedJob(rjob("b").Replicas(2000))
           .FailurePolicy({{"rules", {rule("s", {{"action", "RestartJob"}})}}})
           .Obj(),
       restart_job,
       {"spec.replicatedJobs[1].replicas"}},
      {"coordinator replicatedJob",
       coordinated({{"replicatedJob", "x"}}),
       {},
       {"spec.coordinator.replicatedJob"}},
      {"coordinator job index",
       coordinated({{"replicatedJob", "a"}, {"jobIndex", 5}}),
       {},
       {"spec.coordinator.jobIndex"}},
      {"coordinator pod index",
       coordinated({{"replicatedJob", "a"}, {"jobIndex", 0}, {"podIndex", 5}}),
       {},
       {"spec.coordinator.podIndex"}},
      {"coordinator job not indexed",
       coordinated({{"replicatedJob", "a"}}, rjob("a").Replicas(2).Parallelism(2)),
       {},
       {"spec.replicatedJobs[0].template.spec"}},
      {"dependsOn",
       MakeJobSet("js")
           .ReplicatedJob(rjob("a"))
           .ReplicatedJob(rjob("b").DependsOn("c", "Ready"))
           .Obj(),
       {},
       {"spec.replicatedJobs[1].dependsOn[0].name"}},
      {"dependsOn on the first",
       MakeJobSet("js").ReplicatedJob(rjob("a").Set("/dependsOn", Json::array())).Obj(),
       {},
       {"spec.replicatedJobs[0].dependsOn"}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed js(c.js);
      std::vector<std::string> origins;
      for (const auto& e : v::validate_create_rules(js, c.policy)) {
        if (e.field == "<nil>") origins.push_back(e.origin);
      }
      CHECK(origins == c.want);
    }
  }
}

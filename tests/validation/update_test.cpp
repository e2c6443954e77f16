#include "jobset_webhook/validation/update.h"

#include <catch2/catch.hpp>

#include "jobset_webhook/validation/scale_warnings.h"
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
using jobset_webhook::testing::without;

namespace {

// Upstream's test fixture: ReplicatedJobs with one replica and parallelism 1 each, in JobSet
// "js"; two of them in two_jobs().
ReplicatedJobBuilder rjob(const std::string& name) {
  return MakeReplicatedJob(name).Parallelism(1);
}

Json two_jobs() {
  return MakeJobSet("js")
      .Namespace("default")
      .ReplicatedJob(rjob("rjob-0"))
      .ReplicatedJob(rjob("rjob-1"))
      .Obj();
}

struct Case {
  std::string name;
  Json old_js;
  Json new_js;
  std::string want;  // the errors as printed; empty when allowed
  Policy policy = {};
};

std::string run(const Case& c) {
  const Parsed old_js(c.old_js), new_js(c.new_js);
  return jobset_webhook::field::to_string(v::validate_update(old_js, new_js, c.policy).errors);
}

Policy elastic_parallelism() {
  Policy p;
  p.elastic.parallelism = true;
  return p;
}

Policy replicas_immutable() {
  Policy p;
  p.elastic.replicas = false;
  return p;
}

const std::string kPod = "/spec/replicatedJobs/0/template/spec/template";
const std::string kJobSpec = "/spec/replicatedJobs/0/template/spec";

}  // namespace

TEST_CASE("Upstream's update cases, translated", "[validation][update]") {
  const Json indexed = with(two_jobs(), kJobSpec + "/completionMode", "Indexed");
  const std::vector<Case> cases = {
      {"update suspend", with(two_jobs(), "/spec/suspend", true), two_jobs(), ""},
      {"update labels", with(two_jobs(), "/spec/suspend", true),
       with(two_jobs(), "/metadata/labels", {{"hello", "world"}}), ""},
      {"managedBy is immutable", with(two_jobs(), "/spec/managedBy", "example.com/old"),
       with(two_jobs(), "/spec/managedBy", "example.com/new"),
       R"(spec.managedBy: Invalid value: "example.com/new": field is immutable)"},
      {"pod template can be updated for suspended jobset", with(two_jobs(), "/spec/suspend", true),
       with(two_jobs(), kPod + "/metadata/annotations", {{"key", "value"}}), ""},
      {"pod template can be updated for jobset getting suspended", two_jobs(),
       with(with(two_jobs(), "/spec/suspend", true), kPod + "/metadata/annotations",
            {{"key", "value"}}),
       ""},
      {"pod template cannot be updated for running jobset", two_jobs(),
       with(two_jobs(), kPod + "/metadata/annotations", {{"key", "value"}}),
       R"(spec.replicatedJobs[0].template.spec.template.metadata.annotations[key]: Invalid value: "value": field is immutable)"},
      {"schedulingGates can be updated for suspended JobSet",
       with(two_jobs(), "/spec/suspend", true),
       with(two_jobs(), kPod + "/spec/schedulingGates", {{{"name", "example.com/gate"}}}), ""},
      {"schedulingGates cannot be updated for unsuspended JobSet", two_jobs(),
       with(two_jobs(), kPod + "/spec/schedulingGates", {{{"name", "example.com/gate"}}}),
       R"(spec.replicatedJobs[0].template.spec.template.spec.schedulingGates: Forbidden: field is immutable: added "example.com/gate")"},
      {"replicated job name cannot be updated", with(two_jobs(), "/spec/suspend", true),
       with(with(two_jobs(), "/spec/suspend", true), "/spec/replicatedJobs/0/name",
            "new-replicated-job-name"),
       R"(spec.replicatedJobs: Forbidden: field is immutable: added "new-replicated-job-name"; removed "rjob-0")"},
      {"valid scaling of parallelism and completions",
       with(with(indexed, kJobSpec + "/parallelism", 2), kJobSpec + "/completions", 2),
       with(with(indexed, kJobSpec + "/parallelism", 8), kJobSpec + "/completions", 8), "",
       elastic_parallelism()},
      {"invalid scaling of parallelism to < 1", with(indexed, kJobSpec + "/parallelism", 2),
       with(indexed, kJobSpec + "/parallelism", 0),
       "spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 0: parallelism must be >= "
       "1",
       elastic_parallelism()},
      {"invalid scaling of completions to < 1", with(indexed, kJobSpec + "/completions", 2),
       with(indexed, kJobSpec + "/completions", 0),
       "[spec.replicatedJobs[0].template.spec.completions: Invalid value: 0: completions must be "
       ">= 1, "
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: 0: completions must be "
       "equal to parallelism for Elastic Indexed Jobs]",
       elastic_parallelism()},
      {"cannot scale parallelism if JobSet is Completed",
       with(with(indexed, kJobSpec + "/parallelism", 2), "/status/conditions",
            {{{"type", "Completed"}, {"status", "True"}}}),
       with(indexed, kJobSpec + "/parallelism", 4),
       "spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions "
       "when JobSet is in a "
       "terminal state (Completed or Failed)",
       elastic_parallelism()},
      {"cannot scale completions if JobSet is Failed",
       with(with(indexed, kJobSpec + "/completions", 2), "/status/conditions",
            {{{"type", "Failed"}, {"status", "True"}}}),
       with(indexed, kJobSpec + "/completions", 4),
       "spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions "
       "when JobSet is in a "
       "terminal state (Completed or Failed)",
       elastic_parallelism()},
      {"immutability still enforced for other fields during valid scale",
       with(indexed, kJobSpec + "/parallelism", 2),
       with(with(indexed, kJobSpec + "/parallelism", 4), kPod + "/spec/containers/0/image",
            "bash:5.2"),
       R"(spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: Invalid value: "bash:5.2": field is immutable)",
       elastic_parallelism()},
      {"parallelism is immutable when the policy is off",
       with(indexed, kJobSpec + "/parallelism", 2), with(indexed, kJobSpec + "/parallelism", 8),
       "spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 8: field is immutable"},
      {"parallelism and completions must be equal",
       with(with(indexed, kJobSpec + "/parallelism", 2), kJobSpec + "/completions", 2),
       with(with(indexed, kJobSpec + "/parallelism", 4), kJobSpec + "/completions", 5),
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: 5: completions must be "
       "equal to parallelism for "
       "Elastic Indexed Jobs",
       elastic_parallelism()},
      {"adding a ReplicatedJob while suspended is rejected",
       MakeJobSet("js").Namespace("default").ReplicatedJob(rjob("job-a")).Suspend(true).Obj(),
       MakeJobSet("js")
           .Namespace("default")
           .ReplicatedJob(rjob("job-a"))
           .ReplicatedJob(rjob("job-b"))
           .Suspend(true)
           .Obj(),
       R"(spec.replicatedJobs: Forbidden: field is immutable: added "job-b")"},
      {"reordering ReplicatedJobs is rejected",
       MakeJobSet("js")
           .Namespace("default")
           .ReplicatedJob(rjob("job-a"))
           .ReplicatedJob(rjob("job-b"))
           .Obj(),
       MakeJobSet("js")
           .Namespace("default")
           .ReplicatedJob(rjob("job-b"))
           .ReplicatedJob(rjob("job-a"))
           .Obj(),
       R"(spec.replicatedJobs: Forbidden: field is immutable: replicatedJobs were reordered: [0] was "job-a", now "job-b")",
       elastic_parallelism()},
      {"parallelism of NonIndexed jobs stays immutable under the policy",
       with(two_jobs(), kJobSpec + "/completionMode", "NonIndexed"),
       with(with(two_jobs(), kJobSpec + "/completionMode", "NonIndexed"), kJobSpec + "/parallelism",
            4),
       "spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 4: field is immutable",
       elastic_parallelism()},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(run(c) == c.want); }
  }
}

TEST_CASE("Elastic replicas: scale freely, everything else stays", "[validation][update]") {
  const std::vector<Case> cases = {
      {"scale up", two_jobs(), with(two_jobs(), "/spec/replicatedJobs/1/replicas", 4), ""},
      {"scale down to zero", two_jobs(), with(two_jobs(), "/spec/replicatedJobs/0/replicas", 0),
       ""},
      {"negative replicas", two_jobs(), with(two_jobs(), "/spec/replicatedJobs/0/replicas", -1),
       "spec.replicatedJobs[0].replicas: Invalid value: -1: must be greater than or equal to 0"},
      {"replicas beyond int32", two_jobs(),
       with(two_jobs(), "/spec/replicatedJobs/0/replicas", 2147483648LL),
       "spec.replicatedJobs[0].replicas: Invalid value: 2147483648: must be less than or equal to "
       "2147483647"},
      {"replicas that is not an integer", two_jobs(),
       with(two_jobs(), "/spec/replicatedJobs/0/replicas", "3"),
       R"(spec.replicatedJobs[0].replicas: Invalid value: "3": must be an integer)"},
      {"replicas immutable when the policy says so", two_jobs(),
       with(two_jobs(), "/spec/replicatedJobs/0/replicas", 3),
       "spec.replicatedJobs[0].replicas: Invalid value: 3: field is immutable",
       replicas_immutable()},
      {"scale plus image change names only the image", two_jobs(),
       with(with(two_jobs(), "/spec/replicatedJobs/1/replicas", 3),
            "/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image", "bash:5.2"),
       R"(spec.replicatedJobs[1].template.spec.template.spec.containers[0].image: Invalid value: "bash:5.2": field is immutable)"},
      {"groupName is immutable", two_jobs(),
       with(two_jobs(), "/spec/replicatedJobs/1/groupName", "other"),
       R"(spec.replicatedJobs[1].groupName: Invalid value: "other": field is immutable)"},
      {"removing a ReplicatedJob", two_jobs(),
       MakeJobSet("js").Namespace("default").ReplicatedJob(rjob("rjob-0")).Obj(),
       R"(spec.replicatedJobs: Forbidden: field is immutable: removed "rjob-1")"},
      {"removing a field prints its zero value",
       with(two_jobs(), kPod + "/spec/containers/0/workingDir", "/w"), two_jobs(),
       R"(spec.replicatedJobs[0].template.spec.template.spec.containers[0].workingDir: Invalid value: "": field is immutable)"},
      {"removing a pointer field prints null", two_jobs(),
       without(two_jobs(), kJobSpec + "/parallelism"),
       "spec.replicatedJobs[0].template.spec.parallelism: Invalid value: null: field is immutable"},
      {"a removed label prints null", with(two_jobs(), kPod + "/metadata/labels", {{"app", "x"}}),
       two_jobs(),
       "spec.replicatedJobs[0].template.spec.template.metadata.labels[app]: Invalid value: null: "
       "field is immutable"},
      {"a quantity spelled differently is no change",
       with(two_jobs(), kPod + "/spec/containers/0/resources", {{"limits", {{"cpu", "1"}}}}),
       with(two_jobs(), kPod + "/spec/containers/0/resources", {{"limits", {{"cpu", "1000m"}}}}),
       ""},
      {"an empty list written out is no change", two_jobs(),
       with(two_jobs(), kPod + "/spec/tolerations", Json::array()), ""},
      {"a container added is named", two_jobs(),
       with(two_jobs(), kPod + "/spec/containers/1", {{"name", "sidecar"}, {"image", "envoy"}}),
       R"(spec.replicatedJobs[0].template.spec.template.spec.containers: Forbidden: field is immutable: added "sidecar")"},
      {"several changes are all listed", two_jobs(),
       with(with(two_jobs(), kPod + "/spec/containers/0/image", "a"),
            "/spec/replicatedJobs/1/template/spec/parallelism", 3),
       R"([spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: Invalid value: "a": field is immutable, )"
       "spec.replicatedJobs[1].template.spec.parallelism: Invalid value: 3: field is immutable]"},
      {"suspended: nodeSelector and tolerations may change",
       with(two_jobs(), "/spec/suspend", true),
       with(with(two_jobs(), kPod + "/spec/nodeSelector", {{"zone", "b"}}),
            kPod + "/spec/tolerations", {{{"key", "k"}}}),
       ""},
      {"suspended: other pod fields stay immutable", with(two_jobs(), "/spec/suspend", true),
       with(two_jobs(), kPod + "/spec/hostname", "h"),
       R"(spec.replicatedJobs[0].template.spec.template.spec.hostname: Invalid value: "h": field is immutable)"},
      {"metadata and status are not judged", two_jobs(),
       with(with(two_jobs(), "/metadata/annotations", {{"a", "b"}}), "/status/restarts", 3), ""},
      {"unset managedBy differs from empty", two_jobs(), with(two_jobs(), "/spec/managedBy", ""),
       R"(spec.managedBy: Invalid value: "": field is immutable)"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(run(c) == c.want); }
  }
}

TEST_CASE("CEL-immutable spec fields report leaves with the CRD's message",
          "[validation][update]") {
  const Json with_policy = with(two_jobs(), "/spec/failurePolicy", {{"maxRestarts", 3}});
  const std::vector<Case> cases = {
      {"failurePolicy field changed", with_policy,
       with(with_policy, "/spec/failurePolicy/maxRestarts", 21),
       "spec.failurePolicy.maxRestarts: Invalid value: 21: Value is immutable"},
      {"failurePolicy added (CEL only judges fields set on both sides)", two_jobs(), with_policy,
       ""},
      {"network changed", with(two_jobs(), "/spec/network", {{"enableDNSHostnames", true}}),
       with(two_jobs(), "/spec/network", {{"enableDNSHostnames", false}}),
       "spec.network.enableDNSHostnames: Invalid value: false: Value is immutable"},
      {"dependsOn changed",
       with(two_jobs(), "/spec/replicatedJobs/1/dependsOn",
            {{{"name", "rjob-0"}, {"status", "Ready"}}}),
       with(two_jobs(), "/spec/replicatedJobs/1/dependsOn",
            {{{"name", "rjob-0"}, {"status", "Complete"}}}),
       R"(spec.replicatedJobs[1].dependsOn[0].status: Invalid value: "Complete": Value is immutable)"},
      {"dependsOn added", two_jobs(),
       with(two_jobs(), "/spec/replicatedJobs/1/dependsOn",
            {{{"name", "rjob-0"}, {"status", "Ready"}}}),
       R"(spec.replicatedJobs[1].dependsOn: Forbidden: field is immutable: added "rjob-0")"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(run(c) == c.want); }
  }
}

namespace {

// What scale_hazards says when rjob-0 goes from 1 to 0 before rjob-1 (scale_hazards_test.cpp).
const std::string kShiftDown =
    "replicatedJob \"rjob-0\" scaled down from 1 to 0: upstream's JobSet controller labels a Job "
    "once, when it creates it, with an index counted from the replicas before it: the Jobs of the "
    "replicatedJobs after it keep the jobset.sigs.k8s.io/job-global-index and "
    "jobset.sigs.k8s.io/job-group-index they have (Job "
    "js-rjob-1-0: 1, by the new counts 0) until the JobSet restarts";

// What scale_hazards says of the replica counts the Jobs that exist keep in their labels.
std::string stale(const std::string& head, const std::string& counts) {
  return head +
         "upstream's JobSet controller writes the replica counts into the labels and annotations "
         "of a Job and its pods only when it creates the Job, so until the JobSet restarts the "
         "Jobs that exist and their pods (and a workload that reads the counts through the "
         "downward API) keep the old ones: " +
         counts;
}

}  // namespace

TEST_CASE("A scale warns what happens to the child Jobs", "[validation][update]") {
  const Parsed old_js(two_jobs());
  const Parsed down(with(with(two_jobs(), "/spec/replicatedJobs/0/replicas", 0),
                         "/spec/replicatedJobs/1/replicas", 5));
  const auto findings = v::validate_update(old_js, down, Policy{});
  REQUIRE(findings.errors.empty());
  CHECK(jobset_webhook::field::texts(findings.warnings) ==
        std::vector<std::string>{
            "replicatedJob \"rjob-0\" scaled down from 1 to 0: Job "
            "js-rjob-0-0 keeps running (the JobSet controller deletes none); "
            "delete it to release its resources",
            "replicatedJob \"rjob-1\" scaled up from 1 to 5: the JobSet "
            "controller will create Jobs js-rjob-1-1 ... js-rjob-1-4 (4 Jobs)",
            kShiftDown,
            stale("replicatedJob \"rjob-0\" scaled down from 1 to 0: ",
                  "Job js-rjob-0-0 keeps "
                  "jobset.sigs.k8s.io/replicatedjob-replicas 1 (now 0); Jobs "
                  "js-rjob-0-0, js-rjob-1-0 keep "
                  "jobset.sigs.k8s.io/global-replicas and "
                  "jobset.sigs.k8s.io/group-replicas 2 (now 5)"),
            stale("replicatedJob \"rjob-1\" scaled up from 1 to 5: ",
                  "Job js-rjob-1-0 keeps "
                  "jobset.sigs.k8s.io/replicatedjob-replicas 1 (now 5)"),
        });
}

TEST_CASE("A scale warning is about its ReplicatedJob's replicas; a count left out, the object",
          "[validation][update]") {
  const Parsed old_js(two_jobs());
  const Parsed down(with(with(two_jobs(), "/spec/replicatedJobs/0/replicas", 0),
                         "/spec/replicatedJobs/1/replicas", 5));
  std::vector<std::string> fields;
  for (const auto& w : v::validate_update(old_js, down, Policy{}).warnings)
    fields.push_back(w.field);
  // The two scales, the shift of rjob-1's global indices (rjob-0's scale moves them), the two
  // stale label counts.
  CHECK(fields == std::vector<std::string>{
                      "spec.replicatedJobs[0].replicas", "spec.replicatedJobs[1].replicas",
                      "spec.replicatedJobs[0].replicas", "spec.replicatedJobs[0].replicas",
                      "spec.replicatedJobs[1].replicas"});

  Json old_jobs = Json::array(), new_jobs = Json::array();
  for (int i = 0; i < 300; ++i) {
    old_jobs.push_back(rjob("replicated-job-" + std::to_string(i)).Obj());
    new_jobs.push_back(rjob("replicated-job-" + std::to_string(i)).Replicas(200).Obj());
  }
  const auto many = v::validate_update(
      Parsed(MakeJobSet("js").Namespace("default").ReplicatedJobs(old_jobs).Obj()),
      Parsed(MakeJobSet("js").Namespace("default").ReplicatedJobs(new_jobs).Obj()), Policy{});
  REQUIRE(many.warnings.size() > 2);
  CHECK(many.warnings[1].field == "spec.replicatedJobs[1].replicas");
  CHECK(many.warnings.back().field.empty());
}

TEST_CASE("With the scale-down controller installed, a scale-down warns that it deletes",
          "[validation][update]") {
  Policy policy;
  policy.elastic.scale_down = Policy::ScaleDown::kController;
  const Parsed old_js(with(two_jobs(), "/spec/replicatedJobs/1/replicas", 4));
  const Parsed down(with(with(two_jobs(), "/spec/replicatedJobs/0/replicas", 0),
                         "/spec/replicatedJobs/1/replicas", 2));
  const auto findings = v::validate_update(old_js, down, policy);
  REQUIRE(findings.errors.empty());
  CHECK(jobset_webhook::field::texts(findings.warnings) ==
        std::vector<std::string>{
            "replicatedJob \"rjob-0\" scaled down from 1 to 0: the scale-down controller will "
            "delete Job js-rjob-0-0",
            "replicatedJob \"rjob-1\" scaled down from 4 to 2: the scale-down controller will "
            "delete Jobs js-rjob-1-2, js-rjob-1-3, highest index first",
            kShiftDown,
            stale("replicatedJob \"rjob-0\" scaled down from 1 to 0: ",
                  "Job js-rjob-0-0 keeps jobset.sigs.k8s.io/replicatedjob-replicas 1 (now 0); "
                  "Jobs js-rjob-0-0, js-rjob-1-0, js-rjob-1-1 and 2 more keep "
                  "jobset.sigs.k8s.io/global-replicas and jobset.sigs.k8s.io/group-replicas 5 "
                  "(now 2)"),
            stale("replicatedJob \"rjob-1\" scaled down from 4 to 2: ",
                  "Jobs js-rjob-1-0, js-rjob-1-1, js-rjob-1-2 and 1 more keep "
                  "jobset.sigs.k8s.io/replicatedjob-replicas 4 (now 2)"),
        });
}

TEST_CASE("A JobSet that asks for a scale-down notice is told how long it is",
          "[validation][update]") {
  Policy policy;
  policy.elastic.scale_down = Policy::ScaleDown::kController;
  const std::string notice =
      "/metadata/annotations/elastic.jobset-webhook.io~1scale-down-notice-seconds";
  const Parsed old_js(with(two_jobs(), "/spec/replicatedJobs/1/replicas", 4));
  const auto down = [&](Json js) {
    return with(std::move(js), "/spec/replicatedJobs/1/replicas", 2);
  };
  const std::string head =
      "replicatedJob \"rjob-1\" scaled down from 4 to 2: the scale-down controller will delete "
      "Jobs js-rjob-1-2, js-rjob-1-3, highest index first";
  SECTION("its annotation") {
    const auto f =
        v::validate_update(old_js, Parsed(down(with(two_jobs(), notice, "300"))), policy);
    REQUIRE(f.errors.empty());
    CHECK(f.warnings.front().text ==
          head + ", after a notice of 5m to the Jobs and Pods of \"rjob-1\"");
  }
  SECTION("the policy's default, and an annotation of 0 that turns it off") {
    policy.elastic.scale_down_notice_seconds = 90;
    const auto f = v::validate_update(old_js, Parsed(down(two_jobs())), policy);
    CHECK(f.warnings.front().text ==
          head + ", after a notice of 1m30s to the Jobs and Pods of \"rjob-1\"");
    const auto off =
        v::validate_update(old_js, Parsed(down(with(two_jobs(), notice, "0"))), policy);
    CHECK(off.warnings.front().text == head);
  }
  SECTION("no controller, no notice to promise") {
    policy.elastic.scale_down = Policy::ScaleDown::kManual;
    const auto f =
        v::validate_update(old_js, Parsed(down(with(two_jobs(), notice, "300"))), policy);
    CHECK(f.warnings.front().text.find("notice") == std::string::npos);
  }
}

// Found by fuzz_review: errors came in the key order of the new object, so the same change sent
// with its keys in another order got a different message.
TEST_CASE("The errors of an update do not depend on the key order of the objects",
          "[validation][update]") {
  const std::string old_spec =
      R"({"backoffLimit":1,"templcte":{},"template":{"spec":{"containers":[{"name":"main","image":"a"}]}}})";
  const std::vector<std::string> new_specs = {
      R"({"backoffLimit":2,"template":{"spec":{"containers":[{"name":"main","image":"b"}],"securityContext":{"runAsUser":1,"fsGroup":2}}},"activeDeadlineSeconds":5})",
      R"({"activeDeadlineSeconds":5,"template":{"spec":{"securityContext":{"fsGroup":2,"runAsUser":1},"containers":[{"image":"b","name":"main"}]}},"backoffLimit":2})",
  };
  const auto jobset_with = [](const std::string& spec) {
    return R"({"metadata":{"name":"js"},"spec":{"replicatedJobs":[{"name":"w","replicas":1,"template":{"spec":)" +
           spec + "}}]}}";
  };
  const Parsed old_js(jobset_with(old_spec));
  for (const auto& spec : new_specs) {
    DYNAMIC_SECTION(spec) {
      const Parsed new_js(jobset_with(spec));
      CHECK(jobset_webhook::field::to_string(v::validate_update(old_js, new_js, Policy{}).errors) ==
            "[spec.replicatedJobs[0].template.spec.activeDeadlineSeconds: Invalid value: 5: field "
            "is immutable, "
            "spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: 2: field is "
            "immutable, "
            "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: Invalid "
            "value: \"b\": field is immutable, "
            "spec.replicatedJobs[0].template.spec.template.spec.securityContext: Invalid value: "
            "{\"fsGroup\":2,\"runAsUser\":1}: field is immutable, "
            "spec.replicatedJobs[0].template.spec.templcte: Invalid value: null: field is "
            "immutable]");
    }
  }
}

TEST_CASE("A denied update carries no scale warnings", "[validation][update]") {
  const Parsed old_js(two_jobs());
  const Parsed new_js(with(with(two_jobs(), "/spec/replicatedJobs/0/replicas", 3),
                           kPod + "/spec/containers/0/image", "x"));
  const auto findings = v::validate_update(old_js, new_js, Policy{});
  CHECK(findings.errors.size() == 1);
  CHECK(findings.warnings.empty());
}

TEST_CASE("Scale warnings stay under 4096 bytes however many ReplicatedJobs change",
          "[validation][update]") {
  Json old_jobs = Json::array(), new_jobs = Json::array();
  for (int i = 0; i < 300; ++i) {
    old_jobs.push_back(rjob("replicated-job-" + std::to_string(i)).Obj());
    new_jobs.push_back(rjob("replicated-job-" + std::to_string(i)).Replicas(200).Obj());
  }
  const Parsed old_js(MakeJobSet("js").Namespace("default").ReplicatedJobs(old_jobs).Obj()),
      new_js(MakeJobSet("js").Namespace("default").ReplicatedJobs(new_jobs).Obj());
  const auto findings = v::validate_update(old_js, new_js, Policy{});
  REQUIRE(findings.errors.empty());
  std::size_t total = 0;
  for (const auto& w : findings.warnings) total += w.text.size();
  CHECK(total <= v::kMaxWarningsBytes);
  CHECK(findings.warnings.back().text.rfind("and ", 0) == 0);
  CHECK(findings.warnings.back().text.find("more replicatedJobs rescaled") != std::string::npos);
  CHECK(findings.warnings.front().text ==
        "replicatedJob \"replicated-job-0\" scaled up from 1 to 200: the JobSet controller will "
        "create Jobs "
        "js-replicated-job-0-1 ... js-replicated-job-0-199 (199 Jobs)");
}

TEST_CASE("A rejection stays short however many entries change", "[validation][update]") {
  Json old_jobs = Json::array(), new_jobs = Json::array();
  for (int i = 0; i < 10000; ++i) old_jobs.push_back(rjob("r" + std::to_string(i)).Obj());
  for (int i = 0; i < 10000; ++i) new_jobs.push_back(rjob("n" + std::to_string(i)).Obj());
  const Parsed old_js(MakeJobSet("js").Namespace("default").ReplicatedJobs(old_jobs).Obj()),
      new_js(MakeJobSet("js").Namespace("default").ReplicatedJobs(new_jobs).Obj());
  const auto message =
      jobset_webhook::field::to_string(v::validate_update(old_js, new_js, Policy{}).errors);
  CHECK(
      message ==
      R"(spec.replicatedJobs: Forbidden: field is immutable: added "n0", "n1", "n2" and 9997 more; )"
      R"(removed "r0", "r1", "r2" and 9997 more)");
}

TEST_CASE("A huge unnamed list that changes length names what changed, without pairwise work",
          "[validation][update]") {
  Json old_args = Json::array(), new_args = Json::array();
  for (int i = 0; i < 20000; ++i) old_args.push_back("arg" + std::to_string(i));
  new_args = old_args;
  new_args.push_back("extra");
  const Parsed old_js(with(two_jobs(), kPod + "/spec/containers/0/args", old_args));
  const Parsed new_js(with(two_jobs(), kPod + "/spec/containers/0/args", new_args));
  CHECK(jobset_webhook::field::to_string(v::validate_update(old_js, new_js, Policy{}).errors) ==
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].args: Forbidden: field "
        "is immutable: added \"extra\"");
}

// 1,000 nodeSelectorTerms sharing long prefixes becoming 999 once took 6 s when every pair
// was compared; entries are now matched by fingerprint. Entries equal under Go's semantics
// (quantities by value, keys in any order) still match.
TEST_CASE("Unnamed entries of a list that changed length are matched by semantic value",
          "[validation][update]") {
  const std::string terms =
      kPod + "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution";
  const auto term = [](const std::string& value) {
    return Json{{"matchExpressions",
                 {{{"key", std::string(2000, 'k')}, {"operator", "In"}, {"values", {value}}}}}};
  };
  Json old_terms = Json::array();
  for (int i = 0; i < 1000; ++i) old_terms.push_back(term("v" + std::to_string(i)));
  Json new_terms = old_terms;
  new_terms.erase(new_terms.begin() + 500);
  const Parsed old_js(with(two_jobs(), terms, {{"nodeSelectorTerms", old_terms}}));
  const Parsed new_js(with(two_jobs(), terms, {{"nodeSelectorTerms", new_terms}}));
  const auto message =
      jobset_webhook::field::to_string(v::validate_update(old_js, new_js, Policy{}).errors);
  CHECK(message.find("nodeSelectorTerms: Forbidden: field is immutable: removed "
                     "{\"matchExpressions\":[{\"key\":\"kkkk") != std::string::npos);
  CHECK(message.find("added") == std::string::npos);
  CHECK(message.find("entries became") == std::string::npos);

  const Json ports_old = Json::parse(R"([{"containerPort":80},{"containerPort":81}])");
  const Json ports_new = Json::parse(R"([{"containerPort":80.0,"protocol":""}])");
  const Parsed p_old(with(two_jobs(), kPod + "/spec/containers/0/ports", ports_old));
  const Parsed p_new(with(two_jobs(), kPod + "/spec/containers/0/ports", ports_new));
  CHECK(jobset_webhook::field::to_string(v::validate_update(p_old, p_new, Policy{}).errors) ==
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].ports: Forbidden: field "
        "is immutable: removed {\"containerPort\":81}");
}

// Found by fuzz_update: entries were matched by name alone, so with a name given twice every
// namesake was compared with the first one. A JobSet compared with itself was denied, and a
// changed second namesake that equalled the first was allowed.
TEST_CASE("ReplicatedJobs with repeated or missing names are compared position by position",
          "[validation][update]") {
  const Json second_changed = MakeJobSet("js")
                                  .Namespace("default")
                                  .ReplicatedJob(rjob("a"))
                                  .ReplicatedJob(rjob("a").Image("bash:5.2"))
                                  .Obj();
  const Json same =
      MakeJobSet("js").Namespace("default").ReplicatedJob(rjob("a")).ReplicatedJob(rjob("a")).Obj();
  const Json unnamed = MakeJobSet("js")
                           .Namespace("default")
                           .ReplicatedJob(rjob(""))
                           .ReplicatedJob(rjob("").Parallelism(2))
                           .Obj();
  const std::vector<Case> cases = {
      {"a JobSet with a repeated name equals itself", second_changed, second_changed, ""},
      {"the second namesake may not become like the first", second_changed, same,
       R"(spec.replicatedJobs[1].template.spec.template.spec.containers[0].image: Invalid value: "bash:5.1": field is immutable)"},
      {"unnamed entries scale each at its place", unnamed,
       with(with(unnamed, "/spec/replicatedJobs/0/replicas", 3), "/spec/replicatedJobs/1/replicas",
            5),
       ""},
      {"unnamed entries keep their templates", unnamed,
       with(unnamed, "/spec/replicatedJobs/1/template/spec/parallelism", 1),
       "spec.replicatedJobs[1].template.spec.parallelism: Invalid value: 1: field is immutable"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(run(c) == c.want); }
  }
}

// Upstream decodes replicas, parallelism and completions into int32; a value Go cannot decode so
// fails the request there. Here it is an error at the field: never a wrong allow.
TEST_CASE("Counts outside int32, or not integers, are denied", "[validation][update]") {
  const auto replicas = [](const std::string& value) {
    return Parsed(R"({"metadata":{"name":"js"},"spec":{"replicatedJobs":[{"name":"w","replicas":)" +
                  value + "}]}}");
  };
  const Parsed old_js = replicas("1");
  struct Row {
    std::string value, want;
  };
  const std::vector<Row> rows = {
      {"2147483647", ""},
      {"2147483648",
       "spec.replicatedJobs[0].replicas: Invalid value: 2147483648: must be less than or equal to "
       "2147483647"},
      {"9223372036854775807",
       "spec.replicatedJobs[0].replicas: Invalid value: 9223372036854775807: must be less than or "
       "equal to 2147483647"},
      {"18446744073709551615",
       "spec.replicatedJobs[0].replicas: Invalid value: 18446744073709551615: must be less than or "
       "equal to 2147483647"},
      {"-9223372036854775808",
       "spec.replicatedJobs[0].replicas: Invalid value: -9223372036854775808: must be greater than "
       "or equal to 0"},
      {"2.5", "spec.replicatedJobs[0].replicas: Invalid value: 2.5: must be an integer"},
      {"1e300", "spec.replicatedJobs[0].replicas: Invalid value: 1e+300: must be an integer"},
      {R"("3")", R"(spec.replicatedJobs[0].replicas: Invalid value: "3": must be an integer)"},
  };
  for (const auto& r : rows) {
    DYNAMIC_SECTION("replicas " << r.value) {
      const Parsed new_js = replicas(r.value);
      const auto findings = v::validate_update(old_js, new_js, Policy{});
      CHECK(jobset_webhook::field::to_string(findings.errors) == r.want);
      CHECK(findings.warnings.empty() == !r.want.empty());
    }
  }

  const Json indexed = with(
      with(with(two_jobs(), kJobSpec + "/completionMode", "Indexed"), kJobSpec + "/parallelism", 2),
      kJobSpec + "/completions", 2);
  const std::vector<Case> elastic = {
      {"both beyond int32", indexed,
       with(with(indexed, kJobSpec + "/parallelism", 2147483648LL), kJobSpec + "/completions",
            2147483648LL),
       "[spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 2147483648: must be less "
       "than or equal to 2147483647, "
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: 2147483648: must be less "
       "than or equal to 2147483647]",
       elastic_parallelism()},
      {"fractions", indexed,
       with(with(indexed, kJobSpec + "/parallelism", 2.5), kJobSpec + "/completions", 2.5),
       "[spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 2.5: must be an integer, "
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: 2.5: must be an integer]",
       elastic_parallelism()},
      {"strings", indexed,
       with(with(indexed, kJobSpec + "/parallelism", "4"), kJobSpec + "/completions", "4"),
       "[spec.replicatedJobs[0].template.spec.parallelism: Invalid value: \"4\": must be an "
       "integer, "
       "spec.replicatedJobs[0].template.spec.completions: Invalid value: \"4\": must be an "
       "integer]",
       elastic_parallelism()},
      {"the largest int32 is fine", indexed,
       with(with(indexed, kJobSpec + "/parallelism", 2147483647), kJobSpec + "/completions",
            2147483647),
       "", elastic_parallelism()},
  };
  for (const auto& c : elastic) {
    DYNAMIC_SECTION(c.name) { CHECK(run(c) == c.want); }
  }
}

// The API server stores 3.0 as the integer 3, and defaults an absent or null replicas
// to 1 (the CRD's default) before any webhook sees the object. Quantities compare by value
// whatever their JSON type (Quantity.UnmarshalJSON), integers exactly.
TEST_CASE("Replicas, quantities and integers read as the API server stores them",
          "[validation][update]") {
  const std::string rj0 = "/spec/replicatedJobs/0";
  const std::string cpu = kPod + "/spec/containers/0/resources/limits/cpu";
  const std::string deadline = kJobSpec + "/activeDeadlineSeconds";
  const std::vector<Case> cases = {
      {"replicas 3.0 is 3", two_jobs(), with(two_jobs(), rj0 + "/replicas", 3.0), ""},
      {"replicas 1.0 is unchanged", two_jobs(), with(two_jobs(), rj0 + "/replicas", 1.0), ""},
      {"absent replicas is the default 1", two_jobs(), without(two_jobs(), rj0 + "/replicas"), ""},
      {"null replicas is the default 1", without(two_jobs(), rj0 + "/replicas"),
       with(two_jobs(), rj0 + "/replicas", nullptr), ""},
      {"absent replicas scaled to 2", without(two_jobs(), rj0 + "/replicas"),
       with(two_jobs(), rj0 + "/replicas", 2), ""},
      {"replicas -1.0", two_jobs(), with(two_jobs(), rj0 + "/replicas", -1.0),
       "spec.replicatedJobs[0].replicas: Invalid value: -1: must be greater than or equal to 0"},
      {"cpu number to string", with(two_jobs(), cpu, 1), with(two_jobs(), cpu, "1"), ""},
      {"cpu 4 to 4000m", with(two_jobs(), cpu, 4), with(two_jobs(), cpu, "4000m"), ""},
      {"cpu 8 (octal 010) to 10", with(two_jobs(), cpu, 8), with(two_jobs(), cpu, 10),
       "spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.limits[cpu]: "
       "Invalid value: 10: field is immutable"},
      {"activeDeadlineSeconds beyond 2^53", with(two_jobs(), deadline, 9007199254740993LL),
       with(two_jobs(), deadline, 9007199254740992LL),
       "spec.replicatedJobs[0].template.spec.activeDeadlineSeconds: Invalid value: "
       "9007199254740992: field is immutable"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(run(c) == c.want); }
  }
  const Parsed old_js(two_jobs()), new_js(with(two_jobs(), rj0 + "/replicas", 3.0));
  CHECK(jobset_webhook::field::texts(v::validate_update(old_js, new_js, Policy{}).warnings) ==
        std::vector<std::string>{
            "replicatedJob \"rjob-0\" scaled up from 1 to 3: the JobSet controller will create "
            "Jobs js-rjob-0-1, js-rjob-0-2",
            "replicatedJob \"rjob-0\" scaled up from 1 to 3: upstream's JobSet controller labels "
            "a Job once, when it creates it, with an index counted from the replicas before it: "
            "Job js-rjob-0-1 gets jobset.sigs.k8s.io/job-global-index and "
            "jobset.sigs.k8s.io/job-group-index 1, which Job js-rjob-1-0 "
            "already has and keeps until the JobSet restarts",
            stale("replicatedJob \"rjob-0\" scaled up from 1 to 3: ",
                  "Job js-rjob-0-0 keeps jobset.sigs.k8s.io/replicatedjob-replicas 1 (now 3); Jobs "
                  "js-rjob-0-0, js-rjob-1-0 keep jobset.sigs.k8s.io/global-replicas and "
                  "jobset.sigs.k8s.io/group-replicas 2 (now 4)")});
}

// Found by fuzz_update (corpus b6bd23cc2b04290a): two keys of invalid UTF-8 in spec.managedBy
// became the same key after U+FFFD replacement, and the object was denied against itself.
TEST_CASE("A JobSet compared with itself is allowed even with a key held twice",
          "[validation][update]") {
  const Parsed js(
      R"({"spec":{"managedBy":{"\ufffdr":{},"a":1,"\ufffdr":{"x":2}},"suspend":{},)"
      R"("replicatedJobs":[{"name":"a","replicas":1,"template":{"spec":{"template":{"spec":)"
      R"({"nodeSelector":{"k":"1","j":"2","k":"3"}}}}}}]}})");
  CHECK(v::validate_update(js, js, Policy{}).errors.empty());
}

// The CRD's own checks on CREATE (what the API server answers before any webhook runs), and the
// whole CREATE chain of validate_create: defaults, schema, webhook rules.

#include <catch2/catch.hpp>

#include "jobset_webhook/decide.h"
#include "jobset_webhook/validation/create.h"
#include "validation/quantity.h"
#include "support/jobset_builder.h"
#include "support/json_edit.h"
#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::with;
using jobset_webhook::testing::without;

namespace {

// Two replicatedJobs, "a" and "b", with replicas left to the schema's default.
Json jobset() {
  return MakeJobSet("js")
      .ReplicatedJob(MakeReplicatedJob("a").Unset("/replicas"))
      .ReplicatedJob(MakeReplicatedJob("b").Unset("/replicas"))
      .Obj();
}

Json many(std::size_t n, const Json& entry) { return Json(n, entry); }

struct Case {
  std::string name;
  Json js;
  std::string want;
};

const std::string kRjob0 = "spec.replicatedJobs[0]";
const std::string kBlocked =
    "<nil>: Invalid value: null: some validation rules were not checked because the object was "
    "invalid; correct the existing errors to complete validation";
const std::string kJob0 = "/spec/replicatedJobs/0";
const std::string kPattern =
    R"('^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$')";

}  // namespace

TEST_CASE("The CRD schema rejects what the API server rejects on create",
          "[validation][create][schema]") {
  Json deps6 = Json::array();
  for (const char* n : {"a", "b", "c", "d", "e", "f"})
    deps6.push_back({{"name", n}, {"status", "Ready"}});
  const Json claim = {{"templates", {{{"metadata", {{"name", "data"}}}}}}};
  const std::vector<Case> cases = {
      {"a plain JobSet passes", jobset(), ""},
      {"a JobSet without replicatedJobs passes", without(jobset(), "/spec/replicatedJobs"), ""},
      {"name and template are required", with(jobset(), kJob0, Json::object()),
       "[" + kRjob0 + ".name: Required value, " + kRjob0 + ".template: Required value]"},
      {"replicas must be an integer", with(jobset(), kJob0 + "/replicas", "2"),
       kRjob0 + ".replicas: Invalid value: \"string\": " + kRjob0 +
           ".replicas in body must be of type integer: \"string\""},
      {"replicas may not be negative (main's minimum)", with(jobset(), kJob0 + "/replicas", -1),
       kRjob0 + ".replicas: Invalid value: -1: " + kRjob0 +
           ".replicas in body should be greater than or equal to 0"},
      // kube-openapi's numberValidator checks an int32's range (IsValueValidAgainstRange,
      // validate/values.go) with a plain error, which apiextensions-apiserver's
      // kubeOpenAPIResultToFieldErrors reports at no field.
      {"replicas must fit an int32", with(jobset(), kJob0 + "/replicas", 3000000000LL),
       "<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in " +
           kRjob0 + ".replicas"},
      {"a float that is an integer is an integer", with(jobset(), kJob0 + "/replicas", 2.0), ""},
      {"ttlSecondsAfterFinished may not be negative",
       with(jobset(), "/spec/ttlSecondsAfterFinished", -5),
       "spec.ttlSecondsAfterFinished: Invalid value: -5: spec.ttlSecondsAfterFinished in body "
       "should be greater than or "
       "equal to 0"},
      {"restartStrategy is an enum",
       with(jobset(), "/spec/failurePolicy", {{"restartStrategy", "Foo"}}),
       R"(spec.failurePolicy.restartStrategy: Unsupported value: "Foo": supported values: "Recreate", "BlockingRecreate", "InPlaceRestart")"},
      {"failure policy rules need an action and a name",
       with(jobset(), "/spec/failurePolicy", {{"rules", {Json::object()}}}),
       "[spec.failurePolicy.rules[0].action: Required value, spec.failurePolicy.rules[0].name: "
       "Required value]"},
      {"failure policy actions are an enum",
       with(jobset(), "/spec/failurePolicy", {{"rules", {{{"name", "r"}, {"action", "Retry"}}}}}),
       R"(spec.failurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob", "RestartJobAndIgnoreMaxRestarts")"},
      {"the success policy needs an operator",
       with(jobset(), "/spec/successPolicy", Json::object()),
       "spec.successPolicy.operator: Required value"},
      {"the success operator is an enum",
       with(jobset(), "/spec/successPolicy", {{"operator", "Most"}}),
       R"(spec.successPolicy.operator: Unsupported value: "Most": supported values: "All", "Any")"},
      {"the startup policy needs an order", with(jobset(), "/spec/startupPolicy", Json::object()),
       "spec.startupPolicy.startupPolicyOrder: Required value"},
      {"the coordinator needs a replicatedJob",
       with(jobset(), "/spec/coordinator", {{"jobIndex", 0}}),
       "spec.coordinator.replicatedJob: Required value"},
      {"dependsOn status is Ready or Complete",
       with(jobset(), "/spec/replicatedJobs/1/dependsOn", {{{"name", "a"}, {"status", "Failed"}}}),
       R"(spec.replicatedJobs[1].dependsOn[0].status: Unsupported value: "Failed": supported values: "Ready", "Complete")"},
      {"dependsOn entries need a name and a status",
       with(jobset(), "/spec/replicatedJobs/1/dependsOn", {Json::object()}),
       "[spec.replicatedJobs[1].dependsOn[0].name: Required value, "
       "spec.replicatedJobs[1].dependsOn[0].status: Required "
       "value]"},
      {"at most 5 dependsOn", with(jobset(), "/spec/replicatedJobs/1/dependsOn", deps6),
       "spec.replicatedJobs[1].dependsOn: Too many: 6: must have at most 5 items"},
      {"dependsOn names are keys",
       with(jobset(), "/spec/replicatedJobs/1/dependsOn",
            {{{"name", "a"}, {"status", "Ready"}}, {{"name", "a"}, {"status", "Complete"}}}),
       R"(spec.replicatedJobs[1].dependsOn[1]: Duplicate value: {"name":"a"})"},
      {"replicatedJob names are keys", with(jobset(), "/spec/replicatedJobs/1/name", "a"),
       R"(spec.replicatedJobs[1]: Duplicate value: {"name":"a"})"},
      {"at most 50 volumeClaimPolicies",
       with(jobset(), "/spec/volumeClaimPolicies", many(51, claim)),
       "spec.volumeClaimPolicies: Too many: 51: must have at most 50 items"},
      {"at most 50 templates in a policy",
       with(jobset(), "/spec/volumeClaimPolicies",
            {{{"templates", many(51, {{"metadata", {{"name", "x"}}}})}}}),
       "spec.volumeClaimPolicies[0].templates: Too many: 51: must have at most 50 items"},
      {"retention is Delete or Retain",
       with(jobset(), "/spec/volumeClaimPolicies",
            {{{"retentionPolicy", {{"whenDeleted", "Keep"}}}}}),
       R"(spec.volumeClaimPolicies[0].retentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Delete", "Retain")"},
      {"booleans are booleans", with(jobset(), "/spec/suspend", "true"),
       R"(spec.suspend: Invalid value: "string": spec.suspend in body must be of type boolean: "string")"},
      {"nulls are dropped, not rejected", with(jobset(), "/spec/network", nullptr), ""},
      {"the Job template is type-checked",
       with(jobset(), kJob0 + "/template/spec/parallelism", "2"),
       kRjob0 + ".template.spec.parallelism: Invalid value: \"string\": " + kRjob0 +
           ".template.spec.parallelism in body must be of type integer: \"string\""},
      {"a pod template list must be a list",
       with(jobset(), kJob0 + "/template/spec/template/spec/containers", Json::object()),
       kRjob0 + ".template.spec.template.spec.containers: Invalid value: \"object\": " + kRjob0 +
           ".template.spec.template.spec.containers in body must be of type array: \"object\""},
      {"map values are typed",
       with(jobset(), kJob0 + "/template/spec/template/metadata/labels", {{"app", 1}}),
       kRjob0 +
           ".template.spec.template.metadata.labels.app: Invalid value: \"integer\": " + kRjob0 +
           ".template.spec.template.metadata.labels.app in body must be of type string: "
           "\"integer\""},
      // The CRD gives every quantity string controller-gen's pattern; kube-openapi's
      // FailedPattern says "<name> in body should match '<pattern>'" (errors/schema.go).
      {"a quantity string must match the CRD's pattern",
       with(jobset(), kJob0 + "/template/spec/template/spec/containers/0/resources",
            {{"limits", {{"cpu", "abc"}, {"memory", "1Gi"}}}}),
       kRjob0 +
           ".template.spec.template.spec.containers[0].resources.limits.cpu: Invalid value: "
           "\"abc\": " +
           kRjob0 +
           ".template.spec.template.spec.containers[0].resources.limits.cpu in body should match "
           "'^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-"
           "9]+("
           "\\.[0-9]*)?)|(\\.[0-9]+))))?$'"},
      // kube-apiserver v1.37.2 answered these two, word for word: a map key is written as a
      // field, dots and all (kube-openapi's object validator joins path + "." + key).
      {"a map key with dots is written as the API server writes it",
       with(jobset(), kJob0 + "/template/spec/template/spec/containers/0/resources",
            {{"limits", {{"nvidia.com/gpu", "1.2.3"}}}}),
       kRjob0 +
           ".template.spec.template.spec.containers[0].resources.limits.nvidia.com/gpu: Invalid "
           "value: \"1.2.3\": " +
           kRjob0 +
           ".template.spec.template.spec.containers[0].resources.limits.nvidia.com/gpu in body "
           "should match " +
           kPattern},
      {"a PVC template's quantity must match the CRD's pattern",
       with(jobset(), "/spec/volumeClaimPolicies",
            {{{"templates",
               {{{"metadata", {{"name", "cache"}}},
                 {"spec", {{"resources", {{"requests", {{"storage", "abc"}}}}}}}}}}}}),
       "spec.volumeClaimPolicies[0].templates[0].spec.resources.requests.storage: Invalid value: "
       "\"abc\": spec.volumeClaimPolicies[0].templates[0].spec.resources.requests.storage in body "
       "should match " +
           kPattern},
      {"a PVC template's fields are typed",
       with(jobset(), "/spec/volumeClaimPolicies",
            {{{"templates", {{{"metadata", {{"name", 1}}}}}}}}),
       "spec.volumeClaimPolicies[0].templates[0].metadata.name: Invalid value: \"integer\": "
       "spec.volumeClaimPolicies[0].templates[0].metadata.name in body must be of type string: "
       "\"integer\""},
      {"a quantity ParseQuantity reads but the pattern refuses",
       with(jobset(), kJob0 + "/template/spec/template/spec/volumes",
            {{{"name", "v"}, {"emptyDir", {{"sizeLimit", "+"}}}}}),
       kRjob0 +
           ".template.spec.template.spec.volumes[0].emptyDir.sizeLimit: Invalid value: \"+\": " +
           kRjob0 +
           ".template.spec.template.spec.volumes[0].emptyDir.sizeLimit in body should match "
           "'^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-"
           "9]+("
           "\\.[0-9]*)?)|(\\.[0-9]+))))?$'"},
      {"a quantity as a JSON number has no pattern to match",
       with(jobset(), kJob0 + "/template/spec/template/spec/containers/0/resources",
            {{"limits", {{"cpu", 2}}}}),
       ""},
      {"int-or-string takes either",
       with(jobset(), kJob0 + "/template/spec/template/spec/containers/0/ports",
            {{{"containerPort", 80}}}),
       ""},
      {"int-or-string takes nothing else",
       with(jobset(), kJob0 + "/template/spec/template/spec/containers/0/readinessProbe",
            {{"httpGet", {{"port", true}}}}),
       kRjob0 +
           ".template.spec.template.spec.containers[0].readinessProbe.httpGet.port: Invalid value: "
           "\"boolean\": " +
           kRjob0 +
           ".template.spec.template.spec.containers[0].readinessProbe.httpGet.port in body must be "
           "of type "
           "integer,string: \"boolean\""},
      {"unknown template fields are pruned, not rejected",
       with(jobset(), kJob0 + "/template/spec/template/spec/someFutureField", {{"x", 1}}), ""},
      {"StartupPolicy InOrder and dependsOn are mutually exclusive (CEL)",
       with(with(jobset(), "/spec/startupPolicy", {{"startupPolicyOrder", "InOrder"}}),
            "/spec/replicatedJobs/1/dependsOn", {{{"name", "a"}, {"status", "Ready"}}}),
       R"(spec: Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive)"},
      {"InOrder without replicatedJobs: the CEL rule reads an absent field",
       without(with(jobset(), "/spec/startupPolicy", {{"startupPolicyOrder", "InOrder"}}),
               "/spec/replicatedJobs"),
       R"(spec: Invalid value: "object": no such key: replicatedJobs evaluating rule: StartupPolicy and DependsOn APIs are mutually exclusive)"},
      {"a claim template without metadata: the CEL rule reads an absent field",
       with(jobset(), "/spec/volumeClaimPolicies", {{{"templates", {{{"spec", Json::object()}}}}}}),
       R"(spec.volumeClaimPolicies[0]: Invalid value: "object": no such key: metadata evaluating rule: namespace cannot be set for VolumeClaimPolicies templates)"},
      {"AnyOrder and dependsOn go together",
       with(with(jobset(), "/spec/startupPolicy", {{"startupPolicyOrder", "AnyOrder"}}),
            "/spec/replicatedJobs/1/dependsOn", {{{"name", "a"}, {"status", "Ready"}}}),
       ""},
      {"volume claim templates may not set a namespace (CEL)",
       with(jobset(), "/spec/volumeClaimPolicies",
            {{{"templates", {{{"metadata", {{"name", "d"}, {"namespace", "x"}}}}}}}}),
       R"(spec.volumeClaimPolicies[0]: Invalid value: namespace cannot be set for VolumeClaimPolicies templates)"},
      {"metadata.name is a DNS-1123 subdomain", with(jobset(), "/metadata/name", "My_Job"),
       "metadata.name: Invalid value: \"My_Job\": a lowercase RFC 1123 subdomain must consist of "
       "lower case alphanumeric "
       "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
       "'example.com', regex used "
       "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"a name or a generateName is required", with(jobset(), "/metadata", Json::object()),
       "metadata.name: Required value: name or generateName is required"},
      {"generateName may end in a dash", with(jobset(), "/metadata", {{"generateName", "train-"}}),
       ""},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Parsed js(c.js);
      auto errs = v::validate_create_schema(js);
      // After an error of a blocking type the CEL rules do not run, and the API server says so
      // last (apiextensions-apiserver strategy.go, hasBlockingErr).
      const bool blocking = c.want.find("Required value") != std::string::npos ||
                            c.want.find("Unsupported value") != std::string::npos ||
                            c.want.find("Too many") != std::string::npos ||
                            c.want.find(" in body must be of type") != std::string::npos;
      if (blocking) {
        REQUIRE_FALSE(errs.empty());
        CHECK(errs.back().to_string() == kBlocked);
        errs.pop_back();
      }
      CHECK(jobset_webhook::field::to_string(errs) == c.want);
    }
  }
}

TEST_CASE("validate_create sees a manifest as the API server would: defaulted",
          "[validation][create]") {
  // Unnamed rules, no groupName and no replicas are fine once defaulted, although upstream's
  // ValidateCreate on the raw object would complain.
  const Json js = with(jobset(), "/spec/failurePolicy", {{"rules", {{{"action", "FailJobSet"}}}}});
  const Parsed raw(js);
  CHECK(jobset_webhook::validate_create_after_defaults(raw, Policy{}).empty());
  const std::string dns1035 =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
      "alphabetic "
      "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex "
      "used for validation "
      "is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  CHECK(jobset_webhook::field::to_string(v::validate_create_rules(raw, Policy{})) ==
        "[spec.replicatedJobs[0].groupName: Invalid value: \"\": " + dns1035 +
            ", spec.replicatedJobs[1].groupName: Invalid value: \"\": " + dns1035 +
            ", <nil>: Internal error: invalid failure policy rule name of length 0, the rule name "
            "must be at least 1 "
            "characters long and at most 128 characters long, <nil>: Internal error: invalid "
            "failure policy rule name "
            "'', a failure policy rule name must start with an alphabetic character, optionally "
            "followed by a string "
            "of alphanumeric characters or '_,:', and must end with an alphanumeric character or "
            "'_']");
}

TEST_CASE("validate_create runs the webhook rules only when the schema passes",
          "[validation][create]") {
  const Json js = with(with(jobset(), kJob0 + "/replicas", -1), kJob0 + "/name", "Bad.Name");
  const Parsed parsed(js);
  CHECK(jobset_webhook::field::to_string(jobset_webhook::validate_create_after_defaults(
            parsed, Policy{})) == kRjob0 + ".replicas: Invalid value: -1: " + kRjob0 +
                                      ".replicas in body should be greater than or equal to 0");
  const Parsed valid_schema(with(jobset(), kJob0 + "/name", "Bad.Name"));
  CHECK(
      jobset_webhook::field::to_string(
          jobset_webhook::validate_create_after_defaults(valid_schema, Policy{})) ==
      "spec.replicatedJobs[0].name: Invalid value: \"js-Bad.Name-0\": a DNS-1035 label must "
      "consist of lower case "
      "alphanumeric characters or '-', start with an alphabetic character, and end with an "
      "alphanumeric character "
      "(e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
}

TEST_CASE("validate_create follows the feature gates of the policy", "[validation][create]") {
  Json js = with(jobset(), "/spec/failurePolicy", {{"restartStrategy", "InPlaceRestart"}});
  js = without(js, "/spec/replicatedJobs/1");
  js[Json::json_pointer(kJob0 + "/template/spec/parallelism")] = 1;
  js[Json::json_pointer(kJob0 + "/template/spec/completions")] = 1;
  js[Json::json_pointer(kJob0 + "/template/spec/backoffLimit")] = 2147483647;
  js[Json::json_pointer(kJob0 + "/template/spec/podReplacementPolicy")] = "Failed";
  const Parsed parsed(js);
  CHECK(jobset_webhook::field::to_string(
            jobset_webhook::validate_create_after_defaults(parsed, Policy{})) ==
        "<nil>: Internal error: InPlaceRestart restart strategy cannot be set when InPlaceRestart "
        "feature gate is disabled");
  Policy on;
  on.feature_gates.in_place_restart = true;
  CHECK(jobset_webhook::validate_create_after_defaults(parsed, on).empty());
}

// A quantity the pattern lets through and ParseQuantity refuses: upstream's webhook cannot decode
// the JobSet and answers ParseQuantity's error alone (kube-apiserver v1.37.2 with upstream v0.12.0:
// `admission webhook "vjobset.kb.io" denied the request: quantities must match the regular
// expression ...` for "1e1.5", `... unable to parse quantity's suffix` for an exponent past int64);
// we answer the same words at the field.
TEST_CASE("validate_create refuses a quantity upstream's decoder cannot read, at its field",
          "[validation][create]") {
  struct Row {
    std::string quantity, want;
  };
  const std::string cpu =
      kRjob0 + ".template.spec.template.spec.containers[0].resources.limits[cpu]";
  const std::vector<Row> rows = {
      {"1e1.5", cpu + R"(: Invalid value: "1e1.5": quantities must match the regular expression )"
                      R"('^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')"},
      {"-1e-1.", cpu + R"(: Invalid value: "-1e-1.": quantities must match the regular )"
                       R"(expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')"},
      {"1e100000000000000000000",
       cpu + R"(: Invalid value: "1e100000000000000000000": unable to parse quantity's suffix)"},
      {"1e3", ""},
  };
  for (const auto& r : rows) {
    DYNAMIC_SECTION(r.quantity) {
      const Parsed js(with(jobset(), kJob0 + "/template/spec/template/spec/containers/0/resources",
                           {{"limits", {{"cpu", r.quantity}}}}));
      CHECK(jobset_webhook::field::to_string(
                jobset_webhook::validate_create_after_defaults(js, Policy{})) == r.want);
    }
  }
  const Parsed pvc(
      with(jobset(), "/spec/volumeClaimPolicies",
           {{{"templates",
              {{{"metadata", {{"name", "cache"}}},
                {"spec", {{"resources", {{"requests", {{"storage", "1e1.5"}}}}}}}}}}}}));
  CHECK(jobset_webhook::field::to_string(v::validate_quantity_decoding(pvc)) ==
        "spec.volumeClaimPolicies[0].templates[0].spec.resources.requests[storage]: Invalid value: "
        R"("1e1.5": quantities must match the regular expression )"
        R"('^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')");
}

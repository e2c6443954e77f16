// The schema table generated from upstream's CRD (scripts/gen_crd_schema.py), and the API
// server's schema validation over it: the whole JobSet on CREATE, the new object of an UPDATE
// with ratcheting (apiextensions-apiserver pkg/registry/customresource/strategy.go).

#include <catch2/catch.hpp>

#include "jobset_webhook/validation/create.h"
#include "jobset_webhook/validation/update.h"
#include "support/jobset_builder.h"
#include "support/json_edit.h"
#include "support/parsed.h"
#include "validation/crd_schema.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::field::to_string;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;
using jobset_webhook::testing::with;
using jobset_webhook::testing::without;

namespace {

Json jobset() { return MakeJobSet("js").ReplicatedJob(MakeReplicatedJob("a")).Suspend(true).Obj(); }

const std::string kPod = "/spec/replicatedJobs/0/template/spec/template/spec";
const std::string kPodPath = "spec.replicatedJobs[0].template.spec.template.spec";

// An error list as the API server ends it after an error of a blocking type (Required,
// Unsupported, Too many, a type error): the CEL rules were not run (strategy.go hasBlockingErr).
std::string blocked(const std::string& errors) {
  const std::string line =
      "<nil>: Invalid value: null: some validation rules were not checked because the object was "
      "invalid; correct the existing errors to complete validation";
  if (errors.front() == '[') return errors.substr(0, errors.size() - 1) + ", " + line + "]";
  return "[" + errors + ", " + line + "]";
}

std::string create_errors(const Json& js) {
  const Parsed p(js);
  return to_string(v::validate_create_schema(p));
}

std::string update_errors(const Json& old_js, const Json& new_js) {
  const Parsed o(old_js);
  const Parsed n(new_js);
  return to_string(v::validate_update_schema(o, n));
}

}  // namespace

TEST_CASE("The schema table holds the CRD's facts", "[validation][schema]") {
  const v::CrdSchema* rjobs = v::crd_schema_at("spec.replicatedJobs");
  REQUIRE(rjobs != nullptr);
  CHECK(rjobs->list_type == "map");
  CHECK(rjobs->list_map_keys == std::vector<std::string>{"name"});
  CHECK(rjobs->items->required == std::vector<std::string>{"name", "template"});
  const v::CrdSchema* group = v::crd_schema_at("spec.replicatedJobs[].groupName");
  REQUIRE(group != nullptr);
  CHECK(group->default_value == Json("default"));
  const v::CrdSchema* ttl = v::crd_schema_at("spec.ttlSecondsAfterFinished");
  REQUIRE(ttl != nullptr);
  CHECK(ttl->type == "integer");
  CHECK(ttl->format == "int32");
  CHECK(ttl->minimum == 0.0);
  const v::CrdSchema* pod = v::crd_schema_at("spec.replicatedJobs[].template.spec.template.spec");
  REQUIRE(pod != nullptr);
  CHECK(std::find(pod->required.begin(), pod->required.end(), "containers") != pod->required.end());
  CHECK(pod->property("containers")->list_map_keys == std::vector<std::string>{"name"});
  CHECK(pod->property("volumes")->list_type == "map");
  const v::CrdSchema* ports =
      v::crd_schema_at("spec.replicatedJobs[].template.spec.template.spec.containers[].ports");
  REQUIRE(ports != nullptr);
  CHECK(ports->list_map_keys == std::vector<std::string>{"containerPort", "protocol"});
  const v::CrdSchema* limits = v::crd_schema_at(
      "spec.replicatedJobs[].template.spec.template.spec.containers[].resources.limits{}");
  REQUIRE(limits != nullptr);
  CHECK(limits->int_or_string);
  CHECK_FALSE(limits->pattern.empty());
  CHECK(v::crd_schema_at("spec.failurePolicy.restartStrategy")->enum_values.size() == 3);
  CHECK(v::crd_schema_at("spec.replicatedJobs[].template.spec.template.metadata.labels")
            ->additional_properties->type == "string");
  CHECK(v::crd_schema_at("spec.noSuchField") == nullptr);
}

TEST_CASE("CREATE: the CRD's required fields and list keys, in the API server's words",
          "[validation][schema][create]") {
  CHECK(create_errors(jobset()).empty());
  CHECK(create_errors(without(jobset(), "/spec/replicatedJobs/0/template")) ==
        blocked("spec.replicatedJobs[0].template: Required value"));
  CHECK(create_errors(without(jobset(), "/spec/replicatedJobs/0/template/spec/template")) ==
        blocked("spec.replicatedJobs[0].template.spec.template: Required value"));
  CHECK(create_errors(without(jobset(), kPod + "/containers")) ==
        blocked(kPodPath + ".containers: Required value"));
  CHECK(create_errors(without(jobset(), kPod + "/containers/0/name")) ==
        blocked(kPodPath + ".containers[0].name: Required value"));
  CHECK(create_errors(with(jobset(), kPod + "/containers/1", {{"name", "main"}, {"image", "x"}})) ==
        kPodPath + R"(.containers[1]: Duplicate value: {"name":"main"})");
  const Json volumes = {{{"name", "data"}, {"emptyDir", Json::object()}},
                        {{"name", "data"}, {"emptyDir", Json::object()}},
                        {{"name", "data"}, {"emptyDir", Json::object()}}};
  // validateListSet reports the second place of a repeated key, once.
  CHECK(create_errors(with(jobset(), kPod + "/volumes", volumes)) ==
        kPodPath + R"(.volumes[1]: Duplicate value: {"name":"data"})");
  const Json ports = {{{"containerPort", 80}, {"protocol", "TCP"}},
                      {{"containerPort", 80}, {"protocol", "TCP"}}};
  CHECK(create_errors(with(jobset(), kPod + "/containers/0/ports", ports)) ==
        kPodPath +
            R"(.containers[0].ports[1]: Duplicate value: {"containerPort":80,"protocol":"TCP"})");
  // A set's entries (podFailurePolicy's exit codes): a repeated value is reported once.
  const Json rule = {{"action", "FailJob"},
                     {"onExitCodes", {{"operator", "In"}, {"values", {1, 2, 1, 1}}}}};
  CHECK(create_errors(with(jobset(), "/spec/replicatedJobs/0/template/spec/podFailurePolicy",
                           {{"rules", {rule}}})) ==
        "spec.replicatedJobs[0].template.spec.podFailurePolicy.rules[0].onExitCodes.values[2]: "
        "Duplicate value: 1");
}

TEST_CASE("CREATE: types, formats and bounds as kube-openapi words them",
          "[validation][schema][create]") {
  CHECK(
      create_errors(with(jobset(), "/spec/suspend", "yes")) ==
      blocked(
          R"(spec.suspend: Invalid value: "string": spec.suspend in body must be of type boolean: "string")"));
  // A boolean for an int32: kube-openapi's typeValidator holds it against the format first.
  CHECK(
      create_errors(with(jobset(), "/spec/ttlSecondsAfterFinished", true)) ==
      blocked(
          R"(spec.ttlSecondsAfterFinished: Invalid value: "": spec.ttlSecondsAfterFinished in body must be of type int32: "")"));
  CHECK(
      create_errors(with(jobset(), "/spec/ttlSecondsAfterFinished", 1.5)) ==
      blocked(
          R"(spec.ttlSecondsAfterFinished: Invalid value: "float64": spec.ttlSecondsAfterFinished in body must be of type int32: "float64")"));
  CHECK(
      create_errors(with(jobset(), "/spec/ttlSecondsAfterFinished", 3000000000LL)) ==
      R"(<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.ttlSecondsAfterFinished)");
  CHECK(create_errors(with(jobset(), kPod + "/containers/0/image", true)) ==
        blocked(kPodPath + ".containers[0].image: Invalid value: \"boolean\": " + kPodPath +
                ".containers[0].image in body must be of type string: \"boolean\""));
  CHECK(create_errors(with(jobset(), kPod + "/nodeSelector", {{"disk", true}})) ==
        blocked(kPodPath + ".nodeSelector.disk: Invalid value: \"boolean\": " + kPodPath +
                ".nodeSelector.disk in body must be of type string: \"boolean\""));
  CHECK(create_errors(with(jobset(), kPod + "/restartPolicy", "Sometimes")).empty());
}

TEST_CASE("UPDATE: the new object against the schema, with ratcheting",
          "[validation][schema][update]") {
  const Json old_js = jobset();
  CHECK(update_errors(old_js, old_js).empty());
  CHECK(update_errors(old_js, with(old_js, "/spec/ttlSecondsAfterFinished", -5)) ==
        "spec.ttlSecondsAfterFinished: Invalid value: -5: spec.ttlSecondsAfterFinished in body "
        "should be greater than or equal to 0");
  CHECK(
      update_errors(old_js, with(old_js, "/spec/suspend", "yes")) ==
      blocked(
          R"(spec.suspend: Invalid value: "string": spec.suspend in body must be of type boolean: "string")"));
  CHECK(update_errors(old_js, with(old_js, kPod + "/nodeSelector", {{"disk", true}})) ==
        blocked(kPodPath + ".nodeSelector.disk: Invalid value: \"boolean\": " + kPodPath +
                ".nodeSelector.disk in body must be of type string: \"boolean\""));
  CHECK(update_errors(old_js, with(old_js, kPod + "/containers/0/image", true)) ==
        blocked(kPodPath + ".containers[0].image: Invalid value: \"boolean\": " + kPodPath +
                ".containers[0].image in body must be of type string: \"boolean\""));
  // Ratcheting: an invalid value the old object already had passes; a changed one does not.
  const Json bad = with(old_js, "/spec/ttlSecondsAfterFinished", -5);
  CHECK(update_errors(bad, with(bad, "/spec/suspend", false)).empty());
  CHECK(update_errors(bad, with(bad, "/spec/ttlSecondsAfterFinished", -6)) ==
        "spec.ttlSecondsAfterFinished: Invalid value: -6: spec.ttlSecondsAfterFinished in body "
        "should be greater than or equal to 0");
  // Through list-map keys: the container named main correlates wherever it stands.
  const Json bad_image = with(old_js, kPod + "/containers/0/image", 7);
  const Json moved =
      with(with(bad_image, kPod + "/containers/0", {{"name", "side"}, {"image", "x"}}),
           kPod + "/containers/1", {{"name", "main"}, {"image", 7}});
  CHECK(update_errors(bad_image, moved).empty());
  // Duplicate keys: checked on the new object only when the old one has none.
  const Json dup = with(old_js, kPod + "/containers/1", {{"name", "main"}, {"image", "x"}});
  CHECK(update_errors(old_js, dup) ==
        kPodPath + R"(.containers[1]: Duplicate value: {"name":"main"})");
  CHECK(update_errors(dup, with(dup, "/spec/suspend", false)).empty());
}

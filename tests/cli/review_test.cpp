#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
#include "support/process.h"

using jobset_webhook::Hook;
using jobset_webhook::Policy;
using jobset_webhook::testing::run_cli;

namespace {

const std::string kUpdate =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
  "uid":"u-1","kind":{"group":"jobset.x-k8s.io","version":"v1alpha2","kind":"JobSet"},"operation":"UPDATE",
  "object":{"metadata":{"name":"js"},"spec":{"replicatedJobs":[{"name":"w","replicas":1,"template":{"spec":{"parallelism":2}}}]}},
  "oldObject":{"metadata":{"name":"js"},"spec":{"replicatedJobs":[{"name":"w","replicas":1,"template":{"spec":{"parallelism":1}}}]}}}})";

std::string write_temp(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << content;
  return path.string();
}

}  // namespace

TEST_CASE("review prints exactly what the decision core answers, from stdin or a file",
          "[cli][review]") {
  const auto expected =
      jobset_webhook::admission::handle_review(kUpdate, Policy{}, Hook::kValidating);
  REQUIRE(expected.ok());
  const auto from_stdin = run_cli("review", kUpdate);
  CHECK(from_stdin.exit_code == 0);
  CHECK(from_stdin.out == expected.value() + "\n");
  const auto from_file = run_cli("review " + write_temp("review-test.json", kUpdate));
  CHECK(from_file.exit_code == 0);
  CHECK(from_file.out == from_stdin.out);
}

TEST_CASE("review exits 0 on a denial and 2 on input that is not JSON", "[cli][review]") {
  CHECK(run_cli("review -", kUpdate).out.find(R"("allowed":false)") != std::string::npos);
  const auto bad = run_cli("review -", "{oops");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("request body is not valid JSON") != std::string::npos);
}

TEST_CASE("review reads the policy file", "[cli][review]") {
  const auto config = write_temp("policy-test.yaml", "elastic:\n  replicas: false\n");
  std::string scaled = kUpdate;
  // Make the only change a replicas change.
  scaled.replace(scaled.find(R"("parallelism":2)"), 15, R"("parallelism":1)");
  scaled.replace(scaled.find(R"("replicas":1)"), 12, R"("replicas":3)");
  CHECK(run_cli("review -", scaled).out.find(R"("allowed":true)") != std::string::npos);
  const auto strict = run_cli("review --config " + config + " -", scaled);
  CHECK(strict.exit_code == 0);
  CHECK(strict.out.find("spec.replicatedJobs[0].replicas: Invalid value: 3: field is immutable") !=
        std::string::npos);
}

TEST_CASE("review refuses a bad policy file, naming the key", "[cli][review]") {
  const auto config = write_temp("policy-bad.yaml", "elastic:\n  replica: true\n");
  const auto r = run_cli("review --config " + config + " -", kUpdate);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("elastic.replica: unknown key") != std::string::npos);
}

TEST_CASE("review on a missing file exits 2 naming it", "[cli][review]") {
  const auto r = run_cli("review /nonexistent.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/nonexistent.json") != std::string::npos);
}

namespace {

const std::string kCreate =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
  "uid":"u-2","kind":{"group":"jobset.x-k8s.io","version":"v1alpha2","kind":"JobSet"},"operation":"CREATE",
  "object":{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js"},"spec":{"replicatedJobs":[
    {"name":"w","replicas":2,"template":{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}}]}}}})";

}  // namespace

TEST_CASE("review --mutate answers a create as the mutating webhook, with the defaults patch",
          "[cli][review]") {
  const auto expected =
      jobset_webhook::admission::handle_review(kCreate, Policy{}, Hook::kMutating);
  REQUIRE(expected.ok());
  const auto r = run_cli("review --mutate -", kCreate);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == expected.value() + "\n");
  const auto response = jobset_webhook::Json::parse(r.out)["response"];
  CHECK(response["allowed"] == true);
  CHECK(response["patchType"] == "JSONPatch");
  // base64 of [{"op":"add","path":"/spec/successPolicy","value":{"operator":"All"}},...]
  CHECK(response["patch"].get<std::string>().rfind(
            "W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvc3VjY2Vzc1BvbGljeSIs", 0) == 0);
}

TEST_CASE("review answers a create as the validating webhook", "[cli][review]") {
  CHECK(run_cli("review -", kCreate).out.find(R"("allowed":true)") != std::string::npos);
  std::string bad = kCreate;
  bad.replace(bad.find(R"("replicas":2)"), 12, R"("replicas":-1)");
  const auto r = run_cli("review -", bad);
  CHECK(r.exit_code == 0);
  CHECK(
      r.out.find(
          R"(spec.replicatedJobs[0].replicas: Invalid value: -1: spec.replicatedJobs[0].replicas in body )"
          R"(should be greater than or equal to 0)") != std::string::npos);
}

TEST_CASE("review --config turns upstream's feature gates on", "[cli][review]") {
  const std::string in_place =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
    "uid":"u-3","kind":{"group":"jobset.x-k8s.io","version":"v1alpha2","kind":"JobSet"},"operation":"CREATE",
    "object":{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js"},"spec":{
      "failurePolicy":{"restartStrategy":"InPlaceRestart"},"replicatedJobs":[{"name":"w","template":{"spec":{
        "parallelism":1,"completions":1,"backoffLimit":2147483647,"podReplacementPolicy":"Failed",
        "template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}}]}}}})";
  CHECK(run_cli("review -", in_place).out.find("InPlaceRestart feature gate is disabled") !=
        std::string::npos);
  const auto config = write_temp("policy-gates.yaml", "featureGates:\n  InPlaceRestart: true\n");
  CHECK(run_cli("review --config " + config + " -", in_place).out.find(R"("allowed":true)") !=
        std::string::npos);
}

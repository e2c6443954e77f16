#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
#include "support/process.h"

using jobset_webhook::Hook;
using jobset_webhook::Policy;
using jobset_webhook::testing::run_cli;

namespace {

const std::string kUpdate = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
  "uid":"u-1","kind":{"group":"jobset.x-k8s.io","version":"v1alpha2","kind":"JobSet"},"operation":"UPDATE",
  "object":{"metadata":{"name":"js"},"spec":{"replicatedJobs":[{"name":"w","replicas":1,"template":{"spec":{"parallelism":2}}}]}},
  "oldObject":{"metadata":{"name":"js"},"spec":{"replicatedJobs":[{"name":"w","replicas":1,"template":{"spec":{"parallelism":1}}}]}}}})";

std::string write_temp(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << content;
  return path.string();
}

}  // namespace

TEST_CASE("review prints exactly what the decision core answers, from stdin or a file", "[cli][review]") {
  const auto expected = jobset_webhook::admission::handle_review(kUpdate, Policy{}, Hook::kValidating);
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
  CHECK(strict.out.find("spec.replicatedJobs[0].replicas: Invalid value: 3: field is immutable") != std::string::npos);
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

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
#include "support/jobset_builder.h"
#include "support/process.h"
#include "support/review_builder.h"

using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::MakeReview;
using jobset_webhook::testing::run_cli;

namespace {

// "js" with one replicatedJob "w".
Json jobset(int parallelism, int replicas = 1) {
  return MakeJobSet("js")
      .ReplicatedJob(MakeReplicatedJob("w").Replicas(replicas).Parallelism(parallelism))
      .Obj();
}

// Denied: parallelism is immutable.
const std::string kUpdate = MakeReview().Update(jobset(1), jobset(2)).Uid("u-1").Text();

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
  // The only change a replicas change.
  const std::string scaled = MakeReview().Update(jobset(1), jobset(1, 3)).Uid("u-1").Text();
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

std::string create_review(int replicas) {
  return MakeReview()
      .Create(
          MakeJobSet("js")
              .ReplicatedJob(MakeReplicatedJob("w").Replicas(replicas).Container("c", "busybox"))
              .Obj())
      .Uid("u-2")
      .Text();
}

const std::string kCreate = create_review(2);

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
  const auto r = run_cli("review -", create_review(-1));
  CHECK(r.exit_code == 0);
  CHECK(
      r.out.find(
          R"(spec.replicatedJobs[0].replicas: Invalid value: -1: spec.replicatedJobs[0].replicas in body )"
          R"(should be greater than or equal to 0)") != std::string::npos);
}

TEST_CASE("review --config turns upstream's feature gates on", "[cli][review]") {
  const std::string in_place =
      MakeReview()
          .Create(MakeJobSet("js")
                      .FailurePolicy({{"restartStrategy", "InPlaceRestart"}})
                      .ReplicatedJob(MakeReplicatedJob("w")
                                         .Unset("/replicas")
                                         .Parallelism(1)
                                         .Completions(1)
                                         .BackoffLimit(2147483647)
                                         .JobSpec("podReplacementPolicy", "Failed")
                                         .Container("c", "busybox"))
                      .Obj())
          .Uid("u-3")
          .Text();
  CHECK(run_cli("review -", in_place).out.find("InPlaceRestart feature gate is disabled") !=
        std::string::npos);
  const auto config = write_temp("policy-gates.yaml", "featureGates:\n  InPlaceRestart: true\n");
  CHECK(run_cli("review --config " + config + " -", in_place).out.find(R"("allowed":true)") !=
        std::string::npos);
}

TEST_CASE("review --config may refuse a class of scale hazards", "[cli][review]") {
  const std::string scaled = MakeReview().Update(jobset(1), jobset(1, 3)).Uid("u-4").Text();
  CHECK(run_cli("review -", scaled).out.find(R"("allowed":true)") != std::string::npos);
  const auto config =
      write_temp("policy-hazards.yaml", "scaleHazards:\n  deny: [staleReplicaCounts]\n");
  const auto strict = run_cli("review --config " + config + " -", scaled);
  CHECK(strict.exit_code == 0);
  CHECK(strict.out.find(R"("allowed":false)") != std::string::npos);
  CHECK(strict.out.find("spec.replicatedJobs[0].replicas: Forbidden: scaled up from 1 to 3: "
                        "upstream's JobSet controller writes the replica counts") !=
        std::string::npos);
  CHECK(strict.out.find("(scaleHazards.deny: staleReplicaCounts)") != std::string::npos);
}

#include "jobset_webhook/validation/replicated_job_scaler.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;

namespace {

Json scaler(const std::string& spec) {
  return Json::parse(R"({"apiVersion":"elastic.jobset-webhook.io/v1alpha1",)"
                     R"("kind":"ReplicatedJobScaler","metadata":{"name":"s"},"spec":)" +
                     spec + "}");
}

std::vector<std::string> lines(const jobset_webhook::field::ErrorList& errs) {
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.to_string());
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("a scaler within its bounds is accepted, on CREATE and UPDATE") {
  const auto s = scaler(
      R"({"jobSetName":"demo","replicatedJobName":"workers","replicas":2,"minReplicas":1,"maxReplicas":4})");
  CHECK(lines(v::validate_replicated_job_scaler(nullptr, s)).empty());
  auto scaled = s;
  scaled["spec"]["replicas"] = 4;
  CHECK(lines(v::validate_replicated_job_scaler(&s, scaled)).empty());
}

TEST_CASE("a scaler without bounds takes any replicas the schema allows") {
  CHECK(lines(v::validate_replicated_job_scaler(
                  nullptr, scaler(R"({"jobSetName":"demo","replicatedJobName":"w","replicas":0})")))
            .empty());
}

TEST_CASE("minReplicas above maxReplicas is refused, and replicas is not judged against them") {
  CHECK(
      lines(v::validate_replicated_job_scaler(
          nullptr,
          scaler(
              R"({"jobSetName":"demo","replicatedJobName":"w","replicas":9,"minReplicas":5,"maxReplicas":3})"))) ==
      Lines{"spec.minReplicas: Invalid value: 5: must be less than or equal to maxReplicas (3)"});
}

TEST_CASE("replicas outside minReplicas..maxReplicas is refused at spec.replicas") {
  const std::string names = R"("jobSetName":"demo","replicatedJobName":"w",)";
  CHECK(lines(v::validate_replicated_job_scaler(
            nullptr, scaler("{" + names + R"("replicas":0,"minReplicas":1})"))) ==
        Lines{"spec.replicas: Invalid value: 0: must be greater than or equal to minReplicas (1)"});
  CHECK(lines(v::validate_replicated_job_scaler(
            nullptr, scaler("{" + names + R"("replicas":5,"maxReplicas":4})"))) ==
        Lines{"spec.replicas: Invalid value: 5: must be less than or equal to maxReplicas (4)"});
}

TEST_CASE("the names are required DNS-1035 labels") {
  const auto errs = lines(
      v::validate_replicated_job_scaler(nullptr, scaler(R"({"jobSetName":"Demo","replicas":1})")));
  REQUIRE(errs.size() == 2);
  CHECK(errs[0].rfind(R"(spec.jobSetName: Invalid value: "Demo": a DNS-1035 label)", 0) == 0);
  CHECK(errs[1] == "spec.replicatedJobName: Required value");
  CHECK(lines(v::validate_replicated_job_scaler(nullptr, Json::parse(R"({"kind":"x"})"))) ==
        Lines{"spec: Required value"});
}

TEST_CASE("jobSetName and replicatedJobName are immutable on UPDATE") {
  const auto old = scaler(R"({"jobSetName":"demo","replicatedJobName":"workers","replicas":1})");
  const auto moved = scaler(R"({"jobSetName":"other","replicatedJobName":"leader","replicas":1})");
  CHECK(lines(v::validate_replicated_job_scaler(&old, moved)) ==
        Lines{R"(spec.jobSetName: Invalid value: "other": field is immutable)",
              R"(spec.replicatedJobName: Invalid value: "leader": field is immutable)"});
}

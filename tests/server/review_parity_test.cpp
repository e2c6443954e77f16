// serve answers with the bytes of admission::handle_review, which `review` prints (plus its final
// newline): one code path for every front end.

#include <filesystem>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
#include "support/jobset_builder.h"
#include "support/review_builder.h"
#include "support/scaler_builder.h"
#include "support/sample_reviews.h"
#include "support/process.h"
#include "support/test_server.h"

namespace t = jobset_webhook::testing;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;

namespace {

using jobset_webhook::testing::kMutate;
using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::kValidateScaler;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::MakeReview;
using jobset_webhook::testing::MakeScaler;

// "js" in "default": one replicatedJob "workers" running this image.
Json jobset(const std::string& image, int replicas) {
  return MakeJobSet("js")
      .Namespace("default")
      .ReplicatedJob(MakeReplicatedJob("workers").Replicas(replicas).Image(image))
      .Obj();
}

struct Case {
  std::string name;
  std::string body;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& entry : std::filesystem::directory_iterator(JOBSET_TESTDATA_DIR)) {
    if (entry.path().extension() == ".json")
      out.push_back({entry.path().filename().string(), t::slurp(entry.path())});
  }
  REQUIRE(out.size() >= 2);
  out.push_back(
      {"allowed scale", MakeReview().Update(jobset("bash:5.1", 1), jobset("bash:5.1", 3)).Text()});
  out.push_back({"denied image change",
                 MakeReview().Update(jobset("bash:5.1", 1), jobset("bash:5.2", 1)).Text()});
  out.push_back({"create", MakeReview().Create(jobset("bash:5.1", 1)).Text()});
  out.push_back({"delete", MakeReview().Delete().Text()});
  out.push_back({"v1beta1", MakeReview()
                                .Update(jobset("b", 1), jobset("a", 1))
                                .ApiVersion("admission.k8s.io/v1beta1")
                                .Text()});
  out.push_back({"not an AdmissionReview", R"({"kind":"Pod","apiVersion":"v1"})"});
  out.push_back(
      {"update without oldObject", MakeReview().Operation("UPDATE").Object(jobset("a", 1)).Text()});
  out.push_back({"scaler create", MakeReview().Scaler().Create(MakeScaler("s").Obj()).Text()});
  out.push_back(
      {"scaler past maxReplicas",
       MakeReview().Scaler().Create(MakeScaler("s").Replicas(5).MaxReplicas(4).Obj()).Text()});
  out.push_back({"scaler delete", MakeReview().Scaler().Delete().Text()});
  return out;
}

}  // namespace

TEST_CASE("serve answers every review with the bytes of handle_review, for every webhook",
          "[server][parity]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto client = server.client(pki.ca_crt());
  for (const auto& c : cases()) {
    for (const auto& [path, hook] :
         {std::pair{kValidate, Hook::kValidating}, std::pair{kMutate, Hook::kMutating},
          std::pair{kValidateScaler, Hook::kValidatingScaler}}) {
      DYNAMIC_SECTION(c.name << " " << path) {
        const auto expected = jobset_webhook::admission::handle_review(c.body, Policy{}, hook);
        REQUIRE(expected.ok());
        const auto res = client->Post(path.c_str(), c.body, "application/json");
        REQUIRE(res);
        CHECK(res->status == 200);
        CHECK(res->get_header_value("Content-Type") == "application/json");
        CHECK(res->body == expected.value());
      }
    }
  }
}

TEST_CASE("serve answers as review prints, minus review's final newline", "[server][parity]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto client = server.client(pki.ca_crt());
  for (const auto& file : {"sample-review.json", "sample-scale-review.json"}) {
    const std::string path = std::string(JOBSET_TESTDATA_DIR) + "/" + file;
    DYNAMIC_SECTION(file) {
      const auto printed = t::run_cli("review " + path);
      REQUIRE(printed.exit_code == 0);
      const auto validated = client->Post(kValidate.c_str(), t::slurp(path), "application/json");
      REQUIRE(validated);
      CHECK(validated->body + "\n" == printed.out);
      const auto printed_mutating = t::run_cli("review --mutate " + path);
      const auto mutated = client->Post(kMutate.c_str(), t::slurp(path), "application/json");
      REQUIRE(mutated);
      CHECK(mutated->body + "\n" == printed_mutating.out);
    }
  }
}

TEST_CASE("serve answers a scaler review as review --scaler prints, and refuses it as upstream's",
          "[server][parity][scaler]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto client = server.client(pki.ca_crt());
  const std::string path = std::string(JOBSET_TESTDATA_DIR) + "/sample-scaler-review.json";
  const auto printed = t::run_cli("review --scaler " + path);
  REQUIRE(printed.exit_code == 0);
  const auto res = client->Post(kValidateScaler.c_str(), t::slurp(path), "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body + "\n" == printed.out);
  const auto status = Json::parse(res->body)["response"]["status"];
  CHECK(status["code"] == 422);
  CHECK(status["message"] ==
        "ReplicatedJobScaler.elastic.jobset-webhook.io \"training-workers\" is invalid: "
        "[spec.replicas: Invalid value: 6: must be less than or equal to maxReplicas (4), "
        "spec.jobSetName: Invalid value: \"other\": field is immutable]");
  // The same review on the JobSet's path is not judged by the JobSet's rules.
  const auto wrong = client->Post(kValidate.c_str(), t::slurp(path), "application/json");
  REQUIRE(wrong);
  CHECK(Json::parse(wrong->body)["response"]["status"]["message"] ==
        "this webhook admits only jobset.x-k8s.io/v1alpha2 JobSet objects, got "
        "elastic.jobset-webhook.io/v1alpha1 ReplicatedJobScaler");
  CHECK(t::run_cli("review --scaler --mutate " + path).exit_code != 0);
}

TEST_CASE("serve judges with the policy it was given", "[server][parity]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.policy.elastic.replicas = false;
  t::TestServer server(options);
  const auto body = MakeReview().Update(jobset("a", 1), jobset("a", 3)).Text();
  const auto expected =
      jobset_webhook::admission::handle_review(body, options.policy, Hook::kValidating);
  REQUIRE(expected.ok());
  CHECK(expected.value().find(R"("allowed":false)") != std::string::npos);
  const auto res = server.client(pki.ca_crt())->Post(kValidate.c_str(), body, "application/json");
  REQUIRE(res);
  CHECK(res->body == expected.value());
}

TEST_CASE("serve refuses the scale hazards its policy denies, as handle_review does",
          "[server][parity]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.policy.deny_scale_hazards = {jobset_webhook::ScaleHazard::kStaleReplicaCounts};
  t::TestServer server(options);
  const auto body = MakeReview().Update(jobset("a", 1), jobset("a", 3)).Text();
  const auto expected =
      jobset_webhook::admission::handle_review(body, options.policy, Hook::kValidating);
  REQUIRE(expected.ok());
  CHECK(expected.value().find(R"("allowed":false)") != std::string::npos);
  CHECK(expected.value().find("scaleHazards.deny: staleReplicaCounts") != std::string::npos);
  const auto res = server.client(pki.ca_crt())->Post(kValidate.c_str(), body, "application/json");
  REQUIRE(res);
  CHECK(res->body == expected.value());
}

TEST_CASE("serve answers large reviews of changing sizes as handle_review, through kept buffers",
          "[server][parity][memory]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto client = server.client(pki.ca_crt());
  // Sizes around the kept buffers' and parsers' limits (memory_sizing.h), growing and shrinking,
  // so that a kept buffer or parser is reused for a smaller body and grown for a larger one; the
  // last past the size kept. Two differing label values in each, so that a stale byte of an
  // earlier body would change the answer.
  for (const std::size_t kib : {300, 1200, 400, 1500, 280, 2000}) {
    INFO(kib << " KiB, on one server one after the other");
    // In both objects: the body is about `kib` KiB.
    const std::string pad((kib << 10) / 2, static_cast<char>('a' + kib % 26));
    auto old_object = jobset("bash:5.1", 1);
    auto new_object = jobset("bash:5.1", 2);
    old_object["metadata"]["labels"]["pad"] = pad;
    new_object["metadata"]["labels"]["pad"] = pad;
    new_object["metadata"]["labels"]["size"] = std::to_string(kib);
    const std::string body = MakeReview().Update(old_object, new_object).Text();
    const auto expected =
        jobset_webhook::admission::handle_review(body, Policy{}, Hook::kValidating);
    REQUIRE(expected.ok());
    const auto res = client->Post(kValidate.c_str(), body, "application/json");
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->body == expected.value());
  }
}

// serve answers with the bytes of admission::handle_review, which `review` prints (plus its final
// newline): one code path for every front end.

#include <filesystem>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
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

Json jobset(const std::string& image, int replicas) {
  return Json::parse(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
    "metadata":{"name":"js","namespace":"default"},
    "spec":{"replicatedJobs":[{"name":"workers","replicas":)" +
                     std::to_string(replicas) + R"(,
      "template":{"spec":{"template":{"spec":{"containers":[{"name":"main","image":")" +
                     image + R"("}]}}}}}]}})");
}

Json review(const std::string& operation, const Json& object, const Json& old_object = nullptr,
            const std::string& api_version = "admission.k8s.io/v1") {
  Json request = {
      {"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
      {"kind", {{"group", "jobset.x-k8s.io"}, {"version", "v1alpha2"}, {"kind", "JobSet"}}},
      {"name", "js"},
      {"namespace", "default"},
      {"operation", operation}};
  if (!object.is_null()) request["object"] = object;
  if (!old_object.is_null()) request["oldObject"] = old_object;
  return {{"apiVersion", api_version}, {"kind", "AdmissionReview"}, {"request", request}};
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
      {"allowed scale", review("UPDATE", jobset("bash:5.1", 3), jobset("bash:5.1", 1)).dump()});
  out.push_back({"denied image change",
                 review("UPDATE", jobset("bash:5.2", 1), jobset("bash:5.1", 1)).dump()});
  out.push_back({"create", review("CREATE", jobset("bash:5.1", 1)).dump()});
  out.push_back({"delete", review("DELETE", nullptr).dump()});
  out.push_back(
      {"v1beta1",
       review("UPDATE", jobset("a", 1), jobset("b", 1), "admission.k8s.io/v1beta1").dump()});
  out.push_back({"not an AdmissionReview", R"({"kind":"Pod","apiVersion":"v1"})"});
  out.push_back({"update without oldObject", review("UPDATE", jobset("a", 1)).dump()});
  return out;
}

}  // namespace

TEST_CASE("serve answers every review with the bytes of handle_review, for both webhooks",
          "[server][parity]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto client = server.client(pki.ca_crt());
  for (const auto& c : cases()) {
    for (const auto& [path, hook] :
         {std::pair{kValidate, Hook::kValidating}, std::pair{kMutate, Hook::kMutating}}) {
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

TEST_CASE("serve judges with the policy it was given", "[server][parity]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.policy.elastic.replicas = false;
  t::TestServer server(options);
  const auto body = review("UPDATE", jobset("a", 3), jobset("a", 1)).dump();
  const auto expected =
      jobset_webhook::admission::handle_review(body, options.policy, Hook::kValidating);
  REQUIRE(expected.ok());
  CHECK(expected.value().find(R"("allowed":false)") != std::string::npos);
  const auto res = server.client(pki.ca_crt())->Post(kValidate.c_str(), body, "application/json");
  REQUIRE(res);
  CHECK(res->body == expected.value());
}

#include "cli/certs_secret.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "jobset_webhook/base64.h"
#include "support/fake_api.h"

using jobset_webhook::base64_encode;
using jobset_webhook::Json;
using jobset_webhook::StatusCode;
using jobset_webhook::cli::ensure_serving_secret;
using jobset_webhook::cli::inject_ca_bundle;
using jobset_webhook::cli::ServingCertificates;
using jobset_webhook::kube::api_error;
using jobset_webhook::testing::FakeApi;

namespace {

const std::string kSecrets = "/api/v1/namespaces/ns/secrets";
const std::string kSecret = kSecrets + "/jobset-webhook-tls";
const std::string kValidating =
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/jobset-webhook";
const std::string kMutating =
    "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/jobset-webhook";

const ServingCertificates kFresh{"CA PEM\n", "CERT PEM\n", "KEY PEM\n"};

Json stored_secret(const std::string& ca, bool with_key = true) {
  Json data = {{"ca.crt", base64_encode(ca)}, {"tls.crt", base64_encode("old cert")}};
  if (with_key) data["tls.key"] = base64_encode("old key");
  return {{"metadata", {{"name", "jobset-webhook-tls"}, {"resourceVersion", "7"}}}, {"data", data}};
}

// A configuration with one webhook that calls the Service and one that calls a url.
Json configuration(const std::string& service_bundle) {
  Json service = {{"service", {{"name", "jobset-webhook"}, {"namespace", "ns"}}}};
  if (!service_bundle.empty()) service["caBundle"] = service_bundle;
  return {{"metadata", {{"name", "jobset-webhook"}, {"resourceVersion", "3"}}},
          {"webhooks",
           {{{"name", "a.jobset-webhook.kb.io"}, {"clientConfig", service}},
            {{"name", "b.jobset-webhook.kb.io"},
             {"clientConfig", {{"url", "https://127.0.0.1:9443/x"}, {"caBundle", "OTHER"}}}}}}};
}

}  // namespace

TEST_CASE("certs --secret creates the Secret when it is absent", "[cli][certs_secret]") {
  FakeApi api;
  const auto got = ensure_serving_secret(api, "ns", "jobset-webhook-tls", kFresh);
  REQUIRE(got.ok());
  CHECK(got.value().created);
  CHECK(got.value().ca_pem == "CA PEM\n");
  CHECK(api.calls == std::vector<std::string>{"GET " + kSecret, "POST " + kSecrets});
  REQUIRE(api.created.size() == 1);
  const Json& s = api.created[0];
  CHECK(s["type"] == "kubernetes.io/tls");
  CHECK(s["metadata"]["name"] == "jobset-webhook-tls");
  CHECK(s["metadata"]["namespace"] == "ns");
  CHECK(s["data"] ==
        Json{{"ca.crt", "Q0EgUEVNCg=="}, {"tls.crt", "Q0VSVCBQRU0K"}, {"tls.key", "S0VZIFBFTQo="}});
}

TEST_CASE("certs --secret keeps a Secret that exists, certificate and all", "[cli][certs_secret]") {
  FakeApi api;
  api.objects[kSecret] = stored_secret("kept CA");
  const auto got = ensure_serving_secret(api, "ns", "jobset-webhook-tls", kFresh);
  REQUIRE(got.ok());
  CHECK_FALSE(got.value().created);
  CHECK(got.value().ca_pem == "kept CA");
  CHECK(api.calls == std::vector<std::string>{"GET " + kSecret});
}

TEST_CASE("certs --secret reads the Secret another run created first", "[cli][certs_secret]") {
  FakeApi api;
  api.failures["POST " + kSecrets] =
      api_error(409, "secrets \"jobset-webhook-tls\" already exists");
  api.after = [&](const std::string& call) {
    if (call == "POST " + kSecrets) api.objects[kSecret] = stored_secret("their CA");
  };
  const auto got = ensure_serving_secret(api, "ns", "jobset-webhook-tls", kFresh);
  REQUIRE(got.ok());
  CHECK_FALSE(got.value().created);
  CHECK(got.value().ca_pem == "their CA");
}

TEST_CASE("certs --secret refuses a Secret without a key, and passes API failures up",
          "[cli][certs_secret]") {
  FakeApi api;
  api.objects[kSecret] = stored_secret("CA", false);
  auto got = ensure_serving_secret(api, "ns", "jobset-webhook-tls", kFresh);
  REQUIRE_FALSE(got.ok());
  CHECK(got.failure().code == StatusCode::kFailedPrecondition);
  CHECK(got.failure().message ==
        "Secret ns/jobset-webhook-tls exists without tls.key; delete it to have a new "
        "certificate made");

  FakeApi forbidden;
  forbidden.failures["GET " + kSecret] = api_error(403, "secrets is forbidden");
  got = ensure_serving_secret(forbidden, "ns", "jobset-webhook-tls", kFresh);
  REQUIRE_FALSE(got.ok());
  CHECK(got.failure().code == StatusCode::kPermissionDenied);
  CHECK(forbidden.created.empty());
}

TEST_CASE("certs --inject-ca-into sets the caBundle of the Service webhooks only",
          "[cli][certs_secret]") {
  FakeApi api;
  api.objects[kValidating] = configuration("");
  api.objects[kMutating] = configuration("stale");
  const auto got = inject_ca_bundle(api, "jobset-webhook", "CA PEM\n");
  REQUIRE(got.ok());
  CHECK(got.value() == 2);
  for (const auto& path : {kValidating, kMutating}) {
    const Json& w = api.objects[path]["webhooks"];
    CHECK(w[0]["clientConfig"]["caBundle"] == "Q0EgUEVNCg==");
    CHECK(w[1]["clientConfig"]["caBundle"] == "OTHER");
    // The read's resourceVersion goes back: a writer in between makes the update a 409.
    CHECK(api.objects[path]["metadata"]["resourceVersion"] == "3");
  }
  CHECK(api.paths_of("PUT") == std::vector<std::string>{kValidating, kMutating});

  // Again: nothing left to change, nothing written.
  api.calls.clear();
  const auto again = inject_ca_bundle(api, "jobset-webhook", "CA PEM\n");
  REQUIRE(again.ok());
  CHECK(again.value() == 0);
  CHECK(api.paths_of("PUT").empty());
}

TEST_CASE("certs --inject-ca-into reads again after a conflict, and needs both configurations",
          "[cli][certs_secret]") {
  FakeApi api;
  api.objects[kValidating] = configuration("");
  api.objects[kMutating] = configuration("");
  api.failures["PUT " + kValidating] = api_error(409, "the object has been modified");
  api.after = [&](const std::string& call) {
    if (call == "PUT " + kValidating) api.failures.erase(call);
  };
  const auto got = inject_ca_bundle(api, "jobset-webhook", "CA PEM\n");
  REQUIRE(got.ok());
  CHECK(got.value() == 2);
  CHECK(api.paths_of("GET") == std::vector<std::string>{kValidating, kValidating, kMutating});

  FakeApi half;
  half.objects[kValidating] = configuration("");
  const auto missing = inject_ca_bundle(half, "jobset-webhook", "CA PEM\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.failure().code == StatusCode::kNotFound);
}

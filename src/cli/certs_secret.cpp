#include "certs_secret.h"

#include <string>
#include <string_view>

#include "jobset_webhook/base64.h"
#include "jobset_webhook/kube/config.h"
#include "jobset_webhook/server/endpoints.h"

namespace jobset_webhook::cli {
namespace {

constexpr int kUpdateAttempts = 5;

const char* const kWebhookConfigurations[] = {"validatingwebhookconfigurations",
                                              "mutatingwebhookconfigurations"};

std::string secret_key(const Json& secret, std::string_view key) {
  const auto data = secret.find("data");
  if (data == secret.end() || !data->is_object()) return "";
  const auto value = data->find(std::string(key));
  return value != data->end() && value->is_string() ? value->get<std::string>() : "";
}

// The CA of an existing Secret, or why the webhook could not serve from it.
Result<std::string> ca_of(const Json& secret, const std::string& what) {
  std::string missing;
  for (const auto key : {server::kCaFileName, server::kCertFileName, server::kKeyFileName}) {
    if (secret_key(secret, key).empty())
      missing += (missing.empty() ? "" : ", ") + std::string(key);
  }
  if (!missing.empty()) {
    return failed_precondition(what + " exists without " + missing +
                               "; delete it to have a new certificate made");
  }
  auto ca = base64_decode(secret_key(secret, server::kCaFileName));
  if (!ca.ok()) return failed_precondition(what + ": ca.crt: " + ca.failure().message);
  return ca.value();
}

// Sets the caBundle of the Service webhooks of one configuration; how many changed.
int set_ca_bundle(Json& configuration, const std::string& bundle) {
  int changed = 0;
  auto webhooks = configuration.find("webhooks");
  if (webhooks == configuration.end() || !webhooks->is_array()) return 0;
  for (auto& webhook : *webhooks) {
    auto client = webhook.find("clientConfig");
    if (client == webhook.end() || !client->is_object() || !client->contains("service")) continue;
    auto& current = (*client)["caBundle"];
    if (current.is_string() && current.get<std::string>() == bundle) continue;
    current = bundle;
    ++changed;
  }
  return changed;
}

}  // namespace

Json serving_secret(const std::string& ns, const std::string& name,
                    const ServingCertificates& certificates) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", "kubernetes.io/tls"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels",
             {{"app.kubernetes.io/name", "jobset-webhook"},
              {"app.kubernetes.io/part-of", "jobset-webhook"}}}}},
          {"data",
           {{std::string(server::kCaFileName), base64_encode(certificates.ca_pem)},
            {std::string(server::kCertFileName), base64_encode(certificates.cert_pem)},
            {std::string(server::kKeyFileName), base64_encode(certificates.key_pem)}}}};
}

Result<EnsuredSecret> ensure_serving_secret(kube::Api& api, const std::string& ns,
                                            const std::string& name,
                                            const ServingCertificates& fresh) {
  const std::string what = "Secret " + ns + "/" + name;
  const std::string path = kube::core_path(ns, "secrets", name);
  auto existing = api.get(path);
  if (existing.ok()) {
    auto ca = ca_of(existing.value(), what);
    if (!ca.ok()) return ca.failure();
    return EnsuredSecret{ca.value(), false};
  }
  if (existing.failure().code != StatusCode::kNotFound) return existing.failure();

  const auto created = api.create(kube::core_path(ns, "secrets"), serving_secret(ns, name, fresh));
  if (created.ok()) return EnsuredSecret{fresh.ca_pem, true};
  // 409 AlreadyExists: another run made it between the read and the create; that one stays.
  if (created.failure().code != StatusCode::kAborted) return created.failure();
  existing = api.get(path);
  if (!existing.ok()) return existing.failure();
  auto ca = ca_of(existing.value(), what);
  if (!ca.ok()) return ca.failure();
  return EnsuredSecret{ca.value(), false};
}

Result<int> inject_ca_bundle(kube::Api& api, const std::string& name, const std::string& ca_pem) {
  const std::string bundle = base64_encode(ca_pem);
  int changed = 0;
  for (const char* resource : kWebhookConfigurations) {
    const std::string path =
        kube::group_path("admissionregistration.k8s.io/v1", "", resource, name);
    for (int attempt = 1;; ++attempt) {
      auto configuration = api.get(path);
      if (!configuration.ok()) return configuration.failure();
      Json object = configuration.value();
      const int n = set_ca_bundle(object, bundle);
      if (n == 0) break;
      // The read's resourceVersion goes back with the object: a writer in between is a 409.
      const auto updated = api.update(path, object);
      if (updated.ok()) {
        changed += n;
        break;
      }
      if (updated.failure().code != StatusCode::kAborted || attempt == kUpdateAttempts) {
        return updated.failure();
      }
    }
  }
  return changed;
}

}  // namespace jobset_webhook::cli

// manifests/ rendered by `kubectl kustomize`, every overlay, and cross-checked against what the
// server serves and reads (server/endpoints.h), the metrics it exports (server_metrics.h) and
// what `jobset-webhook certs` makes. The tests that render need kubectl: tagged [kubectl], run by
// `meson test` only where it is installed, and counted as skipped elsewhere.

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "deploy/deploy_support.h"
#include "cli/documents.h"
#include "cli/x509.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/runtime/duration.h"
#include "jobset_webhook/server/endpoints.h"
#include "jobset_webhook/server/memory_sizing.h"
#include "server/server_metrics.h"
#include "support/prometheus.h"
#include "support/x509_verify.h"

namespace server = jobset_webhook::server;
namespace runtime = jobset_webhook::runtime;
using jobset_webhook::Json;
using namespace jobset_webhook::testing;

namespace {

constexpr const char* kNamespace = "jobset-system";

// "--key=value" arguments after the subcommand, as a map.
std::map<std::string, std::string> flags_of(const Json& container) {
  std::map<std::string, std::string> flags;
  const auto args = container.value("args", Json::array());
  REQUIRE(args.size() >= 1);
  CHECK(args[0] == "serve");
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string arg = args[i];
    const auto eq = arg.find('=');
    INFO(arg);
    REQUIRE((arg.rfind("--", 0) == 0 && eq != std::string::npos));
    flags[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  return flags;
}

// A port given by number or by the name of one of the container's ports.
int container_port(const Json& container, const Json& port) {
  if (port.is_number_integer()) return port.get<int>();
  for (const auto& p : container.value("ports", Json::array())) {
    if (p["name"] == port) return p["containerPort"].get<int>();
  }
  FAIL("no container port named " << port.dump());
  return -1;
}

Json volume_named(const Json& pod_spec, const std::string& name) {
  for (const auto& v : pod_spec.value("volumes", Json::array())) {
    if (v["name"] == name) return v;
  }
  FAIL("no volume " << name);
  return {};
}

// The volume mounted at exactly path, and the mount itself.
std::pair<Json, Json> mounted_at(const Json& pod_spec, const Json& container,
                                 const std::string& path) {
  for (const auto& m : container.value("volumeMounts", Json::array())) {
    if (m["mountPath"] == path) return {volume_named(pod_spec, m["name"]), m};
  }
  FAIL("nothing mounted at " << path);
  return {};
}

std::string parent_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

struct Rendered {
  std::vector<Json> objects;
  Json service, deployment, pod_spec, container;
  std::map<std::string, std::string> flags;
  std::string tls_secret;  // the Secret the server's --cert-dir comes from

  explicit Rendered(std::vector<Json> all) : objects(std::move(all)) {
    service = one_of_kind(objects, "Service", "jobset-webhook");
    deployment = one_of_kind(objects, "Deployment");
    pod_spec = deployment["spec"]["template"]["spec"];
    REQUIRE(pod_spec["containers"].size() == 1);
    container = pod_spec["containers"][0];
    flags = flags_of(container);
    const auto [volume, mount] = mounted_at(pod_spec, container, flags["--cert-dir"]);
    tls_secret = volume["secret"]["secretName"];
  }
};

void check_webhooks(Rendered& r) {
  struct Hook {
    std::string kind;
    std::string_view path;
    std::string group, version, resource;
  };
  // Per configuration, its webhooks in order. The scaler's is in the base although only a
  // component installs its CRD (the base's comment says why that is harmless).
  const std::vector<std::vector<Hook>> configs = {
      {{"ValidatingWebhookConfiguration", server::kValidatePath, "jobset.x-k8s.io", "v1alpha2",
        "jobsets"},
       {"ValidatingWebhookConfiguration", server::kValidateScalerPath, "elastic.jobset-webhook.io",
        "v1alpha1", "replicatedjobscalers"}},
      {{"MutatingWebhookConfiguration", server::kMutatePath, "jobset.x-k8s.io", "v1alpha2",
        "jobsets"}},
  };
  for (const auto& hooks : configs) {
    auto config = one_of_kind(r.objects, hooks[0].kind);
    REQUIRE(config["webhooks"].size() == hooks.size());
    for (std::size_t i = 0; i < hooks.size(); ++i) {
      const auto& h = hooks[i];
      auto& w = config["webhooks"][i];
      INFO(h.kind << " " << w["name"]);
      auto& svc = w["clientConfig"]["service"];
      CHECK(svc["path"] == std::string(h.path));
      CHECK(svc["name"] == r.service["metadata"]["name"]);
      CHECK(svc["namespace"] == r.service["metadata"]["namespace"]);
      CHECK(svc["port"] == r.service["spec"]["ports"][0]["port"]);
      CHECK(w["admissionReviewVersions"] == Json::array({"v1"}));
      CHECK(w["sideEffects"] == "None");
      CHECK(w["failurePolicy"] == "Fail");
      CHECK(w["timeoutSeconds"] == 5);
      CHECK(w["matchPolicy"] == "Equivalent");
      REQUIRE(w["rules"].size() == 1);
      auto& rule = w["rules"][0];
      CHECK(rule["apiGroups"] == Json::array({h.group}));
      CHECK(rule["apiVersions"] == Json::array({h.version}));
      // Never a subresource: a /scale write is a Scale, which carries no bounds.
      CHECK(rule["resources"] == Json::array({h.resource}));
      CHECK(rule["operations"] == Json::array({"CREATE", "UPDATE"}));
      CHECK(rule["scope"] == "Namespaced");
    }
  }
}

void check_ports_and_probes(Rendered& r) {
  CHECK(r.flags.at("--port") == std::to_string(server::kDefaultPort));
  CHECK(r.flags.at("--health-port") == std::to_string(server::kDefaultHealthPort));
  CHECK(r.flags.at("--metrics-port") == std::to_string(server::kDefaultMetricsPort));
  CHECK(container_port(r.container, "metrics") == server::kDefaultMetricsPort);
  CHECK(r.flags.at("--bind") == "0.0.0.0");
  REQUIRE(r.service["spec"]["ports"].size() == 1);
  auto& port = r.service["spec"]["ports"][0];
  CHECK(port["port"] == 443);
  CHECK(container_port(r.container, port["targetPort"]) == server::kDefaultPort);
  CHECK(r.service["spec"]["selector"] == r.deployment["spec"]["selector"]["matchLabels"]);

  auto& readiness = r.container["readinessProbe"]["httpGet"];
  CHECK(readiness["path"] == std::string(server::kReadyzPath));
  CHECK(readiness["scheme"] == "HTTP");
  CHECK(container_port(r.container, readiness["port"]) == server::kDefaultHealthPort);
  auto& liveness = r.container["livenessProbe"]["httpGet"];
  CHECK(liveness["path"] == std::string(server::kHealthzPath));
  CHECK(liveness["scheme"] == "HTTP");
  CHECK(container_port(r.container, liveness["port"]) == server::kDefaultHealthPort);
}

void check_mounts(Rendered& r) {
  auto [tls, tls_mount] = mounted_at(r.pod_spec, r.container, r.flags.at("--cert-dir"));
  CHECK(tls_mount["readOnly"] == true);
  CHECK(tls["secret"]["defaultMode"] == 0440);
  CHECK(tls["secret"].value("items", Json::array()).empty());  // every key becomes a file

  // The policy file is a key of a ConfigMap the Deployment mounts, and a valid policy.
  const std::string config = r.flags.at("--config");
  auto [policy, policy_mount] = mounted_at(r.pod_spec, r.container, parent_of(config));
  CHECK(policy_mount["readOnly"] == true);
  auto map = one_of_kind(r.objects, "ConfigMap", policy["configMap"]["name"]);
  const std::string key = config.substr(config.rfind('/') + 1);
  REQUIRE(map["data"].contains(key));
  const auto docs =
      jobset_webhook::cli::parse_yaml_documents(map["data"][key].get<std::string>(), key);
  REQUIRE(docs.ok());
  REQUIRE(docs.value().size() == 1);
  const auto parsed = jobset_webhook::parse_policy(docs.value()[0]);
  INFO((parsed.ok() ? "" : parsed.failure().message));
  CHECK(parsed.ok());
}

void check_availability_and_security(Rendered& r) {
  auto& pod_labels = r.deployment["spec"]["template"]["metadata"]["labels"];
  CHECK(r.deployment["spec"]["replicas"] == 2);
  CHECK(r.deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0);
  auto pdb = one_of_kind(r.objects, "PodDisruptionBudget");
  CHECK(pdb["spec"]["minAvailable"] == 1);
  CHECK(pdb["spec"]["selector"]["matchLabels"] == r.deployment["spec"]["selector"]["matchLabels"]);
  for (const auto& [k, v] : pdb["spec"]["selector"]["matchLabels"].items())
    CHECK(pod_labels.value(k, Json()) == v);
  auto& anti =
      r.pod_spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"];
  REQUIRE(anti.size() == 1);
  CHECK(anti[0]["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname");
  CHECK(anti[0]["podAffinityTerm"]["labelSelector"]["matchLabels"] ==
        r.deployment["spec"]["selector"]["matchLabels"]);
  // The drain fits before SIGKILL, and the kubelet sees /readyz turn 503 within the delay.
  const auto delay = runtime::parse_go_duration(r.flags.at("--shutdown-delay"));
  const auto grace = runtime::parse_go_duration(r.flags.at("--shutdown-grace"));
  REQUIRE(delay);
  REQUIRE(grace);
  CHECK(std::chrono::seconds(r.pod_spec["terminationGracePeriodSeconds"].get<int>()) >
        *delay + *grace);
  const auto& readiness = r.container["readinessProbe"];
  CHECK(std::chrono::seconds(readiness["periodSeconds"].get<int>() *
                             readiness["failureThreshold"].get<int>()) < *delay);

  CHECK(r.pod_spec["securityContext"]["runAsNonRoot"] == true);
  CHECK(r.pod_spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault");
  CHECK(r.pod_spec["automountServiceAccountToken"] == false);
  auto& sc = r.container["securityContext"];
  CHECK(sc["runAsNonRoot"] == true);
  CHECK(sc["readOnlyRootFilesystem"] == true);
  CHECK(sc["allowPrivilegeEscalation"] == false);
  CHECK(sc["capabilities"]["drop"] == Json::array({"ALL"}));
  CHECK(sc["seccompProfile"]["type"] == "RuntimeDefault");
  for (const char* kind : {"requests", "limits"}) {
    INFO(kind);
    CHECK(r.container["resources"][kind].contains("cpu"));
    CHECK(r.container["resources"][kind].contains("memory"));
  }
  CHECK(r.pod_spec["serviceAccountName"] ==
        one_of_kind(r.objects, "ServiceAccount")["metadata"]["name"]);
}

// A memory quantity as the Deployment writes it, in Mi or Gi; 0 for any other form.
std::size_t quantity_bytes(const Json& quantity) {
  const std::string q = quantity.is_string() ? quantity.get<std::string>() : "";
  for (const auto& [suffix, unit] :
       {std::pair{"Mi", server::kMiB}, std::pair{"Gi", 1024 * server::kMiB}}) {
    if (q.size() > 2 && q.substr(q.size() - 2) == suffix)
      return std::stoull(q.substr(0, q.size() - 2)) * unit;
  }
  return 0;
}

// The memory limit covers what the server can use with the Deployment's flags
// (server/memory_sizing.h; docs/operations.md, "Memory"), and the request what it uses at rest.
void check_memory(Rendered& r) {
  const auto& resources = r.container["resources"];
  const std::size_t limit = quantity_bytes(resources["limits"]["memory"]);
  const std::size_t request = quantity_bytes(resources["requests"]["memory"]);
  const std::size_t budget = r.flags.count("--max-inflight-bytes") != 0
                                 ? std::stoull(r.flags.at("--max-inflight-bytes"))
                                 : server::kDefaultMaxInflightBytes;
  const std::size_t connections = r.flags.count("--max-connections") != 0
                                      ? std::stoull(r.flags.at("--max-connections"))
                                      : server::kDefaultMaxConnections;
  INFO("limit " << limit << ", request " << request << ", budget " << budget << ", connections "
                << connections);
  // tests/server/memory_burst_test.cpp holds the server's peak under a storm to this limit.
  CHECK(limit == 128 * server::kMiB);
  CHECK(server::memory_needed(budget, connections) <= limit);
  CHECK(request >= server::kBaselineBytes);
  CHECK(request <= limit);
}

// Everything in jobset-system, and labelled so that docs/install.md's uninstall finds it.
void check_namespaces_and_labels(Rendered& r) {
  CHECK(one_of_kind(r.objects, "Namespace")["metadata"]["name"] == kNamespace);
  for (auto& o : r.objects) {
    const std::string kind = o["kind"];
    INFO(kind << " " << o["metadata"]["name"]);
    CHECK(o["metadata"]["labels"]["app.kubernetes.io/part-of"] == "jobset-webhook");
    if (kind == "Namespace" || kind.find("WebhookConfiguration") != std::string::npos) continue;
    CHECK(o["metadata"].value("namespace", "") == kNamespace);
  }
}

std::string service_host(Rendered& r) {
  return std::string(r.service["metadata"]["name"]) + "." +
         std::string(r.service["metadata"]["namespace"]) + ".svc";
}

void check_cert_manager(Rendered& r) {
  // cert-manager writes these keys into a Certificate's Secret; --cert-dir reads the same names.
  CHECK(server::kCertFileName == "tls.crt");
  CHECK(server::kKeyFileName == "tls.key");
  CHECK(server::kCaFileName == "ca.crt");

  Json serving;
  for (const auto& c : all_of_kind(r.objects, "Certificate")) {
    if (c["spec"]["secretName"] == r.tls_secret) serving = c;
  }
  REQUIRE(serving.is_object());
  const std::vector<std::string> want =
      jobset_webhook::cli::service_dns_names(r.service["metadata"]["name"].get<std::string>(),
                                             r.service["metadata"]["namespace"].get<std::string>());
  CHECK(serving["spec"]["dnsNames"] == Json(want));
  CHECK(serving["spec"].value("isCA", false) == false);
  const auto& usages = serving["spec"]["usages"];
  CHECK(std::find(usages.begin(), usages.end(), "server auth") != usages.end());

  // serving <- CA Issuer <- CA Certificate (isCA) <- self-signed Issuer.
  auto ca_issuer = one_of_kind(r.objects, "Issuer", serving["spec"]["issuerRef"]["name"]);
  CHECK(serving["spec"]["issuerRef"]["kind"] == "Issuer");
  Json ca;
  for (const auto& c : all_of_kind(r.objects, "Certificate")) {
    if (c["spec"]["secretName"] == ca_issuer["spec"]["ca"]["secretName"]) ca = c;
  }
  REQUIRE(ca.is_object());
  CHECK(ca["spec"]["isCA"] == true);
  auto root = one_of_kind(r.objects, "Issuer", ca["spec"]["issuerRef"]["name"]);
  CHECK(root["spec"].contains("selfSigned"));

  const std::string inject = std::string(serving["metadata"]["namespace"]) + "/" +
                             std::string(serving["metadata"]["name"]);
  for (const char* kind : {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}) {
    INFO(kind);
    CHECK(one_of_kind(r.objects,
                      kind)["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == inject);
  }
}

void check_self_signed(Rendered& r) {
  auto secret = one_of_kind(r.objects, "Secret", r.tls_secret);
  CHECK(secret["type"] == "kubernetes.io/tls");
  std::set<std::string> keys;
  for (const auto& [k, v] : secret["data"].items()) keys.insert(k);
  CHECK(keys == std::set<std::string>{std::string(server::kCaFileName),
                                      std::string(server::kCertFileName),
                                      std::string(server::kKeyFileName)});
  const std::string ca_b64 = secret["data"][std::string(server::kCaFileName)];
  for (const char* kind : {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}) {
    auto config = one_of_kind(r.objects, kind);
    for (auto& w : config["webhooks"]) {
      INFO(kind);
      CHECK(base64_decode(w["clientConfig"]["caBundle"]) == base64_decode(ca_b64));
    }
  }
  const auto cert = base64_decode(secret["data"][std::string(server::kCertFileName)]);
  CHECK(verify_serving_certificate(cert, base64_decode(ca_b64), service_host(r)) == "");
}

// The metrics Service, the ServiceMonitor and the PrometheusRule of components/monitoring: they
// reach the container's metrics port and path, and the alerts use metrics the server exports.
void check_monitoring(Rendered& r) {
  const auto metrics_service = one_of_kind(r.objects, "Service", "jobset-webhook-metrics");
  REQUIRE(metrics_service["spec"]["ports"].size() == 1);
  const auto& port = metrics_service["spec"]["ports"][0];
  CHECK(container_port(r.container, port["targetPort"]) == server::kDefaultMetricsPort);
  CHECK(metrics_service["spec"]["selector"] == r.deployment["spec"]["selector"]["matchLabels"]);

  const auto monitor = one_of_kind(r.objects, "ServiceMonitor");
  CHECK(monitor["apiVersion"] == "monitoring.coreos.com/v1");
  for (const auto& [k, v] : monitor["spec"]["selector"]["matchLabels"].items()) {
    INFO(k);
    CHECK(metrics_service["metadata"]["labels"].value(k, Json()) == v);
  }
  // Selects the metrics Service only, not the webhook's.
  bool selects_webhook_service = true;
  for (const auto& [k, v] : monitor["spec"]["selector"]["matchLabels"].items()) {
    if (r.service["metadata"]["labels"].value(k, Json()) != v) selects_webhook_service = false;
  }
  CHECK_FALSE(selects_webhook_service);
  REQUIRE(monitor["spec"]["endpoints"].size() == 1);
  const auto& endpoint = monitor["spec"]["endpoints"][0];
  CHECK(endpoint["port"] == port["name"]);
  CHECK(endpoint["path"] == std::string(server::kMetricsPath));
  CHECK(endpoint["scheme"] == "http");

  // Every metric an alert reads is one the server exports (its families are written even before
  // they have samples).
  const auto exported = parse_prometheus(server::ServerMetrics().scrape());
  REQUIRE(exported.error == "");
  const auto rule = one_of_kind(r.objects, "PrometheusRule");
  REQUIRE(rule["spec"]["groups"].size() == 1);
  std::map<std::string, std::string> alerts;
  for (const auto& a : rule["spec"]["groups"][0]["rules"]) alerts[a["alert"]] = a["expr"];
  REQUIRE(alerts.size() == 3);
  const std::string job = "job=\"" + metrics_service["metadata"]["name"].get<std::string>() + "\"";
  const std::map<std::string, std::vector<std::string>> reads = {
      {"JobSetWebhookErrors",
       {"controller_runtime_webhook_requests_total", "controller_runtime_webhook_panics_total"}},
      {"JobSetWebhookCertificateExpiring", {"jobset_webhook_certificate_expiry_timestamp_seconds"}},
      {"JobSetWebhookMemoryNearLimit",
       {"process_resident_memory_bytes", "jobset_webhook_memory_limit_bytes"}},
  };
  for (const auto& [alert, metrics] : reads) {
    INFO(alert);
    REQUIRE(alerts.count(alert) == 1);
    const auto& expr = alerts[alert];
    for (const auto& metric : metrics) {
      INFO(metric);
      CHECK(exported.types.count(metric) == 1);
      CHECK(expr.find(metric + "{" + job) != std::string::npos);
    }
  }
  CHECK(alerts["JobSetWebhookCertificateExpiring"].find("- time() < 7 * 24 * 3600") !=
        std::string::npos);
}

std::string ca_bundle_of(const std::vector<Json>& objects) {
  return one_of_kind(objects,
                     "ValidatingWebhookConfiguration")["webhooks"][0]["clientConfig"]["caBundle"];
}

}  // namespace

TEST_CASE("Every overlay renders and agrees with the server's routes, ports, probes and files",
          "[deploy][manifests][kubectl]") {
  REQUIRE(have_kubectl());
  ManifestsCopy copy;
  const auto overlays = copy.overlays();
  CHECK(overlays == std::vector<std::string>{"cert-manager", "monitoring", "self-signed"});
  for (const auto& name : overlays) {
    DYNAMIC_SECTION(name) {
      if (name == "self-signed") {
        const auto made = set_ca_bundle(copy.overlay(name));
        INFO(made.err);
        REQUIRE(made.exit_code == 0);
      }
      Rendered r(render(copy.overlay(name)));
      check_webhooks(r);
      check_ports_and_probes(r);
      check_mounts(r);
      check_availability_and_security(r);
      check_memory(r);
      check_namespaces_and_labels(r);
      if (name == "cert-manager" || name == "monitoring") check_cert_manager(r);
      if (name == "monitoring") check_monitoring(r);
      if (name == "self-signed") check_self_signed(r);
    }
  }
}

TEST_CASE("The self-signed overlay does not render before set-ca-bundle has run",
          "[deploy][manifests][kubectl]") {
  REQUIRE(have_kubectl());
  ManifestsCopy copy;
  const auto r = run_shell("kubectl kustomize '" + copy.overlay("self-signed").string() + "'");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("generated/") != std::string::npos);
}

TEST_CASE("set-ca-bundle refuses to replace a certificate unless rotating", "[deploy][manifests]") {
  ManifestsCopy copy;
  const auto overlay = copy.overlay("self-signed");
  REQUIRE(set_ca_bundle(overlay).exit_code == 0);
  const auto key = slurp(overlay / "generated" / "tls.key");
  const auto again = set_ca_bundle(overlay);
  CHECK(again.exit_code == 2);
  CHECK(again.err == "set-ca-bundle: " + (overlay / "generated").string() +
                         " already holds a certificate: use --rotate to replace it\n");
  CHECK(slurp(overlay / "generated" / "tls.key") == key);
  CHECK(set_ca_bundle(copy.overlay("self-signed"), "--days 0").exit_code == 2);
}

TEST_CASE("A rotation trusts the new and the previous CA until --drop-previous-ca",
          "[deploy][manifests][kubectl]") {
  REQUIRE(have_kubectl());
  ManifestsCopy copy;
  const auto overlay = copy.overlay("self-signed");
  const std::string host = "jobset-webhook.jobset-system.svc";
  REQUIRE(set_ca_bundle(overlay).exit_code == 0);
  const auto old_cert = slurp(overlay / "generated" / "tls.crt");

  const auto rotated = set_ca_bundle(overlay, "--rotate --key-type rsa-2048");
  INFO(rotated.err);
  REQUIRE(rotated.exit_code == 0);
  const auto bundle = base64_decode(ca_bundle_of(render(overlay)));
  CHECK(certificates_of(bundle).size() == 2);
  CHECK(verify_serving_certificate(old_cert, bundle, host) == "");
  CHECK(verify_serving_certificate(slurp(overlay / "generated" / "tls.crt"), bundle, host) == "");

  REQUIRE(set_ca_bundle(overlay, "--drop-previous-ca").exit_code == 0);
  const auto dropped = base64_decode(ca_bundle_of(render(overlay)));
  CHECK(dropped == slurp(overlay / "generated" / "ca.crt"));
  CHECK(verify_serving_certificate(old_cert, dropped, host) ==
        "unable to get local issuer certificate");
}

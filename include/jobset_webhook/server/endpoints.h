#pragma once

// What the server serves and reads, named once. The manifests in manifests/ and the tests that
// render them (tests/deploy/) are checked against these, so a route, a port or a file name that
// changes here without the manifests fails the suite.

#include <string_view>

namespace jobset_webhook::server {

// The routes the kube-apiserver POSTs AdmissionReviews to: upstream JobSet's paths, so either
// webhook configuration can point at either server.
inline constexpr std::string_view kValidatePath = "/validate-jobset-x-k8s-io-v1alpha2-jobset";
inline constexpr std::string_view kMutatePath = "/mutate-jobset-x-k8s-io-v1alpha2-jobset";
// The ReplicatedJobScaler's validating webhook (docs/elastic.md), named by the same convention
// (kubebuilder's /validate-<group, dots as dashes>-<version>-<lowercase kind>).
inline constexpr std::string_view kValidateScalerPath =
    "/validate-elastic-jobset-webhook-io-v1alpha1-replicatedjobscaler";

// Plain-HTTP health endpoints on the health port, for the kubelet's probes.
inline constexpr std::string_view kHealthzPath = "/healthz";
inline constexpr std::string_view kReadyzPath = "/readyz";

// Plain-HTTP Prometheus metrics on the metrics port (docs/observability.md).
inline constexpr std::string_view kMetricsPath = "/metrics";

inline constexpr int kDefaultPort = 9443;         // HTTPS, `serve --port`
inline constexpr int kDefaultHealthPort = 8081;   // HTTP, `serve --health-port`
inline constexpr int kDefaultMetricsPort = 8080;  // HTTP, `serve --metrics-port` (0: none)

// The files `serve --cert-dir DIR` reads, named as the keys of a kubernetes.io/tls Secret (and of
// the Secrets cert-manager writes), so the Secret mounts as the directory unchanged.
inline constexpr std::string_view kCertFileName = "tls.crt";
inline constexpr std::string_view kKeyFileName = "tls.key";
inline constexpr std::string_view kCaFileName = "ca.crt";

}  // namespace jobset_webhook::server

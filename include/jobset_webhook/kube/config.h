#pragma once

// Where the Kubernetes API server is and how to authenticate to it: from a kubeconfig file (a
// developer's, or one the end-to-end control plane writes) or from inside a Pod (the
// service-account token, CA and namespace that the kubelet mounts). No API call is made here.

#include <string>

#include "jobset_webhook/result.h"

namespace jobset_webhook::kube {

struct Config {
  std::string host;  // "127.0.0.1", "kubernetes.default.svc" or an IP
  int port = 443;
  // Server verification: the CA bundle (PEM text), or none and insecure_skip_tls_verify. See
  // client.h for what is trusted when neither is set.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  // The file ca_pem was read from (the service account's ca.crt, a kubeconfig's
  // certificate-authority), or "" for CA data: the client reads it again when it changes, so that
  // a rotated CA is picked up without a restart.
  std::string ca_file;
  // Client certificate authentication (PEM text of both), or a bearer token.
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;
  // A token file read again before each request, so that the kubelet's rotation of the
  // projected service-account token is picked up (it replaces the file well before expiry).
  std::string token_file;
  // The namespace of the context or of the Pod; "default" when neither names one.
  std::string ns = "default";
};

// Reads a kubeconfig: the context named (or current-context), its cluster's server,
// certificate-authority(-data) and insecure-skip-tls-verify, its user's
// client-certificate(-data)/client-key(-data), token or tokenFile, and its namespace. Relative
// file paths are relative to the kubeconfig's folder. Failures name the file and the field:
//   kubeconfig /root/.kube/config: context "dev" not found
// Only https servers are supported. Never throws.
Result<Config> load_kubeconfig(const std::string& path, const std::string& context = "");

// The in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, and the
// files under `dir` (default /var/run/secrets/kubernetes.io/serviceaccount): ca.crt, token
// (re-read per request) and namespace. Never throws.
Result<Config> in_cluster_config(
    const std::string& dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// Splits "https://host:port" (port 443 when absent; [v6] brackets kept off the host).
Result<Config> with_server(Config config, const std::string& server);

}  // namespace jobset_webhook::kube

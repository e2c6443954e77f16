#pragma once

// Everything `jobset-webhook serve` is configured with. The CLI fills it from flags; tests fill it
// directly (port 0, short timeouts).

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/server/endpoints.h"
#include "jobset_webhook/server/memory_sizing.h"

namespace jobset_webhook::server {

enum class TlsVersion { k1_2, k1_3 };

struct TlsFiles {
  std::string cert_file;         // PEM: the serving certificate, then any intermediates
  std::string private_key_file;  // PEM: its private key
  std::string
      client_ca_file;  // PEM CA bundle; non-empty: clients must present a certificate it signed
};

struct ServerOptions {
  std::string bind_address = "0.0.0.0";
  int port = kDefaultPort;               // HTTPS admission endpoints; 0 picks a free port
  int health_port = kDefaultHealthPort;  // plain HTTP /healthz and /readyz; 0 picks a free port
  // Plain HTTP /metrics on bind_address; 0 picks a free port; nullopt serves no metrics (the
  // CLI's --metrics-port=0).
  std::optional<int> metrics_port = kDefaultMetricsPort;
  TlsFiles tls;
  // With tls.client_ca_file: a client certificate is accepted only when its subject CN or one of
  // its DNS SANs equals one of these (exactly); empty: any name the CA signed.
  std::vector<std::string> client_names;
  TlsVersion min_tls_version = TlsVersion::k1_2;
  Policy policy;
  std::size_t max_request_bytes = 7 * 1024 * 1024;  // as controller-runtime's webhook server
  // Request bodies held in memory at once (memory_budget.h): a body that would go over waits for
  // room until its deadline; one larger than this is refused with 413. The default keeps the
  // default Deployment (128 Mi) under its limit: docs/operations.md, "Memory", has the arithmetic.
  std::size_t max_inflight_bytes = kDefaultMaxInflightBytes;
  // Each open connection is served by one thread; past this many, new connections wait. Counted
  // in the memory arithmetic too.
  std::size_t max_connections = kDefaultMaxConnections;
  // On SIGTERM/SIGINT: how long to go on serving (each response closing its connection) while
  // the Pod leaves the Service's endpoints, then how long requests in flight may take to finish.
  std::chrono::milliseconds shutdown_delay{5'000};
  std::chrono::milliseconds shutdown_grace{25'000};

  // Not flags: fixed in production, shortened by tests.
  // A TLS handshake, and each request (headers and body) from its first byte, must arrive within
  // read_timeout; each write of a response must finish within write_timeout.
  std::chrono::milliseconds read_timeout{10'000};
  std::chrono::milliseconds write_timeout{10'000};
  // A keep-alive connection without a request is closed after idle_timeout. Longer than the
  // kube-apiserver's own 90 s idle timeout, so that the client, not us, closes idle connections and
  // never sends a request into a connection we are closing.
  std::chrono::milliseconds idle_timeout{120'000};
  // How often the TLS files are checked for a change.
  std::chrono::milliseconds reload_interval{1'000};
  // What answers a review body, which is followed by admission::kInPlacePadding readable bytes.
  // Always admission::answer_padded_review, except in tests that make it throw, to see an internal
  // failure answered 500 and counted instead of ending the process.
  using AnswerReview = std::function<Result<admission::ReviewAnswer>(
      std::string_view body, const Policy& policy, Hook hook)>;
  AnswerReview answer_review = admission::answer_padded_review;
};

}  // namespace jobset_webhook::server

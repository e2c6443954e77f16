#pragma once

// The CLI's subcommands. Each returns the process exit code:
//   0  a result was produced (for review: whatever the decision); serve: stopped cleanly
//   1  serve: could not listen, or the shutdown grace period ran out
//   2  unusable input: unreadable file, not JSON, a bad policy file, bad flags, unusable TLS files

#include <cstddef>
#include <string>

namespace jobset_webhook::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUnusableInput = 2;

struct ReviewOptions {
  std::string input = "-";  // a file, or "-" for stdin
  std::string config;       // policy file; empty for the default policy
  bool mutate = false;      // answer as the mutating webhook
};

// `jobset-webhook review`: one AdmissionReview in, the server's exact response out (stdout).
int review(const ReviewOptions& options);

// The flags of `serve`, as given; serve() checks and converts them.
struct ServeOptions {
  std::string bind = "0.0.0.0";
  int port = 9443;
  // controller-runtime's default, where upstream's manifests mount the serving Secret.
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  std::string tls_cert_file;         // empty: <cert_dir>/tls.crt
  std::string tls_private_key_file;  // empty: <cert_dir>/tls.key
  std::string client_ca_file;        // empty: no client certificates requested
  std::string tls_min_version = "1.2";
  std::string config;  // policy file; empty for the default policy
  std::size_t max_request_bytes = 7 * 1024 * 1024;
  int health_port = 8081;
  std::string shutdown_grace = "25s";
  std::string log_level = "info";
};

// `jobset-webhook serve`: the HTTPS admission webhook, until SIGTERM or SIGINT.
int serve(const ServeOptions& options);

}  // namespace jobset_webhook::cli

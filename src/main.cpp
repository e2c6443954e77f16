// Subcommand dispatch, nothing else: each subcommand lives in src/cli/.

#include <CLI/CLI.hpp>

#include "jobset_webhook/cli/commands.h"

namespace cli = jobset_webhook::cli;

int main(int argc, char** argv) {
  CLI::App app{"Admission webhook and CI checks for Kubernetes JobSets (jobset.x-k8s.io/v1alpha2)",
               "jobset-webhook"};
  app.set_version_flag("--version", std::string(JOBSET_WEBHOOK_VERSION));
  app.require_subcommand(1);

  cli::ReviewOptions review;
  auto* review_cmd = app.add_subcommand("review", "Answer one AdmissionReview (file or stdin) as the server would");
  review_cmd->add_option("file", review.input, "AdmissionReview JSON file, or - for stdin")->capture_default_str();
  review_cmd->add_option("--config", review.config, "Policy file (YAML or JSON)")->check(CLI::ExistingFile);
  review_cmd->add_flag("--mutate", review.mutate, "Answer as the mutating (defaulting) webhook");

  cli::ServeOptions serve;
  auto* serve_cmd = app.add_subcommand("serve", "Serve the admission webhooks over HTTPS until SIGTERM or SIGINT");
  serve_cmd->add_option("--bind", serve.bind, "Address to listen on (HTTPS and health)")->capture_default_str();
  serve_cmd->add_option("--port", serve.port, "HTTPS port of the webhooks; 0 picks a free port")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve_cmd->add_option("--cert-dir", serve.cert_dir, "Directory with tls.crt and tls.key (a Secret's layout)")
      ->capture_default_str();
  serve_cmd->add_option("--tls-cert-file", serve.tls_cert_file, "Serving certificate, PEM (default: <cert-dir>/tls.crt)");
  serve_cmd->add_option("--tls-private-key-file", serve.tls_private_key_file,
                        "Its private key, PEM (default: <cert-dir>/tls.key)");
  serve_cmd->add_option("--client-ca-file", serve.client_ca_file,
                        "CA bundle, PEM: require client certificates signed by it (mTLS)");
  serve_cmd->add_option("--tls-min-version", serve.tls_min_version, "Lowest TLS version accepted")
      ->check(CLI::IsMember({"1.2", "1.3"}))
      ->capture_default_str();
  serve_cmd->add_option("--config", serve.config, "Policy file (YAML or JSON)")->check(CLI::ExistingFile);
  serve_cmd->add_option("--max-request-bytes", serve.max_request_bytes, "Largest request body accepted")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve_cmd->add_option("--health-port", serve.health_port, "Plain-HTTP port of /healthz and /readyz; 0 picks a free port")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve_cmd->add_option("--shutdown-grace", serve.shutdown_grace,
                        "On SIGTERM, how long requests in flight may take to finish (e.g. 25s)")
      ->capture_default_str();
  serve_cmd->add_option("--log-level", serve.log_level, "debug, info (one line per request), warn or error")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 uses exit code 0 for --help/--version; usage errors become our "unusable input".
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kExitUnusableInput;
  }
  if (review_cmd->parsed()) return cli::review(review);
  if (serve_cmd->parsed()) return cli::serve(serve);
  return cli::kExitUnusableInput;
}

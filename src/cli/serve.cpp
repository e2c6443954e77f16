#include <chrono>
#include <memory>
#include <tuple>

#include "jobset_webhook/cli/commands.h"
#include "documents.h"
#include "flags_internal.h"
#include "jobset_webhook/runtime/duration.h"
#include "jobset_webhook/server/endpoints.h"
#include "jobset_webhook/runtime/log.h"
#include "jobset_webhook/server/run.h"

namespace jobset_webhook::cli {
namespace {

namespace srv = jobset_webhook::server;
namespace runtime = jobset_webhook::runtime;

std::string in_dir(const std::string& dir, std::string_view file) {
  return dir.empty() || dir.back() == '/' ? dir + std::string(file) : dir + "/" + std::string(file);
}

// The checked options; Failure names the flag.
Result<srv::ServerOptions> server_options(const ServeOptions& flags) {
  srv::ServerOptions options;
  options.bind_address = flags.bind;
  options.port = flags.port;
  options.health_port = flags.health_port;
  // 0 turns the metrics listener off (as controller-runtime's --metrics-bind-address=0 does),
  // where the other ports take 0 as "any free port".
  options.metrics_port = flags.metrics_port == 0 ? std::nullopt : std::optional(flags.metrics_port);
  options.tls.cert_file = flags.tls_cert_file.empty() ? in_dir(flags.cert_dir, srv::kCertFileName)
                                                      : flags.tls_cert_file;
  options.tls.private_key_file = flags.tls_private_key_file.empty()
                                     ? in_dir(flags.cert_dir, srv::kKeyFileName)
                                     : flags.tls_private_key_file;
  options.tls.client_ca_file = flags.client_ca_file;
  if (!flags.client_names.empty() && flags.client_ca_file.empty()) {
    return invalid_argument(
        "--client-name: needs --client-ca-file (names are checked only on "
        "client certificates, which only a client CA asks for)");
  }
  for (const auto& name : flags.client_names) {
    if (name.empty()) return invalid_argument("--client-name: empty");
  }
  options.client_names = flags.client_names;
  options.min_tls_version =
      flags.tls_min_version == "1.3" ? srv::TlsVersion::k1_3 : srv::TlsVersion::k1_2;
  options.max_request_bytes = flags.max_request_bytes;
  options.max_inflight_bytes = flags.max_inflight_bytes;
  options.max_connections = flags.max_connections;
  for (const auto& [flag, text, field] :
       {std::tuple{"--shutdown-delay", &flags.shutdown_delay, &options.shutdown_delay},
        std::tuple{"--shutdown-grace", &flags.shutdown_grace, &options.shutdown_grace}}) {
    const auto duration = runtime::parse_go_duration(*text);
    if (!duration || duration->count() < 0) {
      return invalid_argument(std::string(flag) + ": not a duration such as 25s: " + *text);
    }
    if (*duration > std::chrono::hours(24)) {
      return invalid_argument(std::string(flag) + ": at most 24h, got " + *text);
    }
    *field = std::chrono::duration_cast<std::chrono::milliseconds>(*duration);
  }
  if (!flags.config.empty()) {
    auto policy = load_policy_file(flags.config);
    if (!policy.ok()) return invalid_argument("--config: " + policy.failure().message);
    options.policy = policy.value();
  }
  return options;
}

}  // namespace

int serve(const ServeOptions& flags) {
  const runtime::Log log(
      runtime::parse_log_level(flags.log_level).value_or(runtime::LogLevel::kInfo), {},
      runtime::parse_log_format(flags.log_format).value_or(runtime::LogFormat::kJson));
  const auto options = server_options(flags);
  if (!options.ok()) {
    log.error("cannot serve", {{"error", options.failure().message}});
    return exit_code(options.failure());
  }
  return srv::run(options.value(), log);
}

Command add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  ServeOptions& o = *options;
  auto* cmd = app.add_subcommand("serve",
                                 "Serve the admission webhooks over HTTPS until SIGTERM or SIGINT");
  cmd->add_option("--bind", o.bind, "Address to listen on (HTTPS, health and metrics)")
      ->capture_default_str();
  cmd->add_option("--port", o.port, "HTTPS port of the webhooks; 0 picks a free port")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--cert-dir", o.cert_dir,
                  "Directory with tls.crt and tls.key (a Secret's layout)")
      ->capture_default_str();
  cmd->add_option("--tls-cert-file", o.tls_cert_file,
                  "Serving certificate, PEM (default: <cert-dir>/tls.crt)");
  cmd->add_option("--tls-private-key-file", o.tls_private_key_file,
                  "Its private key, PEM (default: <cert-dir>/tls.key)");
  cmd->add_option("--client-ca-file", o.client_ca_file,
                  "CA bundle, PEM: require client certificates signed by it (mTLS)");
  cmd->add_option("--client-name", o.client_names,
                  "With --client-ca-file: accept only a client certificate whose subject CN "
                  "or a DNS SAN is NAME (repeatable; e.g. kube-apiserver)");
  cmd->add_option("--tls-min-version", o.tls_min_version, "Lowest TLS version accepted")
      ->check(CLI::IsMember({"1.2", "1.3"}))
      ->capture_default_str();
  cmd->add_option("--config", o.config, "Policy file (YAML or JSON)")->check(CLI::ExistingFile);
  cmd->add_option("--max-request-bytes", o.max_request_bytes, "Largest request body accepted")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-inflight-bytes", o.max_inflight_bytes,
                  "Request bodies held in memory at once; a body that does not fit waits for "
                  "room within its deadline (docs/operations.md, \"Memory\")")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-connections", o.max_connections,
                  "Connections served at once, each by a thread; more wait until one closes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--health-port", o.health_port,
                  "Plain-HTTP port of /healthz and /readyz; 0 picks a free port")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--metrics-port", o.metrics_port,
                  "Plain-HTTP port of /metrics (Prometheus); 0 disables it")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--shutdown-delay", o.shutdown_delay,
                  "On SIGTERM, how long to go on serving, closing each connection after its "
                  "response, while the Pod leaves the Service's endpoints (e.g. 5s)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)  // scripts/dev serve sets 0s
      ->capture_default_str();
  cmd->add_option("--shutdown-grace", o.shutdown_grace,
                  "After the delay, how long requests in flight may take to finish (e.g. 25s)")
      ->capture_default_str();
  add_log_flags(cmd, o.log_level, o.log_format, "info (one line per request)");
  return {cmd, [options] { return serve(*options); }};
}

}  // namespace jobset_webhook::cli

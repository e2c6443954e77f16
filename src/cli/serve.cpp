#include <chrono>
#include <tuple>

#include "jobset_webhook/cli/commands.h"
#include "documents.h"
#include "jobset_webhook/server/duration.h"
#include "jobset_webhook/server/endpoints.h"
#include "jobset_webhook/server/log.h"
#include "jobset_webhook/server/run.h"

namespace jobset_webhook::cli {
namespace {

namespace srv = jobset_webhook::server;

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
    return Failure{400,
                   "--client-name: needs --client-ca-file (names are checked only on "
                   "client certificates, which only a client CA asks for)"};
  }
  for (const auto& name : flags.client_names) {
    if (name.empty()) return Failure{400, "--client-name: empty"};
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
    const auto duration = srv::parse_go_duration(*text);
    if (!duration || duration->count() < 0) {
      return Failure{400, std::string(flag) + ": not a duration such as 25s: " + *text};
    }
    if (*duration > std::chrono::hours(24)) {
      return Failure{400, std::string(flag) + ": at most 24h, got " + *text};
    }
    *field = std::chrono::duration_cast<std::chrono::milliseconds>(*duration);
  }
  if (!flags.config.empty()) {
    auto policy = load_policy_file(flags.config);
    if (!policy.ok()) return Failure{400, "--config: " + policy.failure().message};
    options.policy = policy.value();
  }
  return options;
}

}  // namespace

int serve(const ServeOptions& flags) {
  const srv::Log log(srv::parse_log_level(flags.log_level).value_or(srv::LogLevel::kInfo), {},
                     srv::parse_log_format(flags.log_format).value_or(srv::LogFormat::kJson));
  const auto options = server_options(flags);
  if (!options.ok()) {
    log.error("cannot serve", {{"error", options.failure().message}});
    return kExitUnusableInput;
  }
  return srv::run(options.value(), log);
}

}  // namespace jobset_webhook::cli

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "documents.h"
#include "flags_internal.h"
#include "jobset_webhook/cli/commands.h"
#include "jobset_webhook/controller/scale_down_controller.h"
#include "jobset_webhook/runtime/log.h"

namespace jobset_webhook::cli {

int scale_down_controller(controller::ControllerOptions options, const std::string& config) {
  if (options.lease.renew_deadline >= options.lease.lease_duration) {
    std::cerr << "--renew-deadline must be shorter than --lease-duration\n";
    return kExitUnusableInput;
  }
  if (!config.empty()) {
    auto policy = load_policy_file(config);
    if (!policy.ok()) {
      std::cerr << policy.failure().message << "\n";
      return kExitUnusableInput;
    }
    options.default_notice_seconds = policy.value().elastic.scale_down_notice_seconds;
  }
  const runtime::Log log(
      runtime::parse_log_level(options.log_level).value_or(runtime::LogLevel::kInfo), {},
      runtime::parse_log_format(options.log_format).value_or(runtime::LogFormat::kJson));
  return controller::run_scale_down_controller(options, log);
}

Command add_scale_down_controller_command(CLI::App& app) {
  auto options = std::make_shared<controller::ControllerOptions>();
  auto config = std::make_shared<std::string>();
  controller::ControllerOptions& o = *options;
  auto* cmd = app.add_subcommand(
      "scale-down-controller",
      "Delete the child Jobs above a lowered replicas, highest index first, until SIGTERM or "
      "SIGINT (docs/elastic.md)");
  cmd->add_option("--kubeconfig", o.kubeconfig,
                  "kubeconfig file; without it, the in-cluster configuration");
  cmd->add_option("--context", o.context, "kubeconfig context (default: its current-context)");
  cmd->add_option("--namespace", o.watch_namespace,
                  "Watch JobSets and Jobs of this namespace only (default: all)");
  cmd->add_option("--lease-namespace", o.lease_namespace,
                  "Namespace of the leader-election Lease (default: the Pod's, or the "
                  "kubeconfig context's)");
  cmd->add_option("--lease-name", o.lease_name, "Name of the Lease")->capture_default_str();
  cmd->add_option("--identity", o.identity,
                  "This replica's holder identity (default: <hostname>_<random>)");
  cmd->add_option("--bind", o.bind, "Address of the metrics port")->capture_default_str();
  cmd->add_option("--metrics-port", o.metrics_port,
                  "Plain-HTTP port of /metrics, /healthz, /readyz; 0 disables it")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option_function<int>(
         "--lease-duration", [&o](int s) { o.lease.lease_duration = std::chrono::seconds(s); },
         "Seconds a Lease not renewed stays held (default 15)")
      ->check(CLI::Range(2, 3600));
  cmd->add_option_function<int>(
         "--renew-deadline", [&o](int s) { o.lease.renew_deadline = std::chrono::seconds(s); },
         "Seconds after the last renewal when the leader stops acting (default 10)")
      ->check(CLI::Range(1, 3600));
  cmd->add_option_function<int>(
         "--retry-period", [&o](int s) { o.lease.retry_period = std::chrono::seconds(s); },
         "Seconds between Lease reads and renewals (default 2)")
      ->check(CLI::Range(1, 600));
  cmd->add_option("--config", *config,
                  "The policy file (serve's): its elastic.scaleDownNoticeSeconds is the scale-down "
                  "notice of JobSets without their own annotation (default: none)");
  add_log_flags(cmd, o.log_level, o.log_format);
  cmd->add_option("--watch-timeout", o.watch_timeout_seconds,
                  "Seconds a watch runs before it is started again (timeoutSeconds)")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  return {cmd, [options, config] { return scale_down_controller(*options, *config); }};
}

}  // namespace jobset_webhook::cli

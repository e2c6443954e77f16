// Subcommand dispatch, nothing else: each subcommand lives in src/cli/.

#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>

#include "jobset_webhook/cli/commands.h"

namespace cli = jobset_webhook::cli;

namespace {

const std::vector<std::string> kFormats = {"text", "json", "junit", "sarif", "github"};
const std::vector<std::string> kFieldValidations = {"Strict", "Warn", "Ignore"};
constexpr const char* kFieldValidationHelp =
    "What the API server does with a field the JobSet CRD does not declare, as kubectl's "
    "--field-validation: Strict refuses the JobSet, Warn prunes it with a warning, Ignore prunes "
    "it";
constexpr const char* kPathHelp =
    "a file, a directory (its *.yaml, *.yml, *.json, recursively) or - for stdin";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Admission webhook and CI checks for Kubernetes JobSets (jobset.x-k8s.io/v1alpha2)",
               "jobset-webhook"};
  app.set_version_flag("--version", std::string(JOBSET_WEBHOOK_VERSION));
  app.require_subcommand(1);

  cli::ReviewOptions review;
  auto* review_cmd = app.add_subcommand(
      "review", "Answer one AdmissionReview (file or stdin) as the server would");
  review_cmd->add_option("file", review.input, "AdmissionReview JSON file, or - for stdin")
      ->capture_default_str();
  review_cmd->add_option("--config", review.config, "Policy file (YAML or JSON)")
      ->check(CLI::ExistingFile);
  review_cmd->add_flag("--mutate", review.mutate, "Answer as the mutating (defaulting) webhook");

  cli::CertsOptions certs;
  auto* certs_cmd =
      app.add_subcommand("certs", "Make a CA and a serving certificate for the webhook Service");
  certs_cmd->add_option("--service", certs.service, "The webhook Service's name")->required();
  certs_cmd->add_option("--namespace", certs.ns, "The Service's namespace")->required();
  certs_cmd->add_option("--out", certs.out, "Directory for ca.crt, tls.crt and tls.key")
      ->required();
  certs_cmd->add_option("--days", certs.days, "Validity of both certificates (1 to 3650)")
      ->capture_default_str();
  certs_cmd->add_option("--key-type", certs.key_type, "ecdsa-p256 or rsa-2048")
      ->capture_default_str();
  certs_cmd
      ->add_option("--extra-san", certs.extra_sans,
                   "More DNS names or IP addresses (repeat, or comma-separate)")
      ->delimiter(',');
  certs_cmd->add_flag("--force", certs.force, "Replace existing files");
  cli::CheckOptions check;
  auto* check_cmd =
      app.add_subcommand("check",
                         "Check a change of JobSet manifests offline, as the cluster would admit "
                         "it (exit 0 allowed, 1 denied, 2 unusable input)");
  check_cmd->add_option("--old", check.old_paths,
                        std::string("Manifests before the change: ") + kPathHelp);
  check_cmd->add_option("--new", check.new_paths,
                        std::string("Manifests after the change: ") + kPathHelp);
  check_cmd->add_option("--base", check.base,
                        "Instead of --old and --new: compare PATHs as they are at this git "
                        "revision (read with git, nothing checked out) with the working tree");
  check_cmd->add_option("paths", check.paths,
                        "With --base: files or directories, relative to the current directory");
  check_cmd->add_option("--config", check.config, "Policy file (YAML or JSON)");
  check_cmd->add_option("--format", check.format, "Output format")
      ->check(CLI::IsMember(kFormats))
      ->capture_default_str();
  check_cmd->add_option("--field-validation", check.field_validation, kFieldValidationHelp)
      ->check(CLI::IsMember(kFieldValidations))
      ->capture_default_str();

  cli::ValidateOptions validate;
  auto* validate_cmd = app.add_subcommand(
      "validate",
      "Check JobSet manifests with the CREATE rules (exit 0 allowed, 1 denied, 2 unusable input)");
  validate_cmd->add_option("paths", validate.paths, std::string("Manifests: ") + kPathHelp)
      ->required();
  validate_cmd->add_option("--config", validate.config, "Policy file (YAML or JSON)");
  validate_cmd->add_option("--format", validate.format, "Output format")
      ->check(CLI::IsMember(kFormats))
      ->capture_default_str();
  validate_cmd->add_option("--field-validation", validate.field_validation, kFieldValidationHelp)
      ->check(CLI::IsMember(kFieldValidations))
      ->capture_default_str();

  cli::DefaultOptions defaults;
  auto* default_cmd = app.add_subcommand(
      "default", "Print JobSet manifests as the cluster would store them, defaults applied (YAML)");
  default_cmd->add_option("paths", defaults.paths, std::string("Manifests: ") + kPathHelp)
      ->required();
  default_cmd->add_option("--config", defaults.config, "Policy file (YAML or JSON)");
  default_cmd->add_option("--field-validation", defaults.field_validation, kFieldValidationHelp)
      ->check(CLI::IsMember(kFieldValidations))
      ->capture_default_str();

  cli::ServeOptions serve;
  auto* serve_cmd = app.add_subcommand(
      "serve", "Serve the admission webhooks over HTTPS until SIGTERM or SIGINT");
  serve_cmd->add_option("--bind", serve.bind, "Address to listen on (HTTPS, health and metrics)")
      ->capture_default_str();
  serve_cmd->add_option("--port", serve.port, "HTTPS port of the webhooks; 0 picks a free port")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve_cmd
      ->add_option("--cert-dir", serve.cert_dir,
                   "Directory with tls.crt and tls.key (a Secret's layout)")
      ->capture_default_str();
  serve_cmd->add_option("--tls-cert-file", serve.tls_cert_file,
                        "Serving certificate, PEM (default: <cert-dir>/tls.crt)");
  serve_cmd->add_option("--tls-private-key-file", serve.tls_private_key_file,
                        "Its private key, PEM (default: <cert-dir>/tls.key)");
  serve_cmd->add_option("--client-ca-file", serve.client_ca_file,
                        "CA bundle, PEM: require client certificates signed by it (mTLS)");
  serve_cmd->add_option("--client-name", serve.client_names,
                        "With --client-ca-file: accept only a client certificate whose subject CN "
                        "or a DNS SAN is NAME (repeatable; e.g. kube-apiserver)");
  serve_cmd->add_option("--tls-min-version", serve.tls_min_version, "Lowest TLS version accepted")
      ->check(CLI::IsMember({"1.2", "1.3"}))
      ->capture_default_str();
  serve_cmd->add_option("--config", serve.config, "Policy file (YAML or JSON)")
      ->check(CLI::ExistingFile);
  serve_cmd
      ->add_option("--max-request-bytes", serve.max_request_bytes, "Largest request body accepted")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve_cmd
      ->add_option("--max-inflight-bytes", serve.max_inflight_bytes,
                   "Request bodies held in memory at once; a body that does not fit waits for "
                   "room within its deadline (docs/operations.md, \"Memory\")")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve_cmd
      ->add_option("--max-connections", serve.max_connections,
                   "Connections served at once, each by a thread; more wait until one closes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve_cmd
      ->add_option("--health-port", serve.health_port,
                   "Plain-HTTP port of /healthz and /readyz; 0 picks a free port")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve_cmd
      ->add_option("--metrics-port", serve.metrics_port,
                   "Plain-HTTP port of /metrics (Prometheus); 0 disables it")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve_cmd
      ->add_option("--shutdown-delay", serve.shutdown_delay,
                   "On SIGTERM, how long to go on serving, closing each connection after its "
                   "response, while the Pod leaves the Service's endpoints (e.g. 5s)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)  // scripts/dev serve sets 0s
      ->capture_default_str();
  serve_cmd
      ->add_option("--shutdown-grace", serve.shutdown_grace,
                   "After the delay, how long requests in flight may take to finish (e.g. 25s)")
      ->capture_default_str();
  serve_cmd
      ->add_option("--log-level", serve.log_level,
                   "debug, info (one line per request), warn or error")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
      ->capture_default_str();
  serve_cmd
      ->add_option("--log-format", serve.log_format,
                   "json (one object per line) or text (for people)")
      ->check(CLI::IsMember({"json", "text"}))
      ->capture_default_str();

  jobset_webhook::controller::ControllerOptions controller;
  auto* controller_cmd = app.add_subcommand(
      "scale-down-controller",
      "Delete the child Jobs above a lowered replicas, highest index first, until SIGTERM or "
      "SIGINT (docs/elastic.md)");
  controller_cmd->add_option("--kubeconfig", controller.kubeconfig,
                             "kubeconfig file; without it, the in-cluster configuration");
  controller_cmd->add_option("--context", controller.context,
                             "kubeconfig context (default: its current-context)");
  controller_cmd->add_option("--namespace", controller.watch_namespace,
                             "Watch JobSets and Jobs of this namespace only (default: all)");
  controller_cmd->add_option("--lease-namespace", controller.lease_namespace,
                             "Namespace of the leader-election Lease (default: the Pod's, or the "
                             "kubeconfig context's)");
  controller_cmd->add_option("--lease-name", controller.lease_name, "Name of the Lease")
      ->capture_default_str();
  controller_cmd->add_option("--identity", controller.identity,
                             "This replica's holder identity (default: <hostname>_<random>)");
  controller_cmd->add_option("--bind", controller.bind, "Address of the metrics port")
      ->capture_default_str();
  controller_cmd
      ->add_option("--metrics-port", controller.metrics_port,
                   "Plain-HTTP port of /metrics, /healthz, /readyz; 0 disables it")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  controller_cmd
      ->add_option_function<int>(
          "--lease-duration",
          [&controller](int s) { controller.lease.lease_duration = std::chrono::seconds(s); },
          "Seconds a Lease not renewed stays held (default 15)")
      ->check(CLI::Range(2, 3600));
  controller_cmd
      ->add_option_function<int>(
          "--renew-deadline",
          [&controller](int s) { controller.lease.renew_deadline = std::chrono::seconds(s); },
          "Seconds after the last renewal when the leader stops acting (default 10)")
      ->check(CLI::Range(1, 3600));
  controller_cmd
      ->add_option_function<int>(
          "--retry-period",
          [&controller](int s) { controller.lease.retry_period = std::chrono::seconds(s); },
          "Seconds between Lease reads and renewals (default 2)")
      ->check(CLI::Range(1, 600));
  controller_cmd
      ->add_option("--watch-timeout", controller.watch_timeout_seconds,
                   "Seconds a watch runs before it is started again (timeoutSeconds)")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 uses exit code 0 for --help/--version; usage errors become our "unusable input".
    const int code = app.exit(e);
    return code == 0 ? 0 : jobset_webhook::kExitUnusableInput;
  }
  if (review_cmd->parsed()) return cli::review(review);
  if (certs_cmd->parsed()) return cli::certs(certs);
  if (check_cmd->parsed()) return cli::check(check);
  if (validate_cmd->parsed()) return cli::validate(validate);
  if (default_cmd->parsed()) return cli::print_defaults(defaults);
  if (serve_cmd->parsed()) return cli::serve(serve);
  if (controller_cmd->parsed()) {
    if (controller.lease.renew_deadline >= controller.lease.lease_duration) {
      std::cerr << "--renew-deadline must be shorter than --lease-duration\n";
      return jobset_webhook::kExitUnusableInput;
    }
    return cli::scale_down_controller(controller);
  }
  return jobset_webhook::kExitUnusableInput;
}

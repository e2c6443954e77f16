#pragma once

// The CLI's subcommands. Each registers itself and its flags on the application
// (add_<name>_command, in src/cli/<name>.cpp) and returns the process exit code (exit_codes.h).

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "jobset_webhook/controller/scale_down_controller.h"
#include "jobset_webhook/exit_codes.h"
#include "jobset_webhook/server/endpoints.h"
#include "jobset_webhook/server/memory_sizing.h"

namespace jobset_webhook::cli {

// A subcommand registered on the application with its flags; `run` carries it out once the
// application has parsed them (the options it fills live in `run`).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Every subcommand, in the order `--help` lists them.
std::vector<Command> add_commands(CLI::App& app);

Command add_review_command(CLI::App& app);
Command add_certs_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_default_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_scale_down_controller_command(CLI::App& app);

struct ReviewOptions {
  std::string input = "-";  // a file, or "-" for stdin
  std::string config;       // policy file; empty for the default policy
  bool mutate = false;      // answer as the mutating webhook
  bool scaler = false;      // answer as the ReplicatedJobScaler's validating webhook
};

// `jobset-webhook review`: one AdmissionReview in, the server's exact response out (stdout).
int review(const ReviewOptions& options);

struct CertsOptions {
  std::string service;                  // the webhook Service's name
  std::string ns;                       // its namespace
  std::string out;                      // directory for ca.crt, tls.crt, tls.key
  int days = 365;                       // validity of both certificates
  std::string key_type = "ecdsa-p256";  // or rsa-2048
  std::vector<std::string> extra_sans;  // more DNS names or IP addresses
  bool force = false;                   // replace existing files
  // Instead of out: Secret `secret` of namespace ns, through the Kubernetes API.
  std::string secret;
  // With secret: the Validating- and MutatingWebhookConfiguration whose caBundle to set.
  std::string inject_ca_into;
  std::string kubeconfig;  // with secret: a kubeconfig file; empty: the in-cluster configuration
  std::string context;     // its context; empty: its current-context
};

// `jobset-webhook certs`: a CA and a serving certificate for the Service (see cli/x509.h), written
// as out/ca.crt and out/tls.crt (mode 0644) and out/tls.key (mode 0600), the layout of a
// kubernetes.io/tls Secret and of `serve --cert-dir`. Prints the base64 of ca.crt (a caBundle) on
// stdout and nothing else there. Writes nothing when one of the files exists and force is false.
// With secret instead of out, the same three keys go into that Secret (type kubernetes.io/tls),
// which is kept as it is when it exists, and with inject_ca_into its ca.crt becomes the caBundle
// of the Service webhooks of both configurations of that name (cli/certs_secret.h); the base64 of
// the Secret's ca.crt is printed. For the chart's hook Jobs (certificates.mode hook).
int certs(const CertsOptions& options);
struct CheckOptions {
  std::vector<std::string> old_paths;  // files, directories, or "-" for stdin
  std::vector<std::string> new_paths;
  // --base REF: paths (relative to the current directory) as they are at REF against the working
  // tree, instead of old_paths and new_paths.
  std::string base;
  std::vector<std::string> paths;
  std::string config;                       // policy file; empty for the default policy
  std::string format = "text";              // text, json, junit, sarif, github
  std::string field_validation = "Strict";  // kubectl's --field-validation: Strict, Warn, Ignore
  // The program that renders kustomizations (kustomize, or kubectl); empty: kustomize, else
  // kubectl, from PATH.
  std::string kustomize;
};

// `jobset-webhook check`: the UPDATE (and CREATE) rules between two sets of manifests, as the
// cluster would apply them (see check.h); the report on stdout, unusable input on stderr.
int check(const CheckOptions& options);

struct ValidateOptions {
  std::vector<std::string> paths;
  std::string config;
  std::string format = "text";
  std::string field_validation = "Strict";
  std::string kustomize;  // as CheckOptions::kustomize
};

// `jobset-webhook validate`: the CREATE rules for every JobSet found.
int validate(const ValidateOptions& options);

struct DefaultOptions {
  std::vector<std::string> paths;
  std::string config;
  std::string field_validation = "Strict";
  std::string kustomize;  // as CheckOptions::kustomize
};

// `jobset-webhook default`: every JobSet found, as the cluster would store it, as YAML documents.
int print_defaults(const DefaultOptions& options);
// The flags of `serve`, as given; serve() checks and converts them.
struct ServeOptions {
  std::string bind = "0.0.0.0";
  int port = server::kDefaultPort;
  // controller-runtime's default, where upstream's manifests mount the serving Secret.
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  std::string tls_cert_file;              // empty: <cert_dir>/tls.crt
  std::string tls_private_key_file;       // empty: <cert_dir>/tls.key
  std::string client_ca_file;             // empty: no client certificates requested
  std::vector<std::string> client_names;  // with client_ca_file: the names allowed; empty: any
  std::string tls_min_version = "1.2";
  std::string config;  // policy file; empty for the default policy
  std::size_t max_request_bytes = 7 * 1024 * 1024;
  std::size_t max_inflight_bytes = server::kDefaultMaxInflightBytes;
  std::size_t max_connections = server::kDefaultMaxConnections;
  int health_port = server::kDefaultHealthPort;
  int metrics_port = server::kDefaultMetricsPort;  // 0: no metrics listener
  std::string shutdown_delay = "5s";
  std::string shutdown_grace = "25s";
  std::string log_level = "info";
  std::string log_format = "json";  // or text
};

// `jobset-webhook serve`: the HTTPS admission webhook, until SIGTERM or SIGINT.
int serve(const ServeOptions& options);

// `jobset-webhook scale-down-controller`: deletes the child Jobs above a lowered `replicas`
// (controller/scale_down_controller.h), until SIGTERM or SIGINT. `config`, when not empty, is
// the policy file whose elastic.scaleDownNoticeSeconds sets options.default_notice_seconds.
int scale_down_controller(controller::ControllerOptions options, const std::string& config = "");

}  // namespace jobset_webhook::cli

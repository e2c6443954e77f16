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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 uses exit code 0 for --help/--version; usage errors become our "unusable input".
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kExitUnusableInput;
  }
  if (review_cmd->parsed()) return cli::review(review);
  return cli::kExitUnusableInput;
}

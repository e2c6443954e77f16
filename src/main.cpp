// Subcommand dispatch, nothing else: each subcommand and its flags live in src/cli/.

#include <CLI/CLI.hpp>

#include <string>

#include "jobset_webhook/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"Admission webhook and CI checks for Kubernetes JobSets (jobset.x-k8s.io/v1alpha2)",
               "jobset-webhook"};
  app.set_version_flag("--version", std::string(JOBSET_WEBHOOK_VERSION));
  app.require_subcommand(1);
  const auto commands = jobset_webhook::cli::add_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 uses exit code 0 for --help/--version; usage errors become our "unusable input".
    const int code = app.exit(e);
    return code == 0 ? 0 : jobset_webhook::kExitUnusableInput;
  }
  for (const auto& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return jobset_webhook::kExitUnusableInput;
}

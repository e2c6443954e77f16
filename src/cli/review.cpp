#include <iostream>
#include <memory>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/cli/commands.h"
#include "documents.h"

namespace jobset_webhook::cli {

int review(const ReviewOptions& options) {
  Policy policy;
  if (!options.config.empty()) {
    auto loaded = load_policy_file(options.config);
    if (!loaded.ok()) {
      std::cerr << "jobset-webhook review: " << loaded.failure().message << "\n";
      return exit_code(loaded.failure());
    }
    policy = loaded.value();
  }
  const auto body = read_input(options.input);
  if (!body.ok()) {
    std::cerr << "jobset-webhook review: " << body.failure().message << "\n";
    return exit_code(body.failure());
  }
  const Hook hook = options.mutate   ? Hook::kMutating
                    : options.scaler ? Hook::kValidatingScaler
                                     : Hook::kValidating;
  const auto response = admission::handle_review(body.value(), policy, hook);
  if (!response.ok()) {
    std::cerr << "jobset-webhook review: " << options.input << ": " << response.failure().message
              << "\n";
    return exit_code(response.failure());
  }
  std::cout << response.value() << "\n";
  return kExitOk;
}

Command add_review_command(CLI::App& app) {
  auto options = std::make_shared<ReviewOptions>();
  ReviewOptions& o = *options;
  auto* cmd = app.add_subcommand("review",
                                 "Answer one AdmissionReview (file or stdin) as the server would");
  cmd->add_option("file", o.input, "AdmissionReview JSON file, or - for stdin")
      ->capture_default_str();
  cmd->add_option("--config", o.config, "Policy file (YAML or JSON)")->check(CLI::ExistingFile);
  auto* mutate = cmd->add_flag("--mutate", o.mutate, "Answer as the mutating (defaulting) webhook");
  cmd->add_flag("--scaler", o.scaler,
                "Answer as the ReplicatedJobScaler's validating webhook (its own path)")
      ->excludes(mutate);

  return {cmd, [options] { return review(*options); }};
}

}  // namespace jobset_webhook::cli

#pragma once

// Running the tools the CLI drives (git, kustomize, kubectl): a program and its arguments, stdin
// from /dev/null, stdout and stderr through pipes. No shell, so no argument is ever re-parsed.

#include <optional>
#include <string>
#include <vector>

#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

struct ProcessOutput {
  int exit_code = -1;  // -1 when a signal ended it
  std::string out;
  std::string err;
};

// Runs argv[0] (looked up on PATH when it holds no '/') with argv. Failure only when it cannot be
// started (not installed, not on PATH): kFailedPrecondition, the message strerror's.
Result<ProcessOutput> run_process(const std::vector<std::string>& argv);

// The path of the executable file `name` in a directory of PATH, as posix_spawnp would find it;
// nullopt when there is none.
std::optional<std::string> find_on_path(const std::string& name);

}  // namespace jobset_webhook::cli

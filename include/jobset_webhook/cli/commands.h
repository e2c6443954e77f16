#pragma once

// The CLI's subcommands. Each returns the process exit code:
//   0  a result was produced (for review: whatever the decision)
//   2  unusable input: unreadable file, not JSON, a bad policy file

#include <string>

namespace jobset_webhook::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUnusableInput = 2;

struct ReviewOptions {
  std::string input = "-";  // a file, or "-" for stdin
  std::string config;       // policy file; empty for the default policy
  bool mutate = false;      // answer as the mutating webhook
};

// `jobset-webhook review`: one AdmissionReview in, the server's exact response out (stdout).
int review(const ReviewOptions& options);

}  // namespace jobset_webhook::cli

#pragma once

// The CLI's subcommands. Each returns the process exit code:
//   0  a result was produced (review: whatever the decision; check and validate: all allowed)
//   1  check or validate: at least one JobSet denied
//   2  unusable input: unreadable file, not JSON or YAML, a bad policy file, duplicate JobSets

#include <string>
#include <vector>

namespace jobset_webhook::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDenied = 1;
inline constexpr int kExitUnusableInput = 2;

struct ReviewOptions {
  std::string input = "-";  // a file, or "-" for stdin
  std::string config;       // policy file; empty for the default policy
  bool mutate = false;      // answer as the mutating webhook
};

// `jobset-webhook review`: one AdmissionReview in, the server's exact response out (stdout).
int review(const ReviewOptions& options);

struct CheckOptions {
  std::vector<std::string> old_paths;  // files, directories, or "-" for stdin
  std::vector<std::string> new_paths;
  std::string config;         // policy file; empty for the default policy
  std::string format = "text";  // text, json, junit, sarif, github
};

// `jobset-webhook check`: the UPDATE (and CREATE) rules between two sets of manifests, as the
// cluster would apply them (see check.h); the report on stdout, unusable input on stderr.
int check(const CheckOptions& options);

struct ValidateOptions {
  std::vector<std::string> paths;
  std::string config;
  std::string format = "text";
};

// `jobset-webhook validate`: the CREATE rules for every JobSet found.
int validate(const ValidateOptions& options);

struct DefaultOptions {
  std::vector<std::string> paths;
  std::string config;
};

// `jobset-webhook default`: every JobSet found, as the cluster would store it, as YAML documents.
int print_defaults(const DefaultOptions& options);

}  // namespace jobset_webhook::cli

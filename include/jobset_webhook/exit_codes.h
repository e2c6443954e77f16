#pragma once

// The process exit codes of every subcommand, in one place:
//   0  kExitOk             a result was produced (review: whatever the decision; check and
//                          validate: every JobSet allowed; certs: the files written);
//                          serve: shut down cleanly after SIGTERM or SIGINT
//   1  kExitDenied         check or validate: at least one JobSet denied
//      kExitFailed         serve: could not listen, or the shutdown grace period ran out
//   2  kExitUnusableInput  unusable input: an unreadable file, not JSON or YAML, a bad policy
//                          file, duplicate JobSets, bad flags; certs: files that exist without
//                          --force, or that could not be written; serve: unusable TLS files
// A Failure ends a command through exit_code, below, and nowhere else.

#include "jobset_webhook/status.h"

namespace jobset_webhook {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDenied = 1;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUnusableInput = 2;

// The exit code of a command that fails with `code`: kExitFailed when the system would not serve
// (kUnavailable, kDeadlineExceeded: a port that cannot be bound), kExitUnusableInput for every
// other code, since the command could not do its job with what it was given.
int exit_code(StatusCode code);

// exit_code of the failure's code; its http_status plays no part.
inline int exit_code(const Failure& failure) { return exit_code(failure.code); }

}  // namespace jobset_webhook

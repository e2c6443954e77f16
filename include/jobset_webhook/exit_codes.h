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

namespace jobset_webhook {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDenied = 1;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUnusableInput = 2;

}  // namespace jobset_webhook

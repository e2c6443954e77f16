#pragma once

// Failures to do a job (input not JSON, a file too large, a port that cannot be bound, an
// object the API server does not have) as values with a canonical code, in the manner of
// Abseil's `absl/status/status.h`. They are not field errors (field/error.h: findings about a
// JobSet). The code says what kind of failure it is; each front end turns it into what its user
// sees in one place only: an HTTP status (http_status, below: the server's refusals and an
// AdmissionReview's status.code) or a process exit code (exit_code, exit_codes.h).
//
//   if (body.size() > limit) return resource_exhausted("request body is larger than ...");
//   auto policy = read_policy(path);
//   if (!policy.ok()) return exit_code(policy.failure());   // kInvalidArgument: 2

#include <string>
#include <utility>

namespace jobset_webhook {

// Only the codes the project uses. Each says what went wrong, never who is told how.
enum class StatusCode {
  kInvalidArgument,     // unusable input: not JSON or YAML, a bad flag, file, header or value
  kNotFound,            // what was named does not exist: an object, a webhook path
  kPermissionDenied,    // the API server forbids the caller what it asked (403)
  kAborted,             // a conflict with a concurrent writer, or a failed precondition on the
                        // object (the API server's 409): read again and retry
  kOutOfRange,          // a resourceVersion older than the API server keeps (410 Gone): relist
  kFailedPrecondition,  // the machine is not in the state the job needs: git missing, a file that
                        // cannot be written
  kResourceExhausted,   // the input is larger than a limit or the memory budget allows
  kDeadlineExceeded,    // a deadline passed before the work was done
  kUnimplemented,       // the request asks for what is not offered: a method other than POST, a
                        // Content-Type or Content-Encoding the server does not read
  kUnavailable,         // a peer or the system would not serve: a port that cannot be bound, an
                        // API server that did not answer or answered 5xx
  kInternal,            // our own bug, or a step that cannot fail on good input did
};

struct Failure {
  StatusCode code = StatusCode::kInvalidArgument;
  std::string message;
  // The HTTP status this failure already is, when HTTP has the only word for it; 0 otherwise.
  // Set in two places: the kube layer keeps the API server's answer here (404, 409, 410, ...;
  // kube::kTransportError when no answer came), and the server's request checks keep 405 and
  // 415, which no canonical code tells apart. Never our own code: read `code` for that.
  int http_status = 0;
};

inline Failure invalid_argument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
inline Failure not_found(std::string message) {
  return {StatusCode::kNotFound, std::move(message)};
}
inline Failure failed_precondition(std::string message) {
  return {StatusCode::kFailedPrecondition, std::move(message)};
}
inline Failure resource_exhausted(std::string message) {
  return {StatusCode::kResourceExhausted, std::move(message)};
}
inline Failure deadline_exceeded(std::string message) {
  return {StatusCode::kDeadlineExceeded, std::move(message)};
}
inline Failure unavailable(std::string message) {
  return {StatusCode::kUnavailable, std::move(message)};
}
inline Failure internal_error(std::string message) {
  return {StatusCode::kInternal, std::move(message)};
}

// The HTTP status that stands for a code, for the server's refusals and an AdmissionReview's
// status.code: kInvalidArgument, kOutOfRange and kFailedPrecondition 400, kPermissionDenied 403,
// kNotFound 404, kAborted 409, kResourceExhausted 413, kInternal 500, kUnimplemented 501,
// kUnavailable 503, kDeadlineExceeded 504.
int http_status(StatusCode code);

// A failure's HTTP status: its http_status when it has one, else that of its code.
int http_status(const Failure& failure);

}  // namespace jobset_webhook

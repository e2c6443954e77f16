#include "jobset_webhook/status.h"

#include "jobset_webhook/exit_codes.h"

namespace jobset_webhook {

// The statuses of Google's HTTP mapping of canonical codes (google.rpc.Code), except
// kResourceExhausted: here it means a body too large (413), not a rate limit (429).
int http_status(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return 400;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kPermissionDenied: return 403;
    case StatusCode::kAborted: return 409;
    case StatusCode::kOutOfRange: return 400;
    case StatusCode::kFailedPrecondition: return 400;
    case StatusCode::kResourceExhausted: return 413;
    case StatusCode::kDeadlineExceeded: return 504;
    case StatusCode::kUnimplemented: return 501;
    case StatusCode::kUnavailable: return 503;
    case StatusCode::kInternal: return 500;
  }
  return 500;
}

int http_status(const Failure& failure) {
  return failure.http_status != 0 ? failure.http_status : http_status(failure.code);
}

int exit_code(StatusCode code) {
  switch (code) {
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded: return kExitFailed;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kPermissionDenied:
    case StatusCode::kAborted:
    case StatusCode::kOutOfRange:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kResourceExhausted:
    case StatusCode::kUnimplemented:
    case StatusCode::kInternal: return kExitUnusableInput;
  }
  return kExitUnusableInput;
}

}  // namespace jobset_webhook

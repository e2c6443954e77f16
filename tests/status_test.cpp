#include "jobset_webhook/status.h"

#include <catch2/catch.hpp>
#include <utility>
#include <vector>

#include "jobset_webhook/exit_codes.h"
#include "jobset_webhook/result.h"

using jobset_webhook::exit_code;
using jobset_webhook::Failure;
using jobset_webhook::http_status;
using jobset_webhook::Result;
using jobset_webhook::StatusCode;

namespace {

struct Mapping {
  const char* name;
  StatusCode code;
  int http;
  int exit;
};

// Literal numbers: what the server answers and what a script sees, whatever the code is called.
const std::vector<Mapping> kMappings = {
    {"invalid argument", StatusCode::kInvalidArgument, 400, 2},
    {"not found", StatusCode::kNotFound, 404, 2},
    {"permission denied", StatusCode::kPermissionDenied, 403, 2},
    {"aborted", StatusCode::kAborted, 409, 2},
    {"out of range", StatusCode::kOutOfRange, 400, 2},
    {"failed precondition", StatusCode::kFailedPrecondition, 400, 2},
    {"resource exhausted", StatusCode::kResourceExhausted, 413, 2},
    {"deadline exceeded", StatusCode::kDeadlineExceeded, 504, 1},
    {"unimplemented", StatusCode::kUnimplemented, 501, 2},
    {"unavailable", StatusCode::kUnavailable, 503, 1},
    {"internal", StatusCode::kInternal, 500, 2},
};

}  // namespace

TEST_CASE("Each status code has one HTTP status and one exit code", "[status]") {
  for (const auto& m : kMappings) {
    DYNAMIC_SECTION(m.name) {
      CHECK(http_status(m.code) == m.http);
      CHECK(exit_code(m.code) == m.exit);
      CHECK(http_status(Failure{m.code, "x"}) == m.http);
      CHECK(exit_code(Failure{m.code, "x"}) == m.exit);
    }
  }
}

TEST_CASE("The helpers make a failure of their code with the message", "[status]") {
  const std::vector<std::pair<Failure, StatusCode>> cases = {
      {jobset_webhook::invalid_argument("m"), StatusCode::kInvalidArgument},
      {jobset_webhook::not_found("m"), StatusCode::kNotFound},
      {jobset_webhook::failed_precondition("m"), StatusCode::kFailedPrecondition},
      {jobset_webhook::resource_exhausted("m"), StatusCode::kResourceExhausted},
      {jobset_webhook::deadline_exceeded("m"), StatusCode::kDeadlineExceeded},
      {jobset_webhook::unavailable("m"), StatusCode::kUnavailable},
      {jobset_webhook::internal_error("m"), StatusCode::kInternal},
  };
  for (const auto& [failure, code] : cases) {
    CHECK(failure.code == code);
    CHECK(failure.message == "m");
    CHECK(failure.http_status == 0);
  }
}

TEST_CASE("An HTTP status kept on a failure is its HTTP status; the exit code reads the code",
          "[status]") {
  const Failure media{StatusCode::kUnimplemented, "Content-Type must be application/json", 415};
  CHECK(http_status(media) == 415);
  CHECK(exit_code(media) == 2);
  const Failure gone{StatusCode::kOutOfRange, "too old resource version", 410};
  CHECK(http_status(gone) == 410);
  const Failure refused{StatusCode::kUnavailable, "connection refused", 0};
  CHECK(http_status(refused) == 503);
  CHECK(exit_code(refused) == 1);
}

TEST_CASE("A Result holds a value or the failure, code and message", "[status]") {
  const Result<int> value = 3;
  REQUIRE(value.ok());
  CHECK(value.value() == 3);
  const Result<int> failed = jobset_webhook::resource_exhausted("too large");
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().code == StatusCode::kResourceExhausted);
  CHECK(failed.failure().message == "too large");
}

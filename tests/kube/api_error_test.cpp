#include <catch2/catch.hpp>
#include <vector>

#include "jobset_webhook/kube/api.h"

using jobset_webhook::StatusCode;
using jobset_webhook::kube::api_error;

TEST_CASE("An API server's HTTP status is kept beside the code it means to the controller",
          "[kube][api_error]") {
  struct Case {
    int http;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {jobset_webhook::kube::kTransportError, StatusCode::kUnavailable},
      {400, StatusCode::kInvalidArgument},
      {401, StatusCode::kUnavailable},
      {403, StatusCode::kPermissionDenied},
      {404, StatusCode::kNotFound},
      {409, StatusCode::kAborted},
      {410, StatusCode::kOutOfRange},
      {422, StatusCode::kInvalidArgument},
      {429, StatusCode::kUnavailable},
      {500, StatusCode::kUnavailable},
      {503, StatusCode::kUnavailable},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.http) {
      const auto f = api_error(c.http, "jobs.batch \"js-workers-3\" not found");
      CHECK(f.code == c.code);
      CHECK(f.http_status == c.http);
      CHECK(f.message == "jobs.batch \"js-workers-3\" not found");
    }
  }
}

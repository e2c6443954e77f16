#pragma once

// One access-log line per request, at level info:
//   {"time":"...","level":"info","msg":"request","method":"POST",
//    "path":"/validate-jobset-x-k8s-io-v1alpha2-jobset","remote":"10.0.0.1:51234","code":200,
//    "latencyUs":412,"uid":"3c1e6a35-...","operation":"UPDATE","namespace":"default",
//    "name":"training","dryRun":false,"allowed":false}
// The review fields appear when a review was answered; "error" says why a request was refused.

#include <cstdint>
#include <optional>
#include <string>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/runtime/log.h"

namespace jobset_webhook::server {

struct AccessRecord {
  std::string method;
  std::string path;
  std::string remote;           // ip:port
  int code = 0;                 // HTTP status sent
  std::int64_t latency_us = 0;  // from the request's first byte to its response written
  std::optional<admission::ReviewSummary> review;
  std::string error;
};

// The fields of the line after time, level and msg, in the order shown above.
Json access_fields(const AccessRecord& record);

// Writes the line (msg "request") when info is enabled.
void log_access(const runtime::Log& log, const AccessRecord& record);

}  // namespace jobset_webhook::server

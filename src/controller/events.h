#pragma once

// Events the controller records (core/v1 Event, as client-go's recorder writes them). An Event
// is a courtesy to whoever runs `kubectl describe`: a failure to write one is logged, never
// returned.

#include <string>

#include "jobset_webhook/json.h"
#include "jobset_webhook/kube/api.h"
#include "jobset_webhook/runtime/log.h"

namespace jobset_webhook::controller {

inline constexpr const char* kComponent = "jobset-scale-down-controller";

// Who records: the API to write through, the log of failures, the reportingInstance.
struct EventRecorder {
  kube::Api& api;
  const runtime::Log& log;
  std::string identity;

  // An Event of `type` (Normal, Warning) about `object`, of apiVersion `api_version` and `kind`.
  void record(const Json& object, const char* api_version, const char* kind, const char* type,
              const std::string& reason, const std::string& message) const;
};

}  // namespace jobset_webhook::controller

#include "events.h"

#include <chrono>

#include "jobset_webhook/runtime/time.h"
#include "object_cache.h"

namespace jobset_webhook::controller {

void EventRecorder::record(const Json& object, const char* api_version, const char* kind,
                           const char* type, const std::string& reason,
                           const std::string& message) const {
  const std::string ns = meta_string(object, "namespace");
  const std::string name = meta_string(object, "name");
  const std::string now = runtime::rfc3339(std::chrono::system_clock::now());
  const Json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"generateName", name + "."}, {"namespace", ns}}},
      {"involvedObject",
       {{"apiVersion", api_version},
        {"kind", kind},
        {"name", name},
        {"namespace", ns},
        {"uid", meta_string(object, "uid")},
        {"resourceVersion", meta_string(object, "resourceVersion")}}},
      {"reason", reason},
      {"message", message},
      {"type", type},
      {"source", {{"component", kComponent}}},
      {"firstTimestamp", now},
      {"lastTimestamp", now},
      {"count", 1},
      {"reportingComponent", kComponent},
      {"reportingInstance", identity},
  };
  auto res = api.create(kube::core_path(ns, "events"), event);
  if (!res.ok()) {
    log.warn("event", {{"object", ns + "/" + name}, {"error", res.failure().message}});
  }
}

}  // namespace jobset_webhook::controller

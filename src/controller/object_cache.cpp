#include "object_cache.h"

#include "plan_notice.h"
#include "jobset_webhook/json_access.h"

namespace jobset_webhook::controller {

std::string meta_string(const Json& obj, const char* key) {
  return string_at(member(&obj, "metadata"), key);
}

std::string label(const Json& obj, const char* key) {
  return string_at(member(member(&obj, "metadata"), "labels"), key);
}

Json trim_for_cache(Json object) {
  if (!object.is_object()) return object;
  if (const auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    meta->erase("managedFields");
    // The notice's own annotations stay: plan_notice compares them with what they must be.
    if (const auto a = meta->find("annotations"); a != meta->end() && a->is_object()) {
      Json kept = Json::object();
      for (const auto& [k, v] : a->items()) {
        if (k.rfind(kNoticeAnnotationPrefix, 0) == 0) kept[k] = v;
      }
      if (kept.empty()) {
        meta->erase("annotations");
      } else {
        *a = std::move(kept);
      }
    }
  }
  const auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return object;
  spec->erase("template");
  if (const auto rjobs = spec->find("replicatedJobs"); rjobs != spec->end() && rjobs->is_array()) {
    for (auto& r : *rjobs) {
      if (r.is_object()) r.erase("template");
    }
  }
  return object;
}

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

}  // namespace jobset_webhook::controller

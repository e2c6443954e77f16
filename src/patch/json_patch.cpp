#include "jobset_webhook/patch/json_patch.h"

namespace jobset_webhook::patch {

Result<Json> to_json(JsonView value) {
  // simdjson writes the view back out as compact JSON; nlohmann reads it. Both sides agree on
  // every valid document, the catch is only for nlohmann's own limits.
  try {
    return Json::parse(simdjson::to_string(value));
  } catch (const Json::exception& e) {
    return invalid_argument(std::string("cannot convert the object: ") + e.what());
  }
}

Result<Json> apply(const Json& document, const Json& operations) {
  if (!operations.is_array())
    return invalid_argument("patch: must be a list of operations, got " + operations.dump());
  try {
    return document.patch(operations);
  } catch (const Json::exception& e) {
    return invalid_argument(std::string("patch: ") + e.what());
  }
}

}  // namespace jobset_webhook::patch

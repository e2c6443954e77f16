#include "jobset_webhook/patch/json_patch.h"

namespace jobset_webhook::patch {

namespace {

void append_escaped(std::string& out, std::string_view token) {
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string escape_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  append_escaped(out, token);
  return out;
}

void append_pointer_token(std::string& pointer, std::string_view token) {
  pointer += '/';
  append_escaped(pointer, token);
}

std::string pointer(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) append_pointer_token(out, t);
  return out;
}

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

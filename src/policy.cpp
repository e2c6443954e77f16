#include "jobset_webhook/policy.h"

#include <string>

namespace jobset_webhook {
namespace {

Failure policy_error(const std::string& key, const std::string& problem) {
  return Failure{400, "policy: " + key + ": " + problem};
}

// The offending value as JSON for the message. Invalid UTF-8 is replaced rather than thrown about:
// parse_policy never throws, and a hand-built Json may hold any bytes.
std::string shown(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string known_keys(std::initializer_list<const char*> keys) {
  std::string out;
  for (const char* k : keys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

}  // namespace

Result<Policy> parse_policy(const Json& document) {
  Policy policy;
  if (document.is_null()) return policy;  // an empty file keeps every default
  if (!document.is_object()) return policy_error("<root>", "must be a mapping, got " + shown(document));
  for (const auto& [key, value] : document.items()) {
    if (key != "elastic") {
      return policy_error(key, "unknown key (known: " + known_keys({"elastic"}) + ")");
    }
    if (value.is_null()) continue;
    if (!value.is_object()) return policy_error("elastic", "must be a mapping, got " + shown(value));
    for (const auto& [name, flag] : value.items()) {
      bool* target = nullptr;
      if (name == "replicas") target = &policy.elastic.replicas;
      if (name == "parallelism") target = &policy.elastic.parallelism;
      if (target == nullptr) {
        return policy_error("elastic." + name,
                            "unknown key (known: " + known_keys({"replicas", "parallelism"}) + ")");
      }
      if (!flag.is_boolean()) {
        return policy_error("elastic." + name, "must be a boolean, got " + shown(flag));
      }
      *target = flag.get<bool>();
    }
  }
  return policy;
}

}  // namespace jobset_webhook

#pragma once

// Checked reads of a Json document (json.h's nlohmann type) whose shape is not known: objects a
// client or a cluster sent, YAML converted by the CLI. None throws, inserts or asserts; a member
// that is missing or of another type reads as absent. (Requests on the hot path are read through
// simdjson instead: validation/read.h.)

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook {

// object[key], or nullptr when object is null, not an object, or lacks key.
const Json* member(const Json* object, std::string_view key);

// The string object[key], or "" when absent or not a string.
std::string string_at(const Json* object, std::string_view key);

// The integer object[key], or nullopt when absent or not an integer.
std::optional<std::int64_t> integer_at(const Json* object, std::string_view key);

// The value at tokens, walking objects by key and lists by decimal index (JSON Pointer tokens,
// unescaped); nullptr when there is none or it is null.
const Json* find_path(const Json& root, const std::vector<std::string>& tokens);
Json* find_path(Json& root, const std::vector<std::string>& tokens);

}  // namespace jobset_webhook

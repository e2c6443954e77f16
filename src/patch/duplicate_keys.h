#pragma once

// Whether a parsed object repeats a key: both ways of turning a view into something else
// (to_json, apply_to_view) keep, as Json::parse does, the last value at the first key's place.

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook::patch {

// True when two members of object (of size members) share a key: sorted names, compared
// neighbour by neighbour.
inline bool has_duplicate_key(JsonObjectView object, std::size_t size) {
  std::vector<std::string_view> keys;
  keys.reserve(size);
  for (const auto field : object) keys.push_back(field.key);
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

}  // namespace jobset_webhook::patch

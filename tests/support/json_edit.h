#pragma once

// Test helpers: a JobSet (or any document) with one field set or removed, by JSON Pointer, so that
// a test case reads as "the base object, with /spec/suspend true".

#include <string>

#include "jobset_webhook/json.h"

namespace jobset_webhook::testing {

// js with the value at pointer replaced (or added), e.g. with(js, "/spec/suspend", true).
inline Json with(Json js, const std::string& pointer, Json value) {
  js[Json::json_pointer(pointer)] = std::move(value);
  return js;
}

// js without the member or element at pointer.
inline Json without(Json js, const std::string& pointer) {
  const Json::json_pointer p(pointer);
  Json& parent = js[p.parent_pointer()];
  if (parent.is_array()) {
    parent.erase(std::stoul(p.back()));
  } else {
    parent.erase(p.back());
  }
  return js;
}

}  // namespace jobset_webhook::testing

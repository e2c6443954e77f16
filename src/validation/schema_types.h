#pragma once

// Type checks as the API server makes them against a structural schema, and its type errors.

#include <string_view>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/field/path.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::validation {

// The JSON type of a value as the API server names it in a type error ("integer" for 3.0).
std::string_view json_type(JsonView v);

// `<path>: Invalid value: "string": <path> in body must be of type integer: "string"`
field::Error type_error(const field::Path& path, std::string_view expected, JsonView v);

}  // namespace jobset_webhook::validation

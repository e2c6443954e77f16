#include "schema_types.h"

#include <cstdint>
#include <string>

#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {

using simdjson::dom::element_type;

std::string_view json_type(JsonView v) {
  switch (v.type()) {
    case element_type::OBJECT: return "object";
    case element_type::ARRAY: return "array";
    case element_type::STRING: return "string";
    case element_type::INT64:
    case element_type::UINT64: return "integer";
    case element_type::DOUBLE: return integer_of(v) ? "integer" : "number";
    case element_type::BOOL: return "boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "null";
}

// kube-openapi names the field in its own notation, in the path and in the message (map keys as
// fields: apiextensions-apiserver's kubeOpenAPIResultToFieldErrors takes its path as it is); the
// origin keeps apimachinery's, which a report looks the field up by.
field::Error type_error(const field::Path& path, std::string_view expected, JsonView v) {
  const std::string actual(json_type(v));
  const std::string name = path.to_openapi_string();
  field::Error error{
      field::ErrorType::kTypeInvalid, name, field::BadValue::string(actual),
      name + " in body must be of type " + std::string(expected) + ": \"" + actual + "\""};
  error.origin = path.to_string();
  return error;
}

}  // namespace jobset_webhook::validation

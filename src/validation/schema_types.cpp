#include "validation/schema_types.h"

#include <cstdint>
#include <limits>
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

field::Error type_error(const field::Path& path, std::string_view expected, JsonView v) {
  const std::string actual(json_type(v));
  return {field::ErrorType::kTypeInvalid, path.to_string(), field::BadValue::string(actual),
          path.to_string() + " in body must be of type " + std::string(expected) + ": \"" + actual + "\""};
}

void check_template_types(const FieldKind& kind, JsonView v, field::Path& path, field::ErrorList& errs) {
  if (v.type() == element_type::NULL_VALUE) return;  // the API server drops nulls of such fields
  switch (kind.shape) {
    case Shape::kStruct:
      if (v.type() != element_type::OBJECT) return errs.push_back(type_error(path, "object", v));
      for (const auto [key, child] : JsonObjectView(v)) {
        const FieldKind* sub = kind.field(key);
        if (sub == nullptr) continue;  // unknown fields are pruned, not rejected
        path.push_child(key);
        check_template_types(*sub, child, path, errs);
        path.pop();
      }
      return;
    case Shape::kMap:
    case Shape::kSlice: {
      const bool is_map = kind.shape == Shape::kMap;
      if (v.type() != (is_map ? element_type::OBJECT : element_type::ARRAY)) {
        return errs.push_back(type_error(path, is_map ? "object" : "array", v));
      }
      if (!kind.element) return;
      if (is_map) {
        for (const auto [key, child] : JsonObjectView(v)) {
          path.push_key(key);
          check_template_types(*kind.element, child, path, errs);
          path.pop();
        }
      } else {
        std::size_t i = 0;
        for (const auto child : JsonArrayView(v)) {
          path.push_index(i++);
          check_template_types(*kind.element, child, path, errs);
          path.pop();
        }
      }
      return;
    }
    case Shape::kScalar:
      break;
  }
  const auto t = json_type(v);
  switch (kind.scalar) {
    case ScalarKind::kString:
    case ScalarKind::kTime:
      if (t != "string") errs.push_back(type_error(path, "string", v));
      return;
    case ScalarKind::kInteger:
      if (t != "integer") errs.push_back(type_error(path, "integer", v));
      return;
    case ScalarKind::kBool:
      if (t != "boolean") errs.push_back(type_error(path, "boolean", v));
      return;
    case ScalarKind::kIntOrString:
      if (t != "integer" && t != "string") errs.push_back(type_error(path, "integer,string", v));
      return;
    case ScalarKind::kQuantity:
      // Lenient: Go's Quantity also decodes a JSON number such as 0.5.
      if (t != "integer" && t != "string" && t != "number") errs.push_back(type_error(path, "integer,string", v));
      return;
    case ScalarKind::kRawJson:
      return;
  }
}

void check_int32(const field::Path& path, JsonView v, field::ErrorList& errs) {
  const auto n = integer_of(v);  // absent for a number above int64, which is out of range too
  if (!n || *n < std::numeric_limits<std::int32_t>::min() || *n > std::numeric_limits<std::int32_t>::max()) {
    errs.push_back(field::invalid(path, field::BadValue::of(v), "must be between -2147483648 and 2147483647, inclusive"));
  }
}

}  // namespace jobset_webhook::validation

#include "schema_types.h"

#include <cstdint>
#include <string>

#include "quantity.h"
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

field::Error quantity_pattern_error(const field::Path& path, std::string_view text) {
  const std::string name = path.to_openapi_string();
  field::Error error{field::ErrorType::kInvalid, name, field::BadValue::string(text),
                     name + " in body should match '" + std::string(kQuantityPattern) + "'"};
  error.origin = path.to_string();
  return error;
}

namespace {

// A quantity string the CRD's pattern refuses ("abc", "1.2.3", "+"): the pattern applies to
// strings only, so a JSON number never fails it.
bool fails_quantity_pattern(ScalarKind scalar, JsonView v) {
  return scalar == ScalarKind::kQuantity && v.type() == element_type::STRING &&
         !matches_quantity_pattern(std::string_view(v));
}

// The type a scalar of this kind must have, as the error names it, when v does not have it;
// empty when it does.
std::string_view scalar_mismatch(ScalarKind scalar, JsonView v) {
  const auto t = json_type(v);
  switch (scalar) {
    case ScalarKind::kString:
    case ScalarKind::kTime: return t != "string" ? "string" : "";
    case ScalarKind::kInteger: return t != "integer" ? "integer" : "";
    case ScalarKind::kBool: return t != "boolean" ? "boolean" : "";
    case ScalarKind::kIntOrString: return t != "integer" && t != "string" ? "integer,string" : "";
    case ScalarKind::kQuantity:
      // Lenient: Go's Quantity also decodes a JSON number such as 0.5.
      return t != "integer" && t != "string" && t != "number" ? "integer,string" : "";
    case ScalarKind::kRawJson: return "";
  }
  return "";
}

// True when check_template_types would find nothing: the common case, answered without building a
// path for every field (which cost as much as the rest of the check of a valid JobSet).
bool conforms(const FieldKind& kind, JsonView v) {
  const auto type = v.type();
  if (type == element_type::NULL_VALUE) return true;
  switch (kind.shape) {
    case Shape::kStruct:
      if (type != element_type::OBJECT) return false;
      for (const auto [key, child] : JsonObjectView(v)) {
        const FieldKind* sub = kind.field(key);
        if (sub != nullptr && !conforms(*sub, child)) return false;
      }
      return true;
    case Shape::kMap:
    case Shape::kSlice: {
      const bool is_map = kind.shape == Shape::kMap;
      if (type != (is_map ? element_type::OBJECT : element_type::ARRAY)) return false;
      if (!kind.element) return true;
      if (is_map) {
        for (const auto [key, child] : JsonObjectView(v)) {
          if (!conforms(*kind.element, child)) return false;
        }
      } else {
        for (const auto child : JsonArrayView(v)) {
          if (!conforms(*kind.element, child)) return false;
        }
      }
      return true;
    }
    case Shape::kScalar: break;
  }
  return scalar_mismatch(kind.scalar, v).empty() && !fails_quantity_pattern(kind.scalar, v);
}

}  // namespace

void check_template_types(const FieldKind& kind, JsonView v, field::Path& path,
                          field::ErrorList& errs) {
  if (v.type() == element_type::NULL_VALUE) return;  // the API server drops nulls of such fields
  switch (kind.shape) {
    case Shape::kStruct:
      if (v.type() != element_type::OBJECT) return errs.push_back(type_error(path, "object", v));
      for (const auto [key, child] : JsonObjectView(v)) {
        const FieldKind* sub = kind.field(key);
        // Unknown fields are pruned, not rejected; a conforming value needs no path.
        if (sub == nullptr || conforms(*sub, child)) continue;
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
          if (conforms(*kind.element, child)) continue;
          path.push_key(key);
          check_template_types(*kind.element, child, path, errs);
          path.pop();
        }
      } else {
        std::size_t i = 0;
        for (const auto child : JsonArrayView(v)) {
          const std::size_t index = i++;
          if (conforms(*kind.element, child)) continue;
          path.push_index(index);
          check_template_types(*kind.element, child, path, errs);
          path.pop();
        }
      }
      return;
    }
    case Shape::kScalar: break;
  }
  if (const auto expected = scalar_mismatch(kind.scalar, v); !expected.empty()) {
    errs.push_back(type_error(path, expected, v));
  } else if (fails_quantity_pattern(kind.scalar, v)) {
    errs.push_back(quantity_pattern_error(path, std::string_view(v)));
  }
}

void check_int32(const field::Path& path, JsonView v, field::ErrorList& errs) {
  const auto n = integer_of(v);  // absent for a number above int64, which is out of range too
  if (!n || *n < kMinInt32 || *n > kMaxInt32) {
    errs.push_back(field::invalid(path, field::BadValue::of(v),
                                  "must be between -2147483648 and 2147483647, inclusive"));
  }
}

}  // namespace jobset_webhook::validation

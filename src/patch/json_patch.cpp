#include "jobset_webhook/patch/json_patch.h"

#include "duplicate_keys.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jobset_webhook::patch {
namespace {

// The view as Json, with the types Json::parse gives its text: a non-negative integer unsigned, a
// negative one signed, a number with a fraction or exponent a double.
Json convert(JsonView value) {
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT: {
      const JsonObjectView object = value.get_object().value_unsafe();
      Json out = Json::object();
      auto& members = out.get_ref<Json::object_t&>();
      const std::size_t size = object.size();
      if (has_duplicate_key(object, size)) {
        // As Json::parse reads one: the last value, at the first key's place.
        for (const auto field : object) out[std::string(field.key)] = convert(field.value);
        return out;
      }
      // Keys known to be distinct are appended as they come: the ordered map's own insert looks
      // each key up in a list, which makes a map of n keys cost n squared.
      members.reserve(size);
      for (const auto field : object)
        members.Json::object_t::Container::emplace_back(std::string(field.key),
                                                        convert(field.value));
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      const JsonArrayView array = value.get_array().value_unsafe();
      Json out = Json::array();
      for (const auto item : array) out.push_back(convert(item));
      return out;
    }
    case simdjson::dom::element_type::STRING:
      return Json(std::string(value.get_string().value_unsafe()));
    case simdjson::dom::element_type::INT64: {
      const std::int64_t n = value.get_int64().value_unsafe();
      return n >= 0 ? Json(static_cast<std::uint64_t>(n)) : Json(n);
    }
    case simdjson::dom::element_type::UINT64: return Json(value.get_uint64().value_unsafe());
    case simdjson::dom::element_type::DOUBLE: return Json(value.get_double().value_unsafe());
    case simdjson::dom::element_type::BOOL: return Json(value.get_bool().value_unsafe());
    case simdjson::dom::element_type::NULL_VALUE: break;
  }
  return Json(nullptr);
}

}  // namespace

Result<Json> to_json(JsonView value) {
  // Walked, not written out and parsed again: Json::parse inserts each key of an object with a
  // look-up in the keys before it (nlohmann's ordered_map), quadratic in a large map's size.
  try {
    return convert(value);
  } catch (const std::exception& e) {
    return invalid_argument(std::string("cannot convert the object: ") + e.what());
  }
}

namespace {

// Why op cannot be applied to result when it adds (add, copy, move) under a value that is neither
// an object nor a list, "" otherwise: nlohmann's patch asserts there (json.hpp, operation_add:
// "if there exists a parent it cannot be primitive"), which would end the process.
std::string adds_under_a_scalar(const Json& result, const Json& op) {
  const auto name = op.find("op");
  const auto path = op.find("path");
  if (name == op.end() || path == op.end() || !name->is_string() || !path->is_string()) return "";
  if (*name != "add" && *name != "copy" && *name != "move") return "";
  const Json::json_pointer target(path->get<std::string>());
  if (target.empty()) return "";
  const Json::json_pointer parent = target.parent_pointer();
  if (!result.contains(parent)) return "";
  const Json& at = result.at(parent);
  if (at.is_object() || at.is_array() || at.is_null()) return "";
  return "patch: cannot " + name->get<std::string>() + " at " + path->get<std::string>() + ": " +
         (parent.empty() ? std::string("the document") : parent.to_string()) +
         " is neither an object nor a list";
}

}  // namespace

Result<Json> apply(const Json& document, const Json& operations) {
  if (!operations.is_array())
    return invalid_argument("patch: must be a list of operations, got " + operations.dump());
  try {
    // One operation at a time, as Json::patch applies them, each checked first.
    Json result = document;
    for (const auto& op : operations) {
      if (op.is_object()) {
        if (std::string why = adds_under_a_scalar(result, op); !why.empty()) {
          return invalid_argument(why);
        }
      }
      result.patch_inplace(Json::array({op}));
    }
    return result;
  } catch (const Json::exception& e) {
    return invalid_argument(std::string("patch: ") + e.what());
  }
}

}  // namespace jobset_webhook::patch

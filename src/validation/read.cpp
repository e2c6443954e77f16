#include "jobset_webhook/validation/read.h"

#include <cmath>

namespace jobset_webhook::validation {

using simdjson::dom::element_type;

std::optional<std::string_view> string_of(MaybeJson value) {
  if (!value || value->type() != element_type::STRING) return std::nullopt;
  return std::string_view(*value);
}

std::string_view string_or_empty(MaybeJson value) {
  return string_of(value).value_or(std::string_view());
}

std::optional<std::int64_t> integer_of(MaybeJson value) {
  if (!value) return std::nullopt;
  switch (value->type()) {
    case element_type::INT64: return int64_t(*value);
    case element_type::UINT64:
      return std::nullopt;  // above int64: no Kubernetes integer field holds it
    case element_type::DOUBLE: {
      const double d = double(*value);
      // 2^63 is exactly representable; anything at or beyond it does not fit.
      if (std::trunc(d) != d || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return std::nullopt;
      return static_cast<std::int64_t>(d);
    }
    default: return std::nullopt;
  }
}

std::optional<bool> bool_of(MaybeJson value) {
  if (!value || value->type() != element_type::BOOL) return std::nullopt;
  return bool(*value);
}

std::vector<JsonView> items_of(MaybeJson value) {
  std::vector<JsonView> out;
  if (is_list(value)) {
    for (const auto e : JsonArrayView(*value)) out.push_back(e);
  }
  return out;
}

bool is_object(MaybeJson value) { return value && value->type() == element_type::OBJECT; }
bool is_list(MaybeJson value) { return value && value->type() == element_type::ARRAY; }

MaybeJson member(MaybeJson object, std::string_view key) {
  if (!object || object->type() != element_type::OBJECT) return std::nullopt;
  JsonView value;
  if (JsonObjectView(*object).at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  if (value.type() == element_type::NULL_VALUE) return std::nullopt;
  return value;
}

MaybeJson at(MaybeJson value, std::initializer_list<std::string_view> keys) {
  for (const auto key : keys) value = member(value, key);
  return value;
}

std::int32_t wrap_int32(std::int64_t v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
}

}  // namespace jobset_webhook::validation

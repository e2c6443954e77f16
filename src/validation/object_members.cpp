#include "object_members.h"

namespace jobset_webhook::validation {

bool is_small(MaybeJson object) {
  return !object || JsonObjectView(*object).size() <= kSmallObject;
}

MaybeJson lookup(MaybeJson object, std::string_view key) {
  JsonView value;
  if (!object || JsonObjectView(*object).at_key(key).get(value) != simdjson::SUCCESS)
    return std::nullopt;
  return value;
}

bool repeats_earlier(JsonView object, std::string_view key) {
  for (const auto [k, value] : JsonObjectView(object)) {
    (void)value;
    if (k == key) return k.data() != key.data();
  }
  return false;
}

bool keys_increasing(MaybeJson object) {
  if (!object) return true;
  const JsonObjectView members(*object);
  auto it = members.begin();
  const auto end = members.end();
  if (it == end) return true;
  std::string_view previous = it.key();
  for (++it; it != end; ++it) {
    const std::string_view key = it.key();
    if (!field::key_less(previous, key)) return false;
    previous = key;
  }
  return true;
}

}  // namespace jobset_webhook::validation

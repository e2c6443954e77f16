#include "jobset_webhook/json_access.h"

#include <charconv>

namespace jobset_webhook {
namespace {

template <typename J>
J* walk(J& root, const std::vector<std::string>& tokens) {
  J* node = &root;
  for (const auto& token : tokens) {
    if (node->is_object()) {
      const auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      std::size_t index = 0;
      const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      if (ec != std::errc() || ptr != token.data() + token.size() || index >= node->size())
        return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
  }
  return node->is_null() ? nullptr : node;
}

}  // namespace

const Json* member(const Json* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  const auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

std::string string_at(const Json* object, std::string_view key) {
  const Json* v = member(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

std::optional<std::int64_t> integer_at(const Json* object, std::string_view key) {
  const Json* v = member(object, key);
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  return v->get<std::int64_t>();
}

const Json* find_path(const Json& root, const std::vector<std::string>& tokens) {
  return walk(root, tokens);
}

Json* find_path(Json& root, const std::vector<std::string>& tokens) { return walk(root, tokens); }

}  // namespace jobset_webhook

#include "jobset_webhook/patch/view_patch.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "duplicate_keys.h"
#include "jobset_webhook/json_pointer.h"
#include "jobset_webhook/json_text.h"
#include "jobset_webhook/patch/json_patch.h"

namespace jobset_webhook::patch {
namespace {

// The objects and lists the operations' paths pass through (each path without its last token),
// as a tree of tokens: these become Json, everything else stays in the view.
struct Trail {
  std::map<std::string, Trail, std::less<>> next;
};

// The trail of operations made only of add, replace and remove with pointer paths: the ones whose
// result does not depend on what a hole holds. nullopt for anything else.
std::optional<Trail> trail_of(const Json& operations) {
  if (!operations.is_array()) return std::nullopt;
  Trail root;
  for (const Json& operation : operations) {
    if (!operation.is_object()) return std::nullopt;
    const auto op = operation.find("op");
    const auto path = operation.find("path");
    if (op == operation.end() || path == operation.end() || !op->is_string() || !path->is_string())
      return std::nullopt;
    const auto& name = op->get_ref<const std::string&>();
    if (name != "add" && name != "replace" && name != "remove") return std::nullopt;
    auto tokens = pointer_tokens(path->get_ref<const std::string&>());
    if (!tokens) return std::nullopt;
    Trail* at = &root;
    for (std::size_t i = 0; i + 1 < tokens->size(); ++i) at = &at->next[(*tokens)[i]];
  }
  return root;
}

// The value as Json where the trail passes, with each object or list off the trail a hole: a
// binary value (which no JSON text holds) whose subtype indexes holes.
class Sparse {
 public:
  explicit Sparse(Keys keys) : keys_(keys) {}

  Json on_trail(JsonView value, const Trail& trail) {
    const auto next = [&](std::string_view key) -> const Trail* {
      const auto found = trail.next.find(key);
      return found == trail.next.end() ? nullptr : &found->second;
    };
    if (value.type() == simdjson::dom::element_type::OBJECT) {
      const JsonObjectView object = value.get_object().value_unsafe();
      Json out = Json::object();
      const std::size_t size = object.size();
      if (keys_ == Keys::kMayRepeat && has_duplicate_key(object, size)) {
        // As to_json reads one: the last value, at the first key's place.
        for (const auto field : object)
          out[std::string(field.key)] = off(field.value, next(field.key));
        return out;
      }
      auto& members = out.get_ref<Json::object_t&>();
      members.reserve(size);
      for (const auto field : object)
        members.Json::object_t::Container::emplace_back(std::string(field.key),
                                                        off(field.value, next(field.key)));
      return out;
    }
    if (value.type() == simdjson::dom::element_type::ARRAY) {
      Json out = Json::array();
      std::size_t index = 0;
      const JsonArrayView array = value.get_array().value_unsafe();
      for (const auto item : array) out.push_back(off(item, next(std::to_string(index++))));
      return out;
    }
    return leaf(value);
  }

  const std::vector<JsonView>& holes() const { return holes_; }

 private:
  Json off(JsonView value, const Trail* trail) {
    if (trail != nullptr) return on_trail(value, *trail);
    const auto type = value.type();
    if (type != simdjson::dom::element_type::OBJECT && type != simdjson::dom::element_type::ARRAY)
      return leaf(value);
    holes_.push_back(value);
    return Json::binary(Json::binary_t::container_type{},
                        static_cast<std::uint64_t>(holes_.size() - 1));
  }

  static Json leaf(JsonView value) {
    auto json = to_json(value);  // a scalar: never fails
    return json.ok() ? std::move(json).value() : Json(nullptr);
  }

  Keys keys_;
  std::vector<JsonView> holes_;
};

// A string as JSON text, as nlohmann writes it; text that is not UTF-8 (which only an operation's
// value can hold: a view's strings are checked) with its bad bytes replaced, as ParsedView::of does.
void write_string(std::string_view text, std::string& out) {
  if (append_json_string(out, text, JsonEscapes::kStandard)) return;
  out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The view as JSON text that reads back as to_json reads the view: a repeated key once, with its
// last value at its first place; a double as Json writes it (so it stays a double).
void write_view(JsonView value, Keys keys, std::string& out) {
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT: {
      const JsonObjectView object = value.get_object().value_unsafe();
      if (keys == Keys::kDistinct || !has_duplicate_key(object, object.size())) {
        out += '{';
        bool first = true;
        for (const auto field : object) {
          if (!first) out += ',';
          first = false;
          write_string(field.key, out);
          out += ':';
          write_view(field.value, keys, out);
        }
        out += '}';
        return;
      }
      std::vector<std::pair<std::string_view, JsonView>> members;
      {
        std::unordered_map<std::string_view, std::size_t> place;
        for (const auto field : object) {
          const auto [at, added] = place.emplace(field.key, members.size());
          if (added)
            members.emplace_back(field.key, field.value);
          else
            members[at->second].second = field.value;
        }
      }
      out += '{';
      bool first = true;
      for (const auto& [key, member] : members) {
        if (!first) out += ',';
        first = false;
        write_string(key, out);
        out += ':';
        write_view(member, keys, out);
      }
      out += '}';
      return;
    }
    case simdjson::dom::element_type::ARRAY: {
      out += '[';
      bool first = true;
      const JsonArrayView array = value.get_array().value_unsafe();
      for (const auto item : array) {
        if (!first) out += ',';
        first = false;
        write_view(item, keys, out);
      }
      out += ']';
      return;
    }
    case simdjson::dom::element_type::STRING:
      write_string(value.get_string().value_unsafe(), out);
      return;
    case simdjson::dom::element_type::INT64:
      append_json_integer(out, value.get_int64().value_unsafe());
      return;
    case simdjson::dom::element_type::UINT64:
      append_json_integer(out, value.get_uint64().value_unsafe());
      return;
    case simdjson::dom::element_type::DOUBLE:
      out += Json(value.get_double().value_unsafe()).dump();
      return;
    case simdjson::dom::element_type::BOOL:
      out += value.get_bool().value_unsafe() ? "true" : "false";
      return;
    case simdjson::dom::element_type::NULL_VALUE: out += "null"; return;
  }
}

// The patched sparse value as JSON text, each hole written from the view.
void write(const Json& value, const std::vector<JsonView>& holes, Keys keys, std::string& out) {
  switch (value.type()) {
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const Json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        write_string(key, out);
        out += ':';
        write(member, holes, keys, out);
      }
      out += '}';
      return;
    }
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const Json& item : value) {
        if (!first) out += ',';
        first = false;
        write(item, holes, keys, out);
      }
      out += ']';
      return;
    }
    case Json::value_t::binary:
      write_view(holes[static_cast<std::size_t>(value.get_binary().subtype())], keys, out);
      return;
    case Json::value_t::string: write_string(value.get_ref<const std::string&>(), out); return;
    default: out += value.dump(-1, ' ', false, Json::error_handler_t::replace); return;
  }
}

}  // namespace

Result<ParsedView> apply_to_view(JsonView js, const Json& operations, Keys keys) {
  const auto trail = trail_of(operations);
  if (!trail) {
    auto document = to_json(js);
    if (!document.ok()) return document.failure();
    auto patched = patch::apply(document.value(), operations);
    if (!patched.ok()) return patched.failure();
    return ParsedView::of(patched.value());
  }
  std::string text;
  try {
    Sparse sparse(keys);
    auto patched = patch::apply(sparse.on_trail(js, *trail), operations);
    if (!patched.ok()) return patched.failure();
    write(patched.value(), sparse.holes(), keys, text);
  } catch (const std::exception& e) {
    return invalid_argument(std::string("cannot convert the object: ") + e.what());
  }
  return ParsedView::of_text(text);
}

}  // namespace jobset_webhook::patch

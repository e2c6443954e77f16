#include "go_json.h"

#include "jobset_webhook/json_text.h"

namespace jobset_webhook::admission {
namespace {

// nlohmann's dump (invalid UTF-8 replaced by U+FFFD), then Go's HTML-safe escaping. Exact for any
// value; the one-pass writer below falls back to it for what it does not write itself.
std::string dump_then_escape(const Json& value) {
  const std::string plain = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(plain.size());
  // In compact JSON these characters can only stand inside strings, so escaping them here is
  // exact.
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const char c = plain[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < plain.size() && plain[i + 1] == '\x80' &&
               (plain[i + 2] == '\xA8' || plain[i + 2] == '\xA9')) {
      out += plain[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// One pass over the tree, the same bytes as dump_then_escape. False for what it leaves to
// dump_then_escape: strings that are not valid UTF-8 (nlohmann's replacement rules) and binary
// values.
bool append_value(std::string& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: out += "null"; return true;
    case Json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return true;
    case Json::value_t::number_integer:
      append_json_integer(out, value.get<Json::number_integer_t>());
      return true;
    case Json::value_t::number_unsigned:
      append_json_integer(out, value.get<Json::number_unsigned_t>());
      return true;
    case Json::value_t::number_float: out += value.dump(); return true;  // nlohmann's float format
    case Json::value_t::string:
      return append_json_string(out, value.get_ref<const Json::string_t&>(),
                                JsonEscapes::kHtmlSafe);
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value.get_ref<const Json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        if (!append_value(out, element)) return false;
      }
      out += ']';
      return true;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const Json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        if (!append_json_string(out, key, JsonEscapes::kHtmlSafe)) return false;
        out += ':';
        if (!append_value(out, member)) return false;
      }
      out += '}';
      return true;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded: return false;
  }
  return false;
}

}  // namespace

std::string go_json_dump(const Json& value) {
  // Every response goes through here: writing it in one pass, without nlohmann's serializer and
  // a second escaping pass, was a third of the cost of answering a small denial.
  std::string out;
  out.reserve(1024);
  if (append_value(out, value)) return out;
  return dump_then_escape(value);
}

}  // namespace jobset_webhook::admission

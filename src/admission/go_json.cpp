#include "admission/go_json.h"

#include <array>
#include <charconv>

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

// The escape of one byte of valid UTF-8 text, or nullptr when it is written as is: nlohmann's
// escapes (quote, backslash, \b \t \n \f \r, other controls as \u00xx), plus Go's <, >, &.
const char* escape_of(unsigned char c) {
  static constexpr const char* kControls[32] = {
      "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
      "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
      "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
      "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f"};
  if (c < 0x20) return kControls[c];
  switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '<': return "\\u003c";
    case '>': return "\\u003e";
    case '&': return "\\u0026";
    default: return nullptr;
  }
}

// The bytes that may need an escape: controls, quote, backslash, <, >, & and 0xE2, the first
// byte of U+2028 and U+2029. Everything else is copied in runs.
constexpr std::array<bool, 256> kMayEscape = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = true;
  for (const unsigned char c : {'"', '\\', '<', '>', '&', '\xE2'}) table[c] = true;
  return table;
}();

// Writes s quoted; false (and nothing reliable written) when s is not valid UTF-8.
bool append_string(std::string& out, std::string_view s) {
  out += '"';
  unsigned char seen = 0;  // all bytes or-ed: ASCII text needs no UTF-8 check
  std::size_t plain_from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    seen |= c;
    if (!kMayEscape[c]) continue;
    const char* escape = escape_of(c);
    std::size_t consumed = 1;
    // U+2028 and U+2029 (E2 80 A8/A9): Go escapes them, as JavaScript cannot hold them raw.
    if (c == 0xE2 && i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
      escape = s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      consumed = 3;
    }
    if (escape == nullptr) continue;
    out.append(s, plain_from, i - plain_from);
    out += escape;
    i += consumed - 1;
    plain_from = i + 1;
  }
  if ((seen & 0x80) != 0 && !simdjson::validate_utf8(s.data(), s.size())) return false;
  out.append(s, plain_from, s.size() - plain_from);
  out += '"';
  return true;
}

template <typename Integer>
void append_integer(std::string& out, Integer n) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, n).ptr;
  out.append(buf, end);
}

// One pass over the tree, the same bytes as dump_then_escape. False for what it leaves to
// dump_then_escape: strings that are not valid UTF-8 (nlohmann's replacement rules) and binary
// values.
bool append_value(std::string& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: out += "null"; return true;
    case Json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return true;
    case Json::value_t::number_integer: append_integer(out, value.get<Json::number_integer_t>()); return true;
    case Json::value_t::number_unsigned: append_integer(out, value.get<Json::number_unsigned_t>()); return true;
    case Json::value_t::number_float: out += value.dump(); return true;  // nlohmann's float format
    case Json::value_t::string: return append_string(out, value.get_ref<const Json::string_t&>());
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
        if (!append_string(out, key)) return false;
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

std::string base64_encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i < bytes.size()) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace jobset_webhook::admission

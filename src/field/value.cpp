#include "jobset_webhook/field/value.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>

#include "jobset_webhook/parsed_view.h"

namespace jobset_webhook::field {
namespace {

constexpr std::string_view kEllipsis = "...";
constexpr char kLowerHex[] = "0123456789abcdef";

// Go's unicode.IsPrint differs from "not a control character" in a few places that matter for
// Kubernetes strings; the C1 controls and format characters below are the ones Go escapes.
bool go_printable(char32_t r) {
  if (r < 0x20 || r == 0x7F) return false;
  if (r >= 0x80 && r < 0xA0) return false;
  if (r == 0xAD || r == 0x2028 || r == 0x2029 || r == 0xFEFF) return false;
  if (r >= 0x200B && r <= 0x200F) return false;
  return true;
}

void append_hex(std::string& out, std::uint32_t value, int digits) {
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
    out += kLowerHex[(value >> shift) & 0xF];
}

void append_go_escaped_rune(std::string& out, char32_t r) {
  switch (r) {
    case '\a': out += "\\a"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\v': out += "\\v"; return;
    default: break;
  }
  if (r < 0x20 || r == 0x7F) {
    out += "\\x";
    append_hex(out, r, 2);
  } else if (r < 0x10000) {
    out += "\\u";
    append_hex(out, r, 4);
  } else {
    out += "\\U";
    append_hex(out, r, 8);
  }
}

// Go's encoding/json string escaping: HTML-safe, invalid UTF-8 replaced by U+FFFD.
void append_go_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    char32_t r = 0;
    const std::size_t len = decode_utf8(s, i, r);
    if (len == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    switch (r) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '<':
      case '>':
      case '&':
      case 0x2028:
      case 0x2029:
        out += "\\u";
        append_hex(out, r, 4);
        break;
      default:
        if (r < 0x20) {
          out += "\\u";
          append_hex(out, r, 4);
        } else {
          out.append(s.substr(i, len));
        }
    }
    i += len;
  }
  out += '"';
}

std::string format_double(double d) {
  std::array<char, 64> buf{};
  const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), d);
  return std::string(buf.data(), res.ptr);
}

// Iterative so that a hostile, deeply nested value cannot exhaust the stack; simdjson already
// bounds the depth, this keeps the printer safe regardless.
void append_go_json(std::string& out, JsonView root, std::size_t budget) {
  struct Frame {
    JsonView value;
    bool is_object;
    Members members;  // objects: sorted by key, as Go writes a map
    std::size_t next_member = 0;
    JsonArrayView::iterator arr_it, arr_end;
    bool first = true;
  };
  std::vector<Frame> stack;
  auto emit = [&](JsonView v) {
    switch (v.type()) {
      case simdjson::dom::element_type::OBJECT: {
        out += '{';
        stack.push_back({v, true, sorted_members(JsonObjectView(v)), 0, {}, {}});
        return;
      }
      case simdjson::dom::element_type::ARRAY: {
        const auto arr = JsonArrayView(v);
        out += '[';
        stack.push_back({v, false, {}, 0, arr.begin(), arr.end()});
        return;
      }
      case simdjson::dom::element_type::STRING:
        append_go_json_string(out, std::string_view(v));
        return;
      case simdjson::dom::element_type::INT64: out += std::to_string(int64_t(v)); return;
      case simdjson::dom::element_type::UINT64: out += std::to_string(uint64_t(v)); return;
      case simdjson::dom::element_type::DOUBLE: out += format_double(double(v)); return;
      case simdjson::dom::element_type::BOOL: out += bool(v) ? "true" : "false"; return;
      case simdjson::dom::element_type::NULL_VALUE: out += "null"; return;
    }
  };
  emit(root);
  while (!stack.empty() && out.size() <= budget) {
    Frame& top = stack.back();
    if (top.is_object) {
      if (top.next_member == top.members.size()) {
        out += '}';
        stack.pop_back();
        continue;
      }
      if (!top.first) out += ',';
      top.first = false;
      const auto [key, value] = top.members[top.next_member++];
      append_go_json_string(out, key);
      out += ':';
      emit(value);
    } else {
      if (top.arr_it == top.arr_end) {
        out += ']';
        stack.pop_back();
        continue;
      }
      if (!top.first) out += ',';
      top.first = false;
      const auto v = *top.arr_it;
      ++top.arr_it;
      emit(v);
    }
  }
}

// Cuts a printed value to kMaxValueBytes at a UTF-8 character boundary.
std::string elide(std::string printed) {
  if (printed.size() <= kMaxValueBytes) return printed;
  std::size_t cut = kMaxValueBytes - kEllipsis.size();
  while (cut > 0 && (static_cast<unsigned char>(printed[cut]) & 0xC0) == 0x80) --cut;
  printed.resize(cut);
  printed += kEllipsis;
  return printed;
}

}  // namespace

std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& rune) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    rune = b0;
    return 1;
  }
  std::size_t len = 0;
  char32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, rune = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, rune = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, rune = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    rune = (rune << 6) | (b & 0x3F);
  }
  if (rune < min || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) return 0;
  return len;
}

std::string go_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    char32_t r = 0;
    const std::size_t len = decode_utf8(s, i, r);
    if (len == 0) {
      out += "\\x";
      append_hex(out, static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (go_printable(r)) {
      out.append(s.substr(i, len));
    } else {
      append_go_escaped_rune(out, r);
    }
    i += len;
  }
  out += '"';
  return out;
}

Members sorted_members(JsonObjectView object) {
  Members members;
  members.reserve(object.size());
  for (const auto [key, value] : object) members.emplace_back(key, value);
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  const auto last = std::unique(members.begin(), members.end(),
                                [](const auto& x, const auto& y) { return x.first == y.first; });
  members.erase(last, members.end());
  return members;
}

std::string go_json(JsonView value) {
  std::string out;
  append_go_json(out, value, std::string::npos);
  return out;
}

BadValue BadValue::of(JsonView value) {
  switch (value.type()) {
    case simdjson::dom::element_type::STRING: return string(std::string_view(value));
    case simdjson::dom::element_type::OBJECT:
    case simdjson::dom::element_type::ARRAY: {
      // Print a little past the limit only: a 1 MB object is never printed whole.
      std::string out;
      append_go_json(out, value, kMaxValueBytes);
      return BadValue(elide(std::move(out)));
    }
    default: return BadValue(go_json(value));
  }
}

BadValue BadValue::of(const Json& value) {
  if (value.is_string()) return string(value.get_ref<const std::string&>());
  const auto view = ParsedView::of(value);
  return view.ok() ? of(view.value().root()) : null();
}

BadValue BadValue::string(std::string_view s) {
  // Elide the raw text before quoting so that an escape sequence is never cut in half.
  if (s.size() > kMaxValueBytes) {
    std::size_t cut = kMaxValueBytes - kEllipsis.size() - 2;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    std::string quoted = go_quote(s.substr(0, cut));
    quoted.insert(quoted.size() - 1, kEllipsis);
    return BadValue(std::move(quoted));
  }
  return BadValue(go_quote(s));
}

BadValue BadValue::integer(std::int64_t n) { return BadValue(std::to_string(n)); }
BadValue BadValue::boolean(bool b) { return BadValue(b ? "true" : "false"); }
BadValue BadValue::null() { return BadValue("null"); }
BadValue BadValue::omitted() { return BadValue("", true); }

}  // namespace jobset_webhook::field

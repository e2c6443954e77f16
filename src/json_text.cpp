#include "jobset_webhook/json_text.h"

#include <array>
#include <cstdint>

#include <simdjson.h>

namespace jobset_webhook {
namespace {

// The escape of one byte of valid UTF-8 text, or nullptr when it is written as is.
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

// Bytes that may need an escape, per kind: controls, quote and backslash always; <, >, & and
// 0xE2 (the first byte of U+2028 and U+2029) when HTML-safe. Everything else is copied in runs.
constexpr std::uint8_t kAlways = 1, kHtml = 2;
constexpr std::array<std::uint8_t, 256> kMayEscape = [] {
  std::array<std::uint8_t, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = kAlways;
  table['"'] = table['\\'] = kAlways;
  for (const unsigned char c : {'<', '>', '&', '\xE2'}) table[c] = kHtml;
  return table;
}();

}  // namespace

bool append_json_string(std::string& out, std::string_view s, JsonEscapes escapes) {
  const std::size_t start = out.size();
  const std::uint8_t wanted = escapes == JsonEscapes::kHtmlSafe ? (kAlways | kHtml) : kAlways;
  out += '"';
  unsigned char seen = 0;  // all bytes or-ed: ASCII text needs no UTF-8 check
  std::size_t plain_from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    seen |= c;
    if ((kMayEscape[c] & wanted) == 0) continue;
    const char* escape = escape_of(c);
    std::size_t consumed = 1;
    // U+2028 and U+2029 (E2 80 A8/A9): Go escapes them, as JavaScript cannot hold them raw.
    if (c == 0xE2 && i + 2 < s.size() && s[i + 1] == '\x80' &&
        (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
      escape = s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      consumed = 3;
    }
    if (escape == nullptr) continue;
    out.append(s, plain_from, i - plain_from);
    out += escape;
    i += consumed - 1;
    plain_from = i + 1;
  }
  if ((seen & 0x80) != 0 && !simdjson::validate_utf8(s.data(), s.size())) {
    out.resize(start);
    return false;
  }
  out.append(s, plain_from, s.size() - plain_from);
  out += '"';
  return true;
}

}  // namespace jobset_webhook

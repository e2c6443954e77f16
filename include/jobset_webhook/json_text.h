#pragma once

// Writing JSON text straight into a string, for the hot paths that cannot afford nlohmann's
// serializer per value (the admission response, the access log).

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace jobset_webhook {

enum class JsonEscapes {
  kStandard,  // as nlohmann's dump: quote, backslash, \b \t \n \f \r, other controls as \u00xx
  kHtmlSafe,  // also <, >, & and U+2028/U+2029, as Go's encoding/json writes them
};

// Appends s quoted and escaped. When s is not valid UTF-8, appends nothing and returns false: the
// caller falls back to a writer with replacement rules.
bool append_json_string(std::string& out, std::string_view s, JsonEscapes escapes);

// Appends n in decimal, as every JSON writer (nlohmann's, Go's) writes an integer.
template <std::integral Integer>
void append_json_integer(std::string& out, Integer n) {
  char digits[24];  // the 20 digits of 2^64 - 1, or a sign and 19
  out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
}

}  // namespace jobset_webhook

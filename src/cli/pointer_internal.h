#pragma once

// JSON pointers (RFC 6901), as the CLI keys the marks of a document.

#include <string>
#include <string_view>

namespace jobset_webhook::cli {

// "/" then the token with "~" and "/" escaped as "~0" and "~1".
inline void append_pointer_token(std::string& pointer, std::string_view token) {
  pointer += '/';
  for (const char c : token) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer += c;
    }
  }
}

}  // namespace jobset_webhook::cli

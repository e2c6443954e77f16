#include "jobset_webhook/json_pointer.h"

namespace jobset_webhook {
namespace {

void append_escaped(std::string& out, std::string_view token) {
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  append_escaped(out, token);
  return out;
}

void append_pointer_token(std::string& pointer, std::string_view token) {
  pointer += '/';
  append_escaped(pointer, token);
}

std::string json_pointer(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) append_pointer_token(out, t);
  return out;
}

}  // namespace jobset_webhook

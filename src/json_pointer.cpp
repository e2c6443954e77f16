#include "jobset_webhook/json_pointer.h"

#include <utility>

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

std::optional<std::vector<std::string>> pointer_tokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer.front() != '/') return std::nullopt;
  for (std::size_t start = 1;;) {
    const std::size_t end = pointer.find('/', start);
    const std::string_view raw =
        pointer.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token += raw[i];
        continue;
      }
      if (i + 1 == raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1')) return std::nullopt;
      token += raw[++i] == '0' ? '~' : '/';
    }
    tokens.push_back(std::move(token));
    if (end == std::string_view::npos) return tokens;
    start = end + 1;
  }
}

}  // namespace jobset_webhook

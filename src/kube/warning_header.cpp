#include "jobset_webhook/kube/warning_header.h"

#include <cctype>
#include <optional>

namespace jobset_webhook::kube {
namespace {

// A quoted string at the start of s, its escapes undone; s moves past it. nullopt when s does
// not start with one that ends.
std::optional<std::string> take_quoted(std::string_view& s) {
  if (s.empty() || s.front() != '"') return std::nullopt;
  std::string text;
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      text += s[++i];
    } else if (s[i] == '"') {
      s.remove_prefix(i + 1);
      return text;
    } else {
      text += s[i];
    }
  }
  return std::nullopt;
}

// The token before the next space; s moves past it and the space.
std::optional<std::string_view> take_word(std::string_view& s) {
  const auto space = s.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  const auto word = s.substr(0, space);
  s.remove_prefix(space + 1);
  return word;
}

void skip_spaces(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
}

}  // namespace

std::vector<std::string> parse_warning_header(std::string_view header) {
  std::vector<std::string> out;
  skip_spaces(header);
  while (!header.empty()) {
    const auto code = take_word(header);
    if (!code || code->size() != 3 || !std::isdigit(static_cast<unsigned char>((*code)[0])) ||
        !std::isdigit(static_cast<unsigned char>((*code)[1])) ||
        !std::isdigit(static_cast<unsigned char>((*code)[2]))) {
      break;
    }
    if (!take_word(header)) break;  // the agent
    auto text = take_quoted(header);
    if (!text) break;
    out.push_back(std::move(*text));
    skip_spaces(header);
    if (!header.empty() && header.front() == '"' && !take_quoted(header)) break;  // the date
    skip_spaces(header);
    if (header.empty()) break;
    if (header.front() != ',') break;
    header.remove_prefix(1);
    skip_spaces(header);
  }
  return out;
}

}  // namespace jobset_webhook::kube

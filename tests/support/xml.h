#pragma once

// Test helper: a strict little XML reader, enough to prove that a JUnit report is well-formed
// and to read it back. Elements, attributes, text, the five named entities, character references,
// the XML declaration; anything else (a raw '<' or '&', a control character, unbalanced tags) is a
// parse error.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jobset_webhook::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<XmlElement> children;
  std::string text;  // the character data directly inside, decoded

  std::vector<const XmlElement*> all(std::string_view child) const {
    std::vector<const XmlElement*> out;
    for (const auto& c : children) {
      if (c.name == child) out.push_back(&c);
    }
    return out;
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string_view text) : s_(text) {}

  // The root element, or nullopt with error() saying what is wrong.
  std::optional<XmlElement> parse() {
    if (s_.substr(0, 5) == "<?xml") {
      const auto end = s_.find("?>");
      if (end == std::string_view::npos) return fail("unterminated declaration");
      i_ = end + 2;
    }
    skip_space();
    auto root = element();
    if (!root) return std::nullopt;
    skip_space();
    if (i_ != s_.size()) return fail("content after the root element");
    return root;
  }
  const std::string& error() const { return error_; }

 private:
  std::nullopt_t fail(std::string message) {
    if (error_.empty()) error_ = message + " at byte " + std::to_string(i_);
    return std::nullopt;
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  std::string name() {
    const auto start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' ||
                              s_[i_] == '_' || s_[i_] == ':' || s_[i_] == '.')) {
      ++i_;
    }
    return std::string(s_.substr(start, i_ - start));
  }
  // Character data up to `stop`, entities decoded; nullopt on a raw '<' or '&' or a control char.
  std::optional<std::string> chars(char stop) {
    std::string out;
    while (i_ < s_.size() && s_[i_] != stop) {
      const char c = s_[i_];
      if (c == '<') return fail("raw '<'");
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\r' && c != '\t')
        return fail("control character");
      if (c != '&') {
        out += c;
        ++i_;
        continue;
      }
      const auto semi = s_.find(';', i_);
      if (semi == std::string_view::npos) return fail("unterminated entity");
      const auto entity = s_.substr(i_ + 1, semi - i_ - 1);
      static const std::map<std::string_view, char> kNamed = {
          {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
      if (const auto it = kNamed.find(entity); it != kNamed.end()) {
        out += it->second;
      } else if (entity.size() > 1 && entity[0] == '#' &&
                 entity.substr(1).find_first_not_of("0123456789") == std::string_view::npos) {
        const long code = std::stol(std::string(entity.substr(1)));
        if (code != 9 && code != 10 && code != 13 && code < 0x20)
          return fail("reference to a non-XML character");
        if (code >= 0x80) return fail("non-ASCII character reference (not used by the report)");
        out += static_cast<char>(code);
      } else {
        return fail("unknown entity");
      }
      i_ = semi + 1;
    }
    return out;
  }
  std::optional<XmlElement> element() {
    if (i_ >= s_.size() || s_[i_] != '<') return fail("expected '<'");
    ++i_;
    XmlElement e;
    e.name = name();
    if (e.name.empty()) return fail("empty element name");
    while (true) {
      skip_space();
      if (i_ >= s_.size()) return fail("unterminated start tag");
      if (s_.substr(i_, 2) == "/>") {
        i_ += 2;
        return e;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      const std::string attr = name();
      if (attr.empty() || i_ + 1 >= s_.size() || s_[i_] != '=' || s_[i_ + 1] != '"')
        return fail("bad attribute");
      i_ += 2;
      auto value = chars('"');
      if (!value || i_ >= s_.size()) return fail("unterminated attribute");
      ++i_;
      if (!e.attributes.emplace(attr, *value).second) return fail("repeated attribute");
    }
    while (true) {
      auto text = chars('<');
      if (!text) return std::nullopt;
      e.text += *text;
      if (i_ >= s_.size()) return fail("unterminated element " + e.name);
      if (s_.substr(i_, 2) == "</") {
        i_ += 2;
        if (name() != e.name || i_ >= s_.size() || s_[i_] != '>')
          return fail("mismatched end tag for " + e.name);
        ++i_;
        return e;
      }
      auto child = element();
      if (!child) return std::nullopt;
      e.children.push_back(std::move(*child));
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string error_;
};

}  // namespace jobset_webhook::testing

#include "names.h"

#include <initializer_list>

namespace jobset_webhook::validation {
namespace {

constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic "
    "character, and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kHttpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
constexpr std::size_t kMaxGeneratedNameLength = 63 - 5;
constexpr std::string_view kGeneratedSuffix = "xxxxx";

// apimachinery's RegexError: "msg (e.g. 'a',  or 'b', regex used for validation is 'fmt')". The
// double space before "or" is upstream's.
std::string regex_error(std::string_view msg, std::string_view fmt,
                        std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0)
    return out + " (regex used for validation is '" + std::string(fmt) + "')";
  out += " (e.g. ";
  bool first = true;
  for (const auto example : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'";
    out += example;
    out += "', ";
  }
  return out + "regex used for validation is '" + std::string(fmt) + "')";
}

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_alnum(char c) { return is_lower(c) || is_ascii_digit(c); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])? : an RFC 1123 label of any length.
bool matches_dns1123_label(std::string_view s) {
  if (s.empty() || !is_lower_alnum(s.front()) || !is_lower_alnum(s.back())) return false;
  for (const char c : s) {
    if (!is_lower_alnum(c) && c != '-') return false;
  }
  return true;
}

bool matches_dns1123_subdomain(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    if (!matches_dns1123_label(s.substr(
            start, dot == std::string_view::npos ? std::string_view::npos : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool matches_dns1035_label(std::string_view s) {
  return !s.empty() && is_lower(s.front()) && matches_dns1123_label(s);
}

bool matches_label_value(std::string_view s) {
  if (s.empty()) return true;
  if (!is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (const char c : s) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool matches_http_path(std::string_view s) {
  constexpr std::string_view kPunctuation = "/-._~%!$&'()*+,;=:";
  if (s.empty()) return false;
  for (const char c : s) {
    if (!is_alnum(c) && kPunctuation.find(c) == std::string_view::npos) return false;
  }
  return true;
}

}  // namespace

std::string max_len_error(std::size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::vector<std::string> is_dns1035_label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1035LabelMaxLength) errs.push_back(max_len_error(kDns1035LabelMaxLength));
  if (!matches_dns1035_label(value))
    errs.push_back(regex_error(kDns1035LabelErrMsg, kDns1035LabelFmt, {"my-name", "abc-123"}));
  return errs;
}

std::vector<std::string> is_dns1123_subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength)
    errs.push_back(max_len_error(kDns1123SubdomainMaxLength));
  if (!matches_dns1123_subdomain(value)) {
    errs.push_back(regex_error(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> is_label_value(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) {
    errs.push_back("must be no more than " + std::to_string(kLabelValueMaxLength) + " bytes");
  }
  if (!matches_label_value(value)) {
    errs.push_back(
        regex_error(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

field::ErrorList is_domain_prefixed_path(const field::Path& path, std::string_view value) {
  field::ErrorList errs;
  if (value.empty()) {
    errs.push_back(field::required(path, ""));
    return errs;
  }
  const std::size_t slash = value.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size()) {
    errs.push_back(field::invalid(path, field::BadValue::string(value),
                                  "must be a domain-prefixed path (such as \"acme.io/foo\")"));
    return errs;
  }
  const auto host = value.substr(0, slash);
  for (const auto& msg : is_dns1123_subdomain(host)) {
    errs.push_back(field::invalid(path, field::BadValue::string(host), msg));
  }
  const auto http_path = value.substr(slash + 1);
  if (!matches_http_path(http_path)) {
    errs.push_back(field::invalid(path, field::BadValue::string(http_path),
                                  regex_error("Invalid path", kHttpPathFmt, {})));
  }
  return errs;
}

std::vector<std::string> name_is_dns_subdomain(std::string_view name, bool prefix) {
  // apimachinery's maskTrailingDash, byte for byte: it replaces the last two bytes, not one.
  if (prefix && name.size() > 1 && name.back() == '-') {
    std::string masked(name.substr(0, name.size() - 2));
    masked += 'a';
    return is_dns1123_subdomain(masked);
  }
  return is_dns1123_subdomain(name);
}

std::string simulated_generated_name(std::string_view generate_name) {
  std::string name(generate_name.substr(0, kMaxGeneratedNameLength));
  name += kGeneratedSuffix;
  return name;
}

}  // namespace jobset_webhook::validation

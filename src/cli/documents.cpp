#include "jobset_webhook/cli/documents.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <unordered_set>

#include <yaml-cpp/yaml.h>

#include "jobset_webhook/field/value.h"

namespace jobset_webhook::cli {
namespace {

// yaml-cpp builds nodes recursively; past this depth a hostile document is refused before the
// conversion below can exhaust the stack.
constexpr int kMaxYamlDepth = 512;

// Without aliases a YAML text cannot hold more values than it has bytes (plus the root); aliases
// let a few hundred bytes expand to billions ("billion laughs"). What a text may expand to is
// its size plus this much, enough for the odd shared block of a real manifest.
constexpr std::size_t kAliasAllowance = 10000;

bool all_digits(std::string_view s, int base) {
  if (s.empty()) return false;
  for (const char c : s) {
    const bool ok = base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                               : c >= '0' && c < static_cast<char>('0' + base);
    if (!ok) return false;
  }
  return true;
}

// YAML 1.2 core schema ints: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+ (scanned, not matched with
// std::regex, whose backtracking recurses once per character and overflows the stack on a long
// scalar).
bool is_core_int(std::string_view s) {
  if (s.rfind("0o", 0) == 0) return all_digits(s.substr(2), 8);
  if (s.rfind("0x", 0) == 0) return all_digits(s.substr(2), 16);
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return all_digits(s, 10);
}

// Core schema floats: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_core_float(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// YAML 1.2 core schema, which is what Kubernetes' sigs.k8s.io/yaml (through JSON) resolves.
Json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  const char* const end = s.data() + s.size();
  if (is_core_int(s)) {
    std::int64_t n = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    int base = 10;
    if (s.rfind("0o", 0) == 0) base = 8, begin += 2;
    if (s.rfind("0x", 0) == 0) base = 16, begin += 2;
    const auto res = std::from_chars(begin, end, n, base);
    if (res.ec == std::errc() && res.ptr == end) return n;
    return s;  // out of int64 range: keep the text rather than lose digits
  }
  if (is_core_float(s)) {
    double d = 0;
    const auto res = std::from_chars(s.data() + (s[0] == '+' ? 1 : 0), end, d);
    if (res.ec == std::errc() && res.ptr == end) return d;
    return s;  // out of double range
  }
  return s;
}

std::string position(std::string_view source, const YAML::Mark& mark) {
  return std::string(source) + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// Text for a JSON string: YAML is Unicode, so bytes that are not UTF-8 are refused, as
// Kubernetes' YAML reader refuses them (yaml-cpp passes them through).
Result<std::string> utf8_text(const YAML::Node& node, std::string_view source) {
  const std::string& text = node.Scalar();
  if (!simdjson::validate_utf8(text.data(), text.size())) return Failure{400, position(source, node.Mark()) + ": not valid UTF-8"};
  return text;
}

class Converter {
 public:
  Converter(std::string_view source, std::size_t max_values) : source_(source), max_values_(max_values) {}

  Result<Json> convert(const YAML::Node& node, int depth) {
    if (depth > kMaxYamlDepth) {
      return Failure{400, std::string(source_) + ": document nested deeper than " + std::to_string(kMaxYamlDepth) + " levels"};
    }
    if (++values_ > max_values_) {
      return Failure{400, std::string(source_) + ": aliases expand the YAML to more than " + std::to_string(max_values_) + " values"};
    }
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return Json(nullptr);
      case YAML::NodeType::Scalar: {
        auto text = utf8_text(node, source_);
        if (!text.ok()) return text.failure();
        // A quoted scalar (tag "!") is always a string.
        if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return Json(std::move(text).value());
        return plain_scalar(text.value());
      }
      case YAML::NodeType::Sequence: {
        Json out = Json::array();
        for (const auto& item : node) {
          auto converted = convert(item, depth + 1);
          if (!converted.ok()) return converted;
          out.push_back(std::move(converted).value());
        }
        return out;
      }
      case YAML::NodeType::Map: return convert_map(node, depth);
    }
    return Json(nullptr);
  }

 private:
  Result<Json> convert_map(const YAML::Node& node, int depth) {
    Json out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    // Json's ordered map finds keys by a linear search: the set keeps a wide map linear.
    std::unordered_set<std::string> seen;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) return Failure{400, position(source_, kv.first.Mark()) + ": mapping keys must be scalars"};
      auto key = utf8_text(kv.first, source_);
      if (!key.ok()) return key.failure();
      // yaml-cpp does not implement YAML 1.1 merge keys, which Kubernetes' reader does: reading
      // one as a field named "<<" would silently change the manifest.
      if (key.value() == "<<" && kv.first.Tag() != "!") {
        return Failure{400, position(source_, kv.first.Mark()) + ": merge keys (<<) are not supported; write the fields out"};
      }
      if (!seen.insert(key.value()).second) {
        return Failure{400, position(source_, kv.first.Mark()) + ": duplicate key " + field::go_quote(key.value())};
      }
      auto converted = convert(kv.second, depth + 1);
      if (!converted.ok()) return converted;
      members.emplace_back(std::move(key).value(), std::move(converted).value());
    }
    return out;
  }

  std::string_view source_;
  std::size_t max_values_;
  std::size_t values_ = 0;
};

}  // namespace

Result<std::string> read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return Failure{400, path + ": " + std::strerror(errno)};
  std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return Failure{400, path + ": read error"};
  return content;
}

Result<std::vector<Json>> parse_yaml_documents(std::string_view text, std::string_view source) {
  std::vector<Json> out;
  try {
    Converter converter(source, text.size() + kAliasAllowance);
    for (const auto& doc : YAML::LoadAll(std::string(text))) {
      auto converted = converter.convert(doc, 0);
      if (!converted.ok()) return converted.failure();
      if (!converted.value().is_null()) out.push_back(std::move(converted).value());
    }
  } catch (const YAML::Exception& e) {
    return Failure{400, std::string(source) + ":" + std::to_string(e.mark.line + 1) + ":" +
                            std::to_string(e.mark.column + 1) + ": " + e.msg};
  } catch (const std::exception& e) {
    return Failure{400, std::string(source) + ": " + e.what()};
  }
  return out;
}

Result<Policy> load_policy_file(const std::string& path) {
  auto text = read_input(path);
  if (!text.ok()) return text.failure();
  auto docs = parse_yaml_documents(text.value(), path);
  if (!docs.ok()) return docs.failure();
  if (docs.value().size() > 1) return Failure{400, path + ": a policy file holds one document"};
  auto policy = parse_policy(docs.value().empty() ? Json(nullptr) : docs.value().front());
  if (!policy.ok()) return Failure{400, path + ": " + policy.failure().message};
  return policy;
}

}  // namespace jobset_webhook::cli

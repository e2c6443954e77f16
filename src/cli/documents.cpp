#include "jobset_webhook/cli/documents.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <unordered_set>

#include <yaml-cpp/yaml.h>

#include "cli/pointer_internal.h"
#include "jobset_webhook/field/value.h"

namespace jobset_webhook::cli {
namespace {

// yaml-cpp builds nodes recursively; past this depth a hostile document is refused before the
// conversion below can exhaust the stack.
constexpr int kMaxYamlDepth = 512;
// Aliases let a few lines expand to billions of values ("billion laughs"); a stream is refused
// once its conversion passes this many, which is far above any real set of manifests.
constexpr std::size_t kMaxYamlValues = 1'000'000;

bool digits(std::string_view s, bool (*is_digit)(char)) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }
bool decimal(char c) { return c >= '0' && c <= '9'; }
bool octal(char c) { return c >= '0' && c <= '7'; }
bool hex(char c) { return decimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+, matched by hand: std::regex costs more than the rest
// of the conversion together.
bool core_schema_int(std::string_view s) {
  if (s.rfind("0o", 0) == 0) return digits(s.substr(2), octal);
  if (s.rfind("0x", 0) == 0) return digits(s.substr(2), hex);
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return digits(s, decimal);
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool core_schema_float(std::string_view s) {
  std::size_t i = 0;
  const auto skip_digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && decimal(s[i])) ++i;
    return i > start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!skip_digits()) return false;
  } else {
    if (!skip_digits()) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      skip_digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!skip_digits()) return false;
  }
  return i == s.size();
}

// YAML 1.2 core schema, which is what Kubernetes' sigs.k8s.io/yaml (through JSON) resolves.
Json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (core_schema_int(s)) {
    std::int64_t n = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    int base = 10;
    if (s.rfind("0o", 0) == 0) base = 8, begin += 2;
    if (s.rfind("0x", 0) == 0) base = 16, begin += 2;
    const auto res = std::from_chars(begin, s.data() + s.size(), n, base);
    if (res.ec == std::errc() && res.ptr == s.data() + s.size()) return n;
    return s;  // out of int64 range: keep the text rather than lose digits
  }
  if (core_schema_float(s)) {
    try {
      return std::stod(s);
    } catch (const std::exception&) {
      return s;
    }
  }
  return s;
}

Mark mark_of(const YAML::Node& node) { return {node.Mark().line + 1, node.Mark().column + 1}; }

std::string at(std::string_view source, const YAML::Node& node) {
  const Mark m = mark_of(node);
  return std::string(source) + ":" + std::to_string(m.line) + ":" + std::to_string(m.column);
}

// YAML nodes to Json, recording where each value is written when marks is set.
class Converter {
 public:
  Converter(std::string_view source, std::map<std::string, Mark, std::less<>>* marks, std::size_t& values)
      : source_(source), marks_(marks), values_(values) {}

  Result<Json> convert(const YAML::Node& node, int depth) {
    if (depth > kMaxYamlDepth) {
      return Failure{400, std::string(source_) + ": document nested deeper than " + std::to_string(kMaxYamlDepth) + " levels"};
    }
    if (++values_ > kMaxYamlValues) {
      return Failure{400, at(source_, node) + ": more than " + std::to_string(kMaxYamlValues) +
                              " values (aliases expanding without end?)"};
    }
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return Json(nullptr);
      case YAML::NodeType::Scalar:
        // A quoted scalar (tag "!") is always a string.
        if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return Json(node.Scalar());
        return plain_scalar(node.Scalar());
      case YAML::NodeType::Sequence: {
        Json out = Json::array();
        std::size_t index = 0;
        for (const auto& item : node) {
          auto converted = member(std::to_string(index++), item, item, depth);
          if (!converted.ok()) return converted;
          out.push_back(std::move(converted).value());
        }
        return out;
      }
      case YAML::NodeType::Map: {
        Json out = Json::object();
        // ordered_json looks keys up linearly; appending to its vector after a hashed duplicate
        // check keeps a mapping with many keys linear too.
        auto& members = static_cast<Json::object_t::Container&>(out.get_ref<Json::object_t&>());
        std::unordered_set<std::string> seen;
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) return Failure{400, at(source_, kv.first) + ": mapping keys must be scalars"};
          const std::string& key = kv.first.Scalar();
          // Kubernetes' decoder refuses a repeated key; taking either copy would hide a change.
          if (!seen.insert(key).second) {
            return Failure{400, at(source_, kv.first) + ": key " + field::go_quote(key) + " is repeated in this mapping"};
          }
          auto converted = member(key, kv.first, kv.second, depth);
          if (!converted.ok()) return converted;
          members.emplace_back(key, std::move(converted).value());
        }
        return out;
      }
    }
    return Json(nullptr);
  }

 private:
  // Converts a member or element whose key (or the element itself) is at `marked`.
  Result<Json> member(std::string_view token, const YAML::Node& marked, const YAML::Node& value, int depth) {
    if (marks_ == nullptr) return convert(value, depth + 1);
    const std::size_t length = pointer_.size();
    append_pointer_token(pointer_, token);
    marks_->emplace(pointer_, mark_of(marked));
    auto converted = convert(value, depth + 1);
    pointer_.resize(length);
    return converted;
  }

  std::string_view source_;
  std::map<std::string, Mark, std::less<>>* marks_;
  std::size_t& values_;  // shared by the documents of one stream
  std::string pointer_;
};

Result<std::vector<LocatedDocument>> parse_stream(std::string_view text, std::string_view source, bool keep_marks) {
  std::vector<LocatedDocument> out;
  std::size_t values = 0;
  try {
    for (const auto& doc : YAML::LoadAll(std::string(text))) {
      LocatedDocument located;
      Converter converter(source, keep_marks ? &located.marks : nullptr, values);
      auto converted = converter.convert(doc, 0);
      if (!converted.ok()) return converted.failure();
      if (converted.value().is_null()) continue;
      located.value = std::move(converted).value();
      if (keep_marks) located.marks.emplace("", mark_of(doc));
      out.push_back(std::move(located));
    }
  } catch (const YAML::Exception& e) {
    return Failure{400, std::string(source) + ":" + std::to_string(e.mark.line + 1) + ":" +
                            std::to_string(e.mark.column + 1) + ": " + e.msg};
  } catch (const std::exception& e) {
    return Failure{400, std::string(source) + ": " + e.what()};
  }
  return out;
}

// A string is written plain only when reading it back gives the same string.
bool needs_quotes(const std::string& s) {
  const Json back = plain_scalar(s);
  return !back.is_string() || back.get_ref<const std::string&>() != s;
}

void emit(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, child] : value.items()) {
        out << YAML::Key;
        if (needs_quotes(key)) out << YAML::DoubleQuoted;
        out << key << YAML::Value;
        emit(out, child);
      }
      out << YAML::EndMap;
      return;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& child : value) emit(out, child);
      out << YAML::EndSeq;
      return;
    case Json::value_t::string: {
      const auto& s = value.get_ref<const std::string&>();
      if (needs_quotes(s)) out << YAML::DoubleQuoted;
      out << s;
      return;
    }
    case Json::value_t::boolean:
      out << value.get<bool>();
      return;
    case Json::value_t::null:
    case Json::value_t::discarded:
      out << YAML::Null;
      return;
    default:
      // Numbers as JSON spells them, so that 1.0 stays a float and large integers stay exact.
      out << value.dump();
      return;
  }
}

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
  auto located = parse_stream(text, source, false);
  if (!located.ok()) return located.failure();
  std::vector<Json> out;
  for (auto& doc : located.value()) out.push_back(std::move(doc.value));
  return out;
}

Result<std::vector<LocatedDocument>> parse_located_documents(std::string_view text, std::string_view source) {
  return parse_stream(text, source, true);
}

std::string to_yaml(const Json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
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

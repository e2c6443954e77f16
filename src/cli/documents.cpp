#include "jobset_webhook/cli/documents.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace jobset_webhook::cli {
namespace {

// yaml-cpp builds nodes recursively; past this depth a hostile document is refused before the
// conversion below can exhaust the stack.
constexpr int kMaxYamlDepth = 512;

// YAML 1.2 core schema, which is what Kubernetes' sigs.k8s.io/yaml (through JSON) resolves.
Json plain_scalar(const std::string& s) {
  static const std::regex kInt("[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (std::regex_match(s, kInt)) {
    std::int64_t n = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    int base = 10;
    if (s.rfind("0o", 0) == 0) base = 8, begin += 2;
    if (s.rfind("0x", 0) == 0) base = 16, begin += 2;
    const auto res = std::from_chars(begin, s.data() + s.size(), n, base);
    if (res.ec == std::errc() && res.ptr == s.data() + s.size()) return n;
    return s;  // out of int64 range: keep the text rather than lose digits
  }
  if (std::regex_match(s, kFloat)) {
    try {
      return std::stod(s);
    } catch (const std::exception&) {
      return s;
    }
  }
  return s;
}

Result<Json> to_json(const YAML::Node& node, int depth, std::string_view source) {
  if (depth > kMaxYamlDepth) {
    return Failure{400, std::string(source) + ": document nested deeper than " + std::to_string(kMaxYamlDepth) + " levels"};
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
      for (const auto& item : node) {
        auto converted = to_json(item, depth + 1, source);
        if (!converted.ok()) return converted;
        out.push_back(std::move(converted).value());
      }
      return out;
    }
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return Failure{400, std::string(source) + ":" + std::to_string(kv.first.Mark().line + 1) +
                                  ": mapping keys must be scalars"};
        }
        auto converted = to_json(kv.second, depth + 1, source);
        if (!converted.ok()) return converted;
        out[kv.first.Scalar()] = std::move(converted).value();
      }
      return out;
    }
  }
  return Json(nullptr);
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
  std::vector<Json> out;
  try {
    for (const auto& doc : YAML::LoadAll(std::string(text))) {
      auto converted = to_json(doc, 0, source);
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

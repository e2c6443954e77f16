#include "documents.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "yaml_reader_internal.h"
#include "yaml_scalar_internal.h"

namespace jobset_webhook::cli {
namespace {

// A string is written plain only when reading it back gives the same string.
bool needs_quotes(const std::string& s) {
  const Json back = plain_scalar(s);
  return !back.is_string() || back.get_ref<const std::string&>() != s;
}

void emit_yaml(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, child] : value.items()) {
        out << YAML::Key;
        if (needs_quotes(key)) out << YAML::DoubleQuoted;
        out << key << YAML::Value;
        emit_yaml(out, child);
      }
      out << YAML::EndMap;
      return;
    case Json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& child : value) emit_yaml(out, child);
      out << YAML::EndSeq;
      return;
    case Json::value_t::string: {
      const auto& s = value.get_ref<const std::string&>();
      if (needs_quotes(s)) out << YAML::DoubleQuoted;
      out << s;
      return;
    }
    case Json::value_t::boolean: out << value.get<bool>(); return;
    case Json::value_t::null:
    case Json::value_t::discarded: out << YAML::Null; return;
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
  if (!file) return invalid_argument(path + ": " + std::strerror(errno));
  std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return invalid_argument(path + ": read error");
  return content;
}

Result<std::vector<Json>> parse_yaml_documents(std::string_view text, std::string_view source) {
  auto located = read_yaml_stream(text, source, false);
  if (!located.ok()) return located.failure();
  std::vector<Json> documents;
  documents.reserve(located.value().size());
  for (auto& document : located.value()) documents.push_back(std::move(document.value));
  return documents;
}

Result<std::vector<LocatedDocument>> parse_located_documents(std::string_view text,
                                                             std::string_view source) {
  return read_yaml_stream(text, source, true);
}

std::string to_yaml(const Json& value) {
  YAML::Emitter out;
  emit_yaml(out, value);
  return std::string(out.c_str()) + "\n";
}

Result<Policy> load_policy_file(const std::string& path) {
  auto text = read_input(path);
  if (!text.ok()) return text.failure();
  auto docs = parse_yaml_documents(text.value(), path);
  if (!docs.ok()) return docs.failure();
  if (docs.value().size() > 1) return invalid_argument(path + ": a policy file holds one document");
  auto policy = parse_policy(docs.value().empty() ? Json(nullptr) : docs.value().front());
  if (!policy.ok()) return invalid_argument(path + ": " + policy.failure().message);
  return policy;
}

}  // namespace jobset_webhook::cli

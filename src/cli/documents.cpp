#include "jobset_webhook/cli/documents.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace jobset_webhook::cli {

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

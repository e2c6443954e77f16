// libFuzzer target: the CLI's YAML loader (cli::parse_yaml_documents), which reads every manifest
// and policy file a user hands the CLI. Checked on every input:
// - it returns documents or a Failure whose message starts with the source name; it never throws;
// - every document it returns is valid JSON text with valid UTF-8 (nlohmann's strict dump);
// - JSON is YAML: each document, dumped as JSON and loaded again, comes back equal. (Unless a key
//   is longer than 1024 characters as JSON: YAML limits implicit keys to that, and JSON's
//   {"key": value} is one. No Kubernetes key comes near: label keys have at most 317 bytes.)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "cli/documents.h"

namespace {

using jobset_webhook::Json;
using jobset_webhook::fuzz::require;
namespace cli = jobset_webhook::cli;

// YAML's limit on implicit keys, which JSON object keys are.
constexpr std::size_t kMaxImplicitKey = 1024;

bool has_long_key(const Json& value) {
  if (value.is_array()) return std::any_of(value.begin(), value.end(), has_long_key);
  if (!value.is_object()) return false;
  for (const auto& [key, member] : value.items()) {
    if (Json(key).dump().size() > kMaxImplicitKey || has_long_key(member)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto docs = cli::parse_yaml_documents(text, "fuzz.yaml");
  if (!docs.ok()) {
    require(docs.failure().message.rfind("fuzz.yaml", 0) == 0, "a failure names its source",
            docs.failure().message);
    return 0;
  }
  for (const auto& doc : docs.value()) {
    std::string dumped;
    try {
      dumped = doc.dump();
    } catch (const Json::exception& e) {
      jobset_webhook::fuzz::violated("a loaded document dumps as JSON", e.what());
    }
    if (has_long_key(doc)) continue;
    const auto again = cli::parse_yaml_documents(dumped, "again.json");
    require(again.ok(), "a loaded document, as JSON, loads again",
            dumped + "\n" + (again.ok() ? "" : again.failure().message));
    require(again.value().size() == 1 && again.value()[0] == doc,
            "a loaded document, as JSON, loads equal",
            dumped + "\n" + (again.value().empty() ? "(nothing)" : again.value()[0].dump()));
  }
  return 0;
}

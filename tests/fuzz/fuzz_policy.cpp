// libFuzzer target: the policy-file loader: YAML (cli::parse_yaml_documents) then parse_policy,
// as `--config FILE` runs them. Checked on every input:
// - neither step throws; a refused policy says why, starting with "policy: ";
// - an accepted policy, written back as a policy document, reads back the same.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "cli/documents.h"
#include "jobset_webhook/policy.h"

namespace {

using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::fuzz::require;
namespace cli = jobset_webhook::cli;

void check(const Json& document) {
  const auto policy = jobset_webhook::parse_policy(document);
  if (!policy.ok()) {
    require(policy.failure().message.rfind("policy: ", 0) == 0, "a refused policy says why",
            policy.failure().message);
    return;
  }
  const Policy& p = policy.value();
  const Json written = {
      {"elastic", {{"replicas", p.elastic.replicas}, {"parallelism", p.elastic.parallelism}}}};
  const auto again = jobset_webhook::parse_policy(written);
  require(again.ok() && again.value().elastic.replicas == p.elastic.replicas &&
              again.value().elastic.parallelism == p.elastic.parallelism,
          "an accepted policy reads back the same", written.dump());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto docs = cli::parse_yaml_documents(text, "policy.yaml");
  if (!docs.ok()) return 0;
  for (const auto& doc : docs.value()) check(doc);
  return 0;
}

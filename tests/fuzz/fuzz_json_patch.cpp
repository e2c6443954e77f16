// libFuzzer target: nlohmann's JSON Patch applier (Json::patch, RFC 6902), which the tests use to
// apply the patches the mutating webhook answers with. The input is a JSON document, a NUL byte,
// then a JSON Patch. Checked on every input:
// - parsing and patching either succeed or throw one of nlohmann's documented exceptions
//   (json::exception: parse_error, type_error, out_of_range, other_error, invalid_iterator);
//   anything else (a crash, another exception) fails;
// - a patched document dumps as JSON, and the patch Json::diff computes from the document to the
//   result turns the document into the result.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "jobset_webhook/json.h"

namespace {

using jobset_webhook::Json;
using jobset_webhook::fuzz::require;
using jobset_webhook::fuzz::shallow;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  if (nul == std::string_view::npos || !shallow(input)) return 0;
  Json document, patch;
  try {
    document = Json::parse(input.substr(0, nul));
    patch = Json::parse(input.substr(nul + 1));
  } catch (const Json::exception&) {
    return 0;  // parse_error, or out_of_range 406 for a number beyond double ("1e999")
  }
  Json result;
  try {
    result = document.patch(patch);
  } catch (const Json::exception&) {
    return 0;
  }
  std::string dumped;
  try {
    dumped = result.dump();
  } catch (const Json::exception& e) {
    // Only invalid UTF-8 can make dump throw, and parse refuses it.
    jobset_webhook::fuzz::violated("a patched document dumps as JSON", e.what());
  }
  const Json diff = Json::diff(document, result);
  Json round_trip;
  try {
    round_trip = document.patch(diff);
  } catch (const Json::exception& e) {
    jobset_webhook::fuzz::violated("Json::diff produces a patch that applies",
                                   std::string(e.what()) + "\n" + diff.dump());
  }
  require(round_trip == result, "Json::diff's patch turns the document into the result",
          diff.dump());
  return 0;
}

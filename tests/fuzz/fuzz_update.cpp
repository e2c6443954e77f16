// libFuzzer target: the UPDATE diff. The input is a JobSet as JSON, then a NUL byte, then a
// "mutation program": bytes that pick paths in the JobSet and edit them (replace a value, delete
// or add a member, swap or duplicate list entries, rescale a replicatedJob). The old JobSet and
// its mutated copy go through validation::validate_update. Checked on every input:
// - a JobSet compared with itself (old with old, new with new) has no errors;
// - when every edit was a replicas change to a value in [0, 2^31-1], there are no errors
//   (default policy);
// - the errors, as printed, do not change when both objects are re-serialized with their keys
//   in reverse order, unless an object holds a key twice (which the admission layer refuses:
//   then order decides which value counts). The edits cannot add a key twice, but two keys of
//   invalid UTF-8 become the same key when the new object is written with U+FFFD for each;
// - the warnings stay within kMaxWarningsBytes (and a little for the summary line).

// clang finds it in its resource directory; gcc through tests/fuzz/meson.build.
#if __has_include(<fuzzer/FuzzedDataProvider.h>)
#include <fuzzer/FuzzedDataProvider.h>
#else
#include <FuzzedDataProvider.h>
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "jobset_webhook/validation/scale_warnings.h"
#include "jobset_webhook/validation/update.h"

namespace {

using jobset_webhook::Json;
using jobset_webhook::JsonView;
using jobset_webhook::Policy;
using jobset_webhook::fuzz::require;
namespace v = jobset_webhook::validation;

constexpr int kMaxEdits = 8;

// js.spec when it is an object (operator[] would add it, or throw on a string).
Json* spec_of(Json& js) {
  if (!js.is_object() || !js.contains("spec") || !js["spec"].is_object()) return nullptr;
  return &js["spec"];
}

// A member or element of value chosen by the fuzz bytes, descending while they say so.
Json* pick(Json& value, FuzzedDataProvider& fdp) {
  Json* node = &value;
  while ((node->is_object() || node->is_array()) && !node->empty() && fdp.ConsumeBool()) {
    const auto i = fdp.ConsumeIntegralInRange<std::size_t>(0, node->size() - 1);
    node = node->is_object() ? &std::next(node->begin(), static_cast<std::ptrdiff_t>(i)).value()
                             : &(*node)[i];
  }
  return node;
}

Json some_value(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange(0, 15)) {
    case 0: return 0;
    case 1: return -1;
    case 2: return 2147483648LL;
    case 3: return 1.5;
    case 4: return "";
    case 5: return "1000m";
    case 6: return "1";
    case 7: return true;
    case 8: return nullptr;
    case 9: return Json::object();
    case 10: return Json::array();
    case 11: return "2024-01-01T01:00:00+01:00";
    case 12: return 18446744073709551615ULL;
    case 13: return Json{{"name", fdp.ConsumeRandomLengthString(8)}};
    default: return fdp.ConsumeRandomLengthString(16);
  }
}

// Applies one edit; returns true when it only changed a replicatedJob's replicas to a valid value.
bool edit(Json& js, FuzzedDataProvider& fdp) {
  const int op = fdp.ConsumeIntegralInRange(0, 6);
  if (op == 0) {
    Json* spec = spec_of(js);
    if (spec == nullptr || !spec->contains("replicatedJobs")) return true;
    Json* rjobs = &(*spec)["replicatedJobs"];
    if (!rjobs->is_array() || rjobs->empty()) return true;
    Json& rj = (*rjobs)[fdp.ConsumeIntegralInRange<std::size_t>(0, rjobs->size() - 1)];
    if (rj.is_object()) rj["replicas"] = fdp.ConsumeIntegralInRange<int64_t>(0, 2147483647);
    return true;
  }
  Json& target = *pick(js, fdp);
  switch (op) {
    case 1: target = some_value(fdp); break;
    case 2:
      if (target.is_object() && !target.empty()) {
        target.erase(std::next(target.begin(),
                               fdp.ConsumeIntegralInRange<std::ptrdiff_t>(0, target.size() - 1)));
      } else if (target.is_array() && !target.empty()) {
        target.erase(fdp.ConsumeIntegralInRange<std::size_t>(0, target.size() - 1));
      }
      break;
    case 3:
      if (target.is_object()) target[fdp.ConsumeRandomLengthString(12)] = some_value(fdp);
      if (target.is_array()) target.push_back(some_value(fdp));
      break;
    case 4:
      if (target.is_array() && target.size() > 1) {
        std::swap(target[fdp.ConsumeIntegralInRange<std::size_t>(0, target.size() - 1)],
                  target[fdp.ConsumeIntegralInRange<std::size_t>(0, target.size() - 1)]);
      }
      break;
    case 5:
      if (target.is_array() && !target.empty()) {
        target.push_back(target[fdp.ConsumeIntegralInRange<std::size_t>(0, target.size() - 1)]);
      }
      break;
    default:
      if (Json* spec = spec_of(js)) (*spec)["suspend"] = fdp.ConsumeBool();
      break;
  }
  return false;
}

struct Parsed {
  simdjson::dom::parser parser;
  JsonView root;
  explicit Parsed(const std::string& text) {
    require(parser.parse(text).get(root) == simdjson::SUCCESS, "re-serialized JSON parses", text);
  }
};

std::string printed(const v::UpdateFindings& f) {
  std::string out;
  for (const auto& e : f.errors) out += e.to_string() + "\n";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  const std::string_view old_text = input.substr(0, nul);
  FuzzedDataProvider fdp(data + old_text.size(), size - old_text.size());

  simdjson::dom::parser parser;
  JsonView old_view;
  if (parser.parse(old_text.data(), old_text.size()).get(old_view) != simdjson::SUCCESS) return 0;
  std::string old_forward, old_reversed;
  if (!jobset_webhook::fuzz::write_json(old_forward, old_view, false))
    return 0;  // refused upstream of the diff
  jobset_webhook::fuzz::write_json(old_reversed, old_view, true);

  Json new_js = jobset_webhook::fuzz::to_json(old_view);
  bool replicas_only = true;
  for (int i = 0; i < kMaxEdits && fdp.remaining_bytes() > 0; ++i)
    replicas_only &= edit(new_js, fdp);
  // Fuzz strings may hold invalid UTF-8, which the admission layer's parser refuses anyway.
  const std::string new_text = new_js.dump(-1, ' ', false, Json::error_handler_t::replace);
  const Parsed new_parsed(new_text);
  std::string new_reversed;
  const bool new_keys_unique =
      jobset_webhook::fuzz::write_json(new_reversed, new_parsed.root, true);

  const Policy policy;
  require(v::validate_update(old_view, old_view, policy).errors.empty(),
          "old compared with itself is allowed", old_text);
  require(v::validate_update(new_parsed.root, new_parsed.root, policy).errors.empty(),
          "new compared with itself is allowed", new_text);
  const auto findings = v::validate_update(old_view, new_parsed.root, policy);
  if (replicas_only) {
    // Allowed, unless the scale itself would break the JobSet (a create rule that reads
    // replicas, or the status the old object holds): then refused at a replicas, nowhere else.
    for (const auto& e : findings.errors) {
      const std::string& field = e.field;
      require(field.rfind("spec.replicatedJobs[", 0) == 0 && field.size() > 9 &&
                  field.compare(field.size() - 9, 9, ".replicas") == 0,
              "a replicas-only change is allowed, or refused at replicas only",
              printed(findings) + new_text);
    }
  }
  std::size_t warning_bytes = 0;
  for (const auto& w : findings.warnings) warning_bytes += w.text.size();
  require(warning_bytes <= v::kMaxWarningsBytes, "warnings stay within kMaxWarningsBytes");

  if (new_keys_unique) {
    const Parsed old_rev(old_reversed), new_rev(new_reversed);
    const auto reordered = v::validate_update(old_rev.root, new_rev.root, policy);
    require(printed(reordered) == printed(findings), "errors do not depend on object key order",
            printed(findings) + "---\n" + printed(reordered));
  }

  Policy elastic;
  elastic.elastic.parallelism = true;
  elastic.elastic.replicas = fdp.ConsumeBool();
  (void)v::validate_update(old_view, new_parsed.root, elastic);
  return 0;
}

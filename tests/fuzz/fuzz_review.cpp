// libFuzzer target: AdmissionReview bytes -> admission::handle_review -> response bytes, the path
// every request of `serve` and `review` takes. Beyond "no crash, no leak, no UB", it checks:
// - a body simdjson cannot parse is a Failure (kInvalidArgument); anything else gets a response
//   that is valid UTF-8 JSON, an AdmissionReview, and echoes request.uid;
// - a denial carries a message, and a 422 denial at least one cause;
// - the request with oldObject := object (a JobSet compared with itself) is never denied with
//   422, nor is it when only replicatedJobs[*].replicas differ (default policy);
// - the scaler's hook answers the same bytes with the same checks (a JobSet, or anything else that
//   is not a ReplicatedJobScaler, is a 400 there, never a crash or an allow);
// - the response bytes do not change when every object of the request is re-serialized with its
//   keys in reverse order, or in the input order without whitespace.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "jobset_webhook/admission/review.h"

namespace {

using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::JsonView;
using jobset_webhook::Policy;
using jobset_webhook::StatusCode;
using jobset_webhook::admission::handle_review;
using jobset_webhook::fuzz::require;
using simdjson::dom::element_type;

std::string_view string_at(JsonView v, std::string_view key) {
  std::string_view s;
  if (v.type() != element_type::OBJECT || v.at_key(key).get(s) != simdjson::SUCCESS) return {};
  return s;
}

// Checks one response and returns its status code (200 when allowed).
int64_t check_response(const std::string& response, std::string_view request_uid,
                       std::string_view body) {
  simdjson::dom::parser parser;
  JsonView root;
  require(parser.parse(response).get(root) == simdjson::SUCCESS, "the response is valid UTF-8 JSON",
          response);
  require(string_at(root, "kind") == "AdmissionReview", "the response is an AdmissionReview",
          response);
  JsonView r;
  require(root.at_key("response").get(r) == simdjson::SUCCESS, "the response has a response",
          response);
  require(string_at(r, "uid") == request_uid, "the response echoes the request uid", body);
  bool allowed = false;
  require(r.at_key("allowed").get(allowed) == simdjson::SUCCESS, "response.allowed is a bool",
          response);
  int64_t code = 0;
  require(r.at_key("status").at_key("code").get(code) == simdjson::SUCCESS, "status.code is set",
          response);
  if (allowed) {
    require(code == 200, "an allowed response has code 200", response);
    return code;
  }
  require(!string_at(r["status"], "message").empty(), "a denial has a message", response);
  require(code == 400 || code == 422, "a denial is 400 or 422", response);
  if (code == 422) {
    simdjson::dom::array causes;
    require(
        r.at_key("status").at_key("details").at_key("causes").get(causes) == simdjson::SUCCESS &&
            causes.size() > 0,
        "a 422 denial has at least one cause", response);
    for (const auto cause : causes) {
      require(!string_at(cause, "message").empty(), "every cause has a message", response);
      require(!string_at(cause, "field").empty(), "every cause names a field", response);
    }
  }
  return code;
}

// True when every cause of a denial is at spec.replicatedJobs[i].replicas.
bool every_cause_at_replicas(const std::string& response) {
  simdjson::dom::parser parser;
  simdjson::dom::array causes;
  JsonView root;
  if (parser.parse(response).get(root) != simdjson::SUCCESS ||
      root["response"]["status"]["details"]["causes"].get(causes) != simdjson::SUCCESS) {
    return false;
  }
  static constexpr std::string_view kPrefix = "spec.replicatedJobs[";
  static constexpr std::string_view kSuffix = "].replicas";
  for (const auto cause : causes) {
    const std::string_view field = string_at(cause, "field");
    if (field.size() <= kPrefix.size() + kSuffix.size() ||
        field.substr(0, kPrefix.size()) != kPrefix ||
        field.substr(field.size() - kSuffix.size()) != kSuffix) {
      return false;
    }
    const auto index = field.substr(kPrefix.size(), field.size() - kPrefix.size() - kSuffix.size());
    if (index.find_first_not_of("0123456789") != std::string_view::npos) return false;
  }
  return true;
}

std::string respond(std::string_view body, const Policy& policy, Hook hook) {
  const auto r = handle_review(body, policy, hook);
  require(r.ok(), "a body that simdjson parses gets a response", body);
  return r.value();
}

// The request, as nlohmann JSON, with oldObject := object and, when scale is set, every
// replicatedJob's replicas changed in object only.
std::string self_update(const Json& review, bool scale, std::size_t seed) {
  Json copy = review;
  Json& request = copy["request"];
  request["operation"] = "UPDATE";
  request["oldObject"] = request["object"];
  Json& object = request["object"];
  if (scale && object.is_object() && object.contains("spec") && object["spec"].is_object() &&
      object["spec"].contains("replicatedJobs")) {
    Json& rjobs = object["spec"]["replicatedJobs"];
    static constexpr int64_t kReplicas[] = {0, 1, 2, 7, 1000, 2147483647};
    for (std::size_t i = 0; rjobs.is_array() && i < rjobs.size(); ++i) {
      if (rjobs[i].is_object()) rjobs[i]["replicas"] = kReplicas[(seed + i) % std::size(kReplicas)];
    }
  }
  return copy.dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  simdjson::dom::parser parser;
  JsonView root;
  if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
    const auto r = handle_review(body, Policy{}, Hook::kValidating);
    require(
        !r.ok() && r.failure().code == StatusCode::kInvalidArgument && !r.failure().message.empty(),
        "a body that is not JSON is an invalid argument", body);
    return 0;
  }
  JsonView request;
  const bool has_request = root.type() == element_type::OBJECT &&
                           root.at_key("request").get(request) == simdjson::SUCCESS;
  const std::string_view uid = has_request ? string_at(request, "uid") : "";

  Policy elastic_parallelism;
  elastic_parallelism.elastic.parallelism = true;
  const std::string response = respond(body, Policy{}, Hook::kValidating);
  check_response(response, uid, body);
  check_response(respond(body, elastic_parallelism, Hook::kValidating), uid, body);
  check_response(respond(body, Policy{}, Hook::kMutating), uid, body);
  const std::string scaler_response = respond(body, Policy{}, Hook::kValidatingScaler);
  check_response(scaler_response, uid, body);

  std::string forward, reversed;
  const bool unique_keys = jobset_webhook::fuzz::write_json(forward, root, false);
  jobset_webhook::fuzz::write_json(reversed, root, true);
  if (!unique_keys) return 0;  // refused with 400; which duplicate is named depends on order
  require(respond(forward, Policy{}, Hook::kValidating) == response,
          "the response does not depend on whitespace or number spelling", body);
  require(respond(reversed, Policy{}, Hook::kValidating) == response,
          "the response does not depend on object key order", body);
  require(respond(reversed, Policy{}, Hook::kValidatingScaler) == scaler_response,
          "the scaler hook's response does not depend on object key order", body);

  if (!has_request || request.type() != element_type::OBJECT ||
      request["object"].error() != simdjson::SUCCESS) {
    return 0;
  }
  const Json review = jobset_webhook::fuzz::to_json(root);
  const std::string same = self_update(review, false, size);
  require(check_response(respond(same, Policy{}, Hook::kValidating), uid, same) != 422,
          "a JobSet compared with itself is allowed", same);
  // A replicas-only change is allowed under the default policy, unless the scale itself would
  // break the JobSet (a create rule that reads replicas, or the status the old object holds):
  // then it is refused at the replicas that changed, and nowhere else.
  const std::string scaled = self_update(review, true, size);
  const std::string scaled_response = respond(scaled, Policy{}, Hook::kValidating);
  require(check_response(scaled_response, uid, scaled) != 422 ||
              every_cause_at_replicas(scaled_response),
          "a replicas-only change is allowed, or refused at replicas only", scaled);
  return 0;
}

#include "jobset_webhook/admission/review.h"

#include <optional>

#include "duplicate_keys.h"
#include "go_json.h"
#include "jobset_webhook/base64.h"
#include "parser_pool.h"

namespace jobset_webhook::admission {
namespace {

using simdjson::dom::element_type;

constexpr std::string_view kApiVersionV1 = "admission.k8s.io/v1";
constexpr std::string_view kApiVersionV1beta1 = "admission.k8s.io/v1beta1";
// A denial lists at most this many causes, so that a JobSet with thousands of changed fields
// cannot produce a response the API server refuses.
constexpr std::size_t kMaxCauses = 100;

std::optional<JsonView> field_of(JsonView object, std::string_view key) {
  JsonView value;
  if (object.type() != element_type::OBJECT || object.at_key(key).get(value) != simdjson::SUCCESS ||
      value.type() == element_type::NULL_VALUE) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::string_view> string_field(JsonView object, std::string_view key) {
  const auto v = field_of(object, key);
  if (!v || v->type() != element_type::STRING) return std::nullopt;
  return std::string_view(*v);
}

// A review's status.code when it is allowed, and upstream's for a denial (apierrors.NewInvalid:
// 422 Unprocessable Entity). These are the answer's, not failures: a Failure's HTTP status comes
// from http_status (status.h).
constexpr int kAllowedCode = 200;
constexpr int kInvalidCode = 422;

// What the response needs before the request is known to be usable.
struct Envelope {
  std::string api_version{kApiVersionV1};
  std::string uid;
  ReviewSummary* summary = nullptr;  // receives allowed and code of the response written
};

// An empty object with room for n members: ordered_json keeps members in a vector, which would
// otherwise grow (and move them) one step at a time.
Json object_for(std::size_t n) {
  Json object = Json::object();
  object.get_ref<Json::object_t&>().reserve(n);
  return object;
}

Json review_response(const Envelope& env, Json response) {
  Json review = object_for(3);
  review["kind"] = "AdmissionReview";
  review["apiVersion"] = env.api_version;
  review["response"] = std::move(response);
  return review;
}

// Responses are built member by member rather than from initializer lists: nlohmann builds each
// {"key", value} pair of a list as an array first and copies it, which cost as much as the rest
// of a small review's answer.
Json status_of(int code, std::optional<std::string_view> message = std::nullopt) {
  Json status = object_for(3);
  status["metadata"] = Json::object();
  if (message) status["message"] = *message;
  status["code"] = code;
  return status;
}

// JSON that is not a usable AdmissionReview: invalid argument, in the review's status.code.
std::string bad_request(const Envelope& env, std::string_view message) {
  env.summary->allowed = false;
  env.summary->code = http_status(StatusCode::kInvalidArgument);
  Json response = object_for(3);
  response["uid"] = env.uid;
  response["allowed"] = false;
  response["status"] = status_of(env.summary->code, message);
  return go_json_dump(review_response(env, std::move(response)));
}

std::string decision_response(const Envelope& env, std::string_view name, const Decision& decision,
                              Hook hook) {
  env.summary->allowed = decision.allowed;
  env.summary->code = decision.allowed ? kAllowedCode : kInvalidCode;
  if (!decision.allowed) {
    for (const auto& e : field::deduplicated(decision.errors))
      env.summary->denied_fields.push_back(e.field);
  }
  Json response = object_for(6);
  response["uid"] = env.uid;
  response["allowed"] = decision.allowed;
  response["status"] = decision.allowed
                           ? status_of(kAllowedCode)
                           : rejection_status(name, decision.errors, admitted_kind(hook));
  if (hook == Hook::kMutating && decision.allowed && !decision.patch.empty()) {
    response["patch"] = base64_encode(go_json_dump(decision.patch));
    response["patchType"] = "JSONPatch";
  }
  if (!decision.warnings.empty()) response["warnings"] = field::texts(decision.warnings);
  return go_json_dump(review_response(env, std::move(response)));
}

std::optional<Operation> operation_of(std::string_view op) {
  if (op == "CREATE") return Operation::kCreate;
  if (op == "UPDATE") return Operation::kUpdate;
  if (op == "DELETE") return Operation::kDelete;
  if (op == "CONNECT") return Operation::kConnect;
  return std::nullopt;
}

// Checks that the request is about the kind the hook admits (a jobset.x-k8s.io/v1alpha2 JobSet,
// or a scaler): by request.kind, or by the object's own apiVersion and kind when request.kind is
// absent. Empty when it is.
std::string wrong_kind(JsonView request, JsonView object, const AdmittedKind& want) {
  std::string group, version, kind;
  if (const auto k = field_of(request, "kind")) {
    group = string_field(*k, "group").value_or("");
    version = string_field(*k, "version").value_or("");
    kind = string_field(*k, "kind").value_or("");
  } else {
    const std::string api_version(string_field(object, "apiVersion").value_or(""));
    const auto slash = api_version.find('/');
    group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    kind = string_field(object, "kind").value_or("");
  }
  if (group == want.group && version == want.version && kind == want.kind) return {};
  return "this webhook admits only " + std::string(want.group) + "/" + std::string(want.version) +
         " " + std::string(want.kind) + " objects, got " +
         (group.empty() ? std::string() : group + "/") + version + " " +
         (kind.empty() ? "(no kind)" : kind);
}

// The shape the rules need before they read the object: a JobSet's replicatedJobs a list; any
// kind's object and spec objects.
std::optional<std::string> not_usable(std::string_view which, std::optional<JsonView> object,
                                      Hook hook) {
  if (!object) return "request." + std::string(which) + " is missing";
  if (object->type() != element_type::OBJECT)
    return "request." + std::string(which) + " must be an object";
  const auto spec = field_of(*object, "spec");
  if (spec && spec->type() != element_type::OBJECT)
    return "request." + std::string(which) + ".spec must be an object";
  if (hook == Hook::kValidatingScaler) return std::nullopt;
  const auto rjobs = spec ? field_of(*spec, "replicatedJobs") : std::nullopt;
  if (rjobs && rjobs->type() != element_type::ARRAY) {
    return "request." + std::string(which) + ".spec.replicatedJobs must be a list";
  }
  return std::nullopt;
}

// The request's identity as the access log shows it, read before the request is judged usable so
// that a refused request is logged with whatever it carried.
void summarize(JsonView root, ReviewSummary& summary) {
  const auto request = field_of(root, "request");
  if (!request) return;
  summary.uid = string_field(*request, "uid").value_or("");
  summary.operation = string_field(*request, "operation").value_or("");
  summary.ns = string_field(*request, "namespace").value_or("");
  summary.name = string_field(*request, "name").value_or("");
  if (summary.name.empty()) {
    const auto object = field_of(*request, "object");
    const auto metadata = object ? field_of(*object, "metadata") : std::nullopt;
    if (metadata) summary.name = string_field(*metadata, "name").value_or("");
  }
  const auto dry_run = field_of(*request, "dryRun");
  summary.dry_run = dry_run && dry_run->type() == element_type::BOOL && bool(*dry_run);
}

std::string respond(const simdjson::dom::document& document, const Policy& policy, Hook hook,
                    ReviewSummary& summary) {
  const JsonView root = document.root();
  summarize(root, summary);
  Envelope env;
  env.summary = &summary;
  if (root.type() != element_type::OBJECT)
    return bad_request(env, "the body must be a JSON object (an AdmissionReview)");
  const auto api_version = string_field(root, "apiVersion");
  if (api_version == kApiVersionV1beta1) env.api_version = kApiVersionV1beta1;
  const auto request = field_of(root, "request");
  if (request && request->type() == element_type::OBJECT)
    env.uid = string_field(*request, "uid").value_or("");

  if (const auto key = duplicate_key(document)) {
    return bad_request(
        env, "the request holds the JSON key " + field::go_quote(*key) +
                 " twice in one object; refused because decoders disagree on which one counts");
  }
  if (string_field(root, "kind") != "AdmissionReview" ||
      (api_version != kApiVersionV1 && api_version != kApiVersionV1beta1)) {
    return bad_request(env,
                       "not an AdmissionReview: expected kind AdmissionReview and apiVersion "
                       "admission.k8s.io/v1 or v1beta1");
  }
  if (!request || request->type() != element_type::OBJECT)
    return bad_request(env, "AdmissionReview has no request");
  if (env.uid.empty()) return bad_request(env, "request.uid is missing");
  const auto op_text = string_field(*request, "operation");
  const auto operation = op_text ? operation_of(*op_text) : std::nullopt;
  if (!operation)
    return bad_request(env, "request.operation must be one of CREATE, UPDATE, DELETE, CONNECT");
  if (*operation == Operation::kDelete || *operation == Operation::kConnect) {
    return decision_response(env, "", Decision{}, hook);
  }

  const auto object = field_of(*request, "object");
  if (const auto problem = not_usable("object", object, hook)) return bad_request(env, *problem);
  if (const auto problem = wrong_kind(*request, *object, admitted_kind(hook)); !problem.empty())
    return bad_request(env, problem);
  AdmissionRequest decoded;
  decoded.hook = hook;
  decoded.operation = *operation;
  decoded.object = *object;
  if (*operation == Operation::kUpdate) {
    const auto old_object = field_of(*request, "oldObject");
    if (!old_object) return bad_request(env, "UPDATE request has no oldObject");
    if (const auto problem = not_usable("oldObject", old_object, hook))
      return bad_request(env, *problem);
    decoded.old_object = *old_object;
  }
  const auto metadata = field_of(*object, "metadata");
  const auto name = metadata ? string_field(*metadata, "name") : std::nullopt;
  decoded.name = std::string(name ? *name : string_field(*request, "name").value_or(""));
  return decision_response(env, decoded.name, decide(decoded, policy), hook);
}

}  // namespace

std::string rejection_message(std::string_view name, const field::ErrorList& errors,
                              const AdmittedKind& kind) {
  std::string message = std::string(kind.kind) + "." + std::string(kind.group) + " " +
                        field::go_quote(name) + " is invalid";
  if (!errors.empty()) message += ": " + field::to_string(errors);
  return message;
}

Json rejection_status(std::string_view name, const field::ErrorList& errors,
                      const AdmittedKind& kind) {
  Json causes = Json::array();
  for (std::size_t i = 0; i < errors.size() && i < kMaxCauses; ++i) {
    Json cause = object_for(3);
    cause["reason"] = field::cause_reason(errors[i].type);
    cause["message"] = errors[i].body();
    cause["field"] = errors[i].field;
    causes.push_back(std::move(cause));
  }
  Json details = object_for(4);
  details["name"] = name;
  details["group"] = kind.group;
  details["kind"] = kind.kind;
  details["causes"] = std::move(causes);
  Json status = object_for(6);
  status["metadata"] = Json::object();
  status["status"] = "Failure";
  status["message"] = rejection_message(name, errors, kind);
  status["reason"] = "Invalid";
  status["details"] = std::move(details);
  status["code"] = kInvalidCode;
  return status;
}

namespace {

Result<ReviewAnswer> parse_and_answer(std::string_view body, bool padded, const Policy& policy,
                                      Hook hook) {
  // The parser is the only state the core keeps between reviews; it holds no request data that
  // outlives the call.
  auto lease = parser_pool().borrow(body.size());
  simdjson::dom::parser& parser = lease.parser();
  const bool copy_first = !padded;
  const auto error = parser.parse(body.data(), body.size(), copy_first).error();
  if (error != simdjson::SUCCESS) {
    return invalid_argument(std::string("request body is not valid JSON: ") +
                            simdjson::error_message(error));
  }
  ReviewAnswer answer;
  // The root is parser.doc's: the duplicate-key check reads the document's tape.
  answer.body = respond(parser.doc, policy, hook, answer.summary);
  return answer;
}

}  // namespace

Result<ReviewAnswer> answer_review(std::string_view body, const Policy& policy, Hook hook) {
  return parse_and_answer(body, false, policy, hook);
}

void keep_large_parsers(std::size_t count, std::size_t max_body_bytes) {
  parser_pool().keep_large(count, max_body_bytes);
}

Result<ReviewAnswer> answer_padded_review(std::string_view body, const Policy& policy, Hook hook) {
  return parse_and_answer(body, true, policy, hook);
}

Result<std::string> handle_review(std::string_view body, const Policy& policy, Hook hook) {
  auto answer = answer_review(body, policy, hook);
  if (!answer.ok()) return answer.failure();
  return std::move(answer.value().body);
}

}  // namespace jobset_webhook::admission

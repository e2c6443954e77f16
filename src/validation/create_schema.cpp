// The JobSet CRD's OpenAPI schema and CEL rules that the API server applies on CREATE (upstream
// v0.12.0 config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml, plus main's replicas >= 0),
// for front ends that run without an API server. The JobSet's own fields are described by the
// table below; the embedded Job template is type-checked through the field-kinds table.

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "jobset_webhook/validation/create.h"
#include "jobset_webhook/validation/field_kinds.h"
#include "jobset_webhook/validation/names.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

enum class Type { kAny, kObject, kArray, kString, kInteger, kBoolean };

// One node of the schema: what the CRD says about a field.
struct Node {
  std::string_view name;  // the property name; empty for list items and the root
  Type type = Type::kAny;
  std::vector<std::string_view> enum_values;
  std::vector<std::string_view> required;
  std::optional<std::int64_t> minimum;
  std::optional<std::size_t> max_items;
  bool int32 = false;            // Go decodes it into an int32
  std::string_view list_map_key;  // x-kubernetes-list-type: map
  std::vector<Node> properties;
  std::vector<Node> items;  // zero or one: the schema of a list's entries
  const FieldKind* kind = nullptr;  // check below here with the field-kinds table instead
};

Node field(std::string_view name, Type type) {
  Node n;
  n.name = name;
  n.type = type;
  return n;
}

Node object(std::string_view name, std::vector<Node> properties, std::vector<std::string_view> required = {}) {
  Node n = field(name, Type::kObject);
  n.properties = std::move(properties);
  n.required = std::move(required);
  return n;
}

Node list(std::string_view name, Node items, std::optional<std::size_t> max_items = std::nullopt,
          std::string_view list_map_key = {}) {
  Node n = field(name, Type::kArray);
  n.items.push_back(std::move(items));
  n.max_items = max_items;
  n.list_map_key = list_map_key;
  return n;
}

Node enumeration(std::string_view name, std::vector<std::string_view> values) {
  Node n = field(name, Type::kString);
  n.enum_values = std::move(values);
  return n;
}

Node int32_field(std::string_view name, std::optional<std::int64_t> minimum = std::nullopt) {
  Node n = field(name, Type::kInteger);
  n.minimum = minimum;
  n.int32 = true;
  return n;
}

// A field checked with the field-kinds table.
Node kinds(std::string_view name, const FieldKind* kind) {
  Node n = field(name, Type::kObject);
  n.kind = kind;
  return n;
}

Node build_spec() {
  Node replicated_job = object(
      "",
      {
          field("name", Type::kString),
          field("groupName", Type::kString),
          int32_field("replicas", 0),
          list("dependsOn",
               object("", {field("name", Type::kString), enumeration("status", {"Ready", "Complete"})}, {"name", "status"}),
               5, "name"),
          kinds("template", replicated_job_kind().field("template")),
      },
      {"name", "template"});
  Node replicated_jobs = list("replicatedJobs", std::move(replicated_job), std::nullopt, "name");

  Node volume_claim_policy = object("", {object("retentionPolicy", {enumeration("whenDeleted", {"Delete", "Retain"})}),
                                         list("templates", field("", Type::kObject), 50)});
  Node volume_claim_policies = list("volumeClaimPolicies", std::move(volume_claim_policy), 50);

  return object(
      "spec",
      {
          std::move(replicated_jobs),
          object("network", {field("enableDNSHostnames", Type::kBoolean), field("subdomain", Type::kString),
                             field("publishNotReadyAddresses", Type::kBoolean)}),
          object("successPolicy",
                 {enumeration("operator", {"All", "Any"}), list("targetReplicatedJobs", field("", Type::kString))},
                 {"operator"}),
          object("failurePolicy",
                 {int32_field("maxRestarts"),
                  enumeration("restartStrategy", {"Recreate", "BlockingRecreate", "InPlaceRestart"}),
                  list("rules",
                       object("",
                              {field("name", Type::kString),
                               enumeration("action", {"FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts",
                                                      "RestartJob", "RestartJobAndIgnoreMaxRestarts"}),
                               list("onJobFailureReasons", field("", Type::kString)),
                               list("onJobFailureMessagePatterns", field("", Type::kString)),
                               list("targetReplicatedJobs", field("", Type::kString))},
                              {"action", "name"}))}),
          object("startupPolicy", {enumeration("startupPolicyOrder", {"AnyOrder", "InOrder"})}, {"startupPolicyOrder"}),
          field("suspend", Type::kBoolean),
          object("coordinator",
                 {field("replicatedJob", Type::kString), field("jobIndex", Type::kInteger), field("podIndex", Type::kInteger)},
                 {"replicatedJob"}),
          std::move(volume_claim_policies),
          field("managedBy", Type::kString),
          int32_field("ttlSecondsAfterFinished", 0),
      });
}

const Node& spec_schema() {
  static const Node schema = build_spec();
  return schema;
}

// The JSON type of a value as the API server names it in a type error.
std::string_view json_type(JsonView v) {
  switch (v.type()) {
    case element_type::OBJECT: return "object";
    case element_type::ARRAY: return "array";
    case element_type::STRING: return "string";
    case element_type::INT64:
    case element_type::UINT64: return "integer";
    case element_type::DOUBLE: return integer_of(v) ? "integer" : "number";
    case element_type::BOOL: return "boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "null";
}

std::string_view type_name(Type t) {
  switch (t) {
    case Type::kObject: return "object";
    case Type::kArray: return "array";
    case Type::kString: return "string";
    case Type::kInteger: return "integer";
    case Type::kBoolean: return "boolean";
    case Type::kAny: break;
  }
  return "";
}

// `<path>: Invalid value: "string": <path> in body must be of type integer: "string"`
field::Error type_error(const field::Path& path, std::string_view expected, JsonView v) {
  const std::string actual(json_type(v));
  return {field::ErrorType::kTypeInvalid, path.to_string(), field::BadValue::string(actual),
          path.to_string() + " in body must be of type " + std::string(expected) + ": \"" + actual + "\""};
}

bool has_type(JsonView v, Type t) {
  switch (t) {
    case Type::kAny: return true;
    case Type::kObject: return v.type() == element_type::OBJECT;
    case Type::kArray: return v.type() == element_type::ARRAY;
    case Type::kString: return v.type() == element_type::STRING;
    case Type::kInteger: return json_type(v) == "integer";
    case Type::kBoolean: return v.type() == element_type::BOOL;
  }
  return false;
}

// The embedded Job template: types only. Its required fields and value rules are the Job API's,
// checked when the controller creates the Jobs.
// The type a scalar of this kind must have, as the error names it, when v does not have it;
// empty when it does.
std::string_view scalar_mismatch(ScalarKind scalar, JsonView v) {
  const auto t = json_type(v);
  switch (scalar) {
    case ScalarKind::kString:
    case ScalarKind::kTime: return t != "string" ? "string" : "";
    case ScalarKind::kInteger: return t != "integer" ? "integer" : "";
    case ScalarKind::kBool: return t != "boolean" ? "boolean" : "";
    case ScalarKind::kIntOrString: return t != "integer" && t != "string" ? "integer,string" : "";
    case ScalarKind::kQuantity:
      // Lenient: Go's Quantity also decodes a JSON number such as 0.5.
      return t != "integer" && t != "string" && t != "number" ? "integer,string" : "";
    case ScalarKind::kRawJson: return "";
  }
  return "";
}

// True when check_kind would find nothing: the common case, answered without building a path for
// every field (which cost as much as the rest of the check of a valid JobSet).
bool conforms(const FieldKind& kind, JsonView v) {
  const auto type = v.type();
  if (type == element_type::NULL_VALUE) return true;
  switch (kind.shape) {
    case Shape::kStruct:
      if (type != element_type::OBJECT) return false;
      for (const auto [key, child] : JsonObjectView(v)) {
        const FieldKind* sub = kind.field(key);
        if (sub != nullptr && !conforms(*sub, child)) return false;
      }
      return true;
    case Shape::kMap:
    case Shape::kSlice: {
      const bool is_map = kind.shape == Shape::kMap;
      if (type != (is_map ? element_type::OBJECT : element_type::ARRAY)) return false;
      if (!kind.element) return true;
      if (is_map) {
        for (const auto [key, child] : JsonObjectView(v)) {
          if (!conforms(*kind.element, child)) return false;
        }
      } else {
        for (const auto child : JsonArrayView(v)) {
          if (!conforms(*kind.element, child)) return false;
        }
      }
      return true;
    }
    case Shape::kScalar:
      break;
  }
  return scalar_mismatch(kind.scalar, v).empty();
}

void check_kind(const FieldKind& kind, JsonView v, field::Path& path, field::ErrorList& errs) {
  if (v.type() == element_type::NULL_VALUE) return;  // the API server drops nulls of such fields
  switch (kind.shape) {
    case Shape::kStruct:
      if (v.type() != element_type::OBJECT) return errs.push_back(type_error(path, "object", v));
      for (const auto [key, child] : JsonObjectView(v)) {
        const FieldKind* sub = kind.field(key);
        if (sub == nullptr || conforms(*sub, child)) continue;  // unknown fields are pruned, not rejected
        path.push_child(key);
        check_kind(*sub, child, path, errs);
        path.pop();
      }
      return;
    case Shape::kMap:
    case Shape::kSlice: {
      const bool is_map = kind.shape == Shape::kMap;
      if (v.type() != (is_map ? element_type::OBJECT : element_type::ARRAY)) {
        return errs.push_back(type_error(path, is_map ? "object" : "array", v));
      }
      if (!kind.element) return;
      if (is_map) {
        for (const auto [key, child] : JsonObjectView(v)) {
          if (conforms(*kind.element, child)) continue;
          path.push_key(key);
          check_kind(*kind.element, child, path, errs);
          path.pop();
        }
      } else {
        std::size_t i = 0;
        for (const auto child : JsonArrayView(v)) {
          const std::size_t index = i++;
          if (conforms(*kind.element, child)) continue;
          path.push_index(index);
          check_kind(*kind.element, child, path, errs);
          path.pop();
        }
      }
      return;
    }
    case Shape::kScalar:
      break;
  }
  if (const auto expected = scalar_mismatch(kind.scalar, v); !expected.empty()) {
    errs.push_back(type_error(path, expected, v));
  }
}

void check_int32(const field::Path& path, JsonView v, field::ErrorList& errs) {
  const auto n = integer_of(v);  // absent for a number above int64, which is out of range too
  if (!n || *n < std::numeric_limits<std::int32_t>::min() || *n > std::numeric_limits<std::int32_t>::max()) {
    errs.push_back(field::invalid(path, field::BadValue::of(v), "must be between -2147483648 and 2147483647, inclusive"));
  }
}

// Entries are told apart by the key's compact JSON ("" for an entry without the key), in a hash
// set: a list of many entries must not cost a comparison of every pair.
void check_list_map_keys(std::string_view key_name, const std::vector<JsonView>& entries, const field::Path& path,
                         field::ErrorList& errs) {
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const MaybeJson key = member(entries[i], key_name);
    if (seen.insert(key ? simdjson::to_string(*key) : std::string()).second) continue;
    Json shown = Json::object();
    if (key) shown[std::string(key_name)] = Json::parse(simdjson::to_string(*key), nullptr, false);
    errs.push_back(field::duplicate(path.index(i), field::BadValue::of(shown)));
  }
}

void check(const Node& node, JsonView v, field::Path& path, field::ErrorList& errs) {
  if (v.type() == element_type::NULL_VALUE) return;
  if (node.kind != nullptr) return check_kind(*node.kind, v, path, errs);
  if (!has_type(v, node.type)) return errs.push_back(type_error(path, type_name(node.type), v));
  if (!node.enum_values.empty()) {
    const auto s = std::string_view(v);
    if (std::find(node.enum_values.begin(), node.enum_values.end(), s) == node.enum_values.end()) {
      errs.push_back(field::not_supported(path, field::BadValue::string(s),
                                          std::vector<std::string>(node.enum_values.begin(), node.enum_values.end())));
    }
  }
  if (node.int32) check_int32(path, v, errs);
  if (node.minimum && integer_of(v).value_or(std::numeric_limits<std::int64_t>::max()) < *node.minimum) {
    errs.push_back(field::invalid(path, field::BadValue::of(v),
                                  path.to_string() + " in body should be greater than or equal to " + std::to_string(*node.minimum)));
  }
  if (node.type == Type::kObject) {
    for (const auto required : node.required) {
      if (!member(v, required)) errs.push_back(field::required(path.child(required), ""));
    }
    for (const auto& property : node.properties) {
      const MaybeJson child = member(v, property.name);
      if (!child) continue;
      path.push_child(property.name);
      check(property, *child, path, errs);
      path.pop();
    }
  }
  if (node.type == Type::kArray) {
    const auto entries = items_of(v);
    if (node.max_items && entries.size() > *node.max_items) {
      errs.push_back(field::too_many(path, static_cast<std::int64_t>(entries.size()), static_cast<std::int64_t>(*node.max_items)));
    }
    for (std::size_t i = 0; i < entries.size() && !node.items.empty(); ++i) {
      path.push_index(i);
      check(node.items.front(), entries[i], path, errs);
      path.pop();
    }
    // listType map: entries are keyed; the API server reports each repeat of an earlier key.
    if (!node.list_map_key.empty()) check_list_map_keys(node.list_map_key, entries, path, errs);
  }
}

// The CEL rules of the CRD that can fail on CREATE (the `self == oldSelf` ones are UPDATE only).
void check_cel(MaybeJson spec, field::ErrorList& errs) {
  const auto rjobs = items_of(member(spec, "replicatedJobs"));
  const bool in_order = string_of(at(spec, {"startupPolicy", "startupPolicyOrder"})) == "InOrder";
  if (in_order && std::any_of(rjobs.begin(), rjobs.end(), [](JsonView r) { return member(r, "dependsOn").has_value(); })) {
    errs.push_back(field::invalid(field::Path("spec"), field::BadValue::string("object"),
                                  "StartupPolicy and DependsOn APIs are mutually exclusive"));
  }
  const auto policies = items_of(member(spec, "volumeClaimPolicies"));
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto templates = items_of(member(policies[i], "templates"));
    if (std::any_of(templates.begin(), templates.end(),
                    [](JsonView t) { return !string_or_empty(at(t, {"metadata", "namespace"})).empty(); })) {
      errs.push_back(field::invalid(field::Path("spec").child("volumeClaimPolicies").index(i), field::BadValue::string("object"),
                                    "namespace cannot be set for VolumeClaimPolicies templates"));
    }
  }
}

// The API server's own checks of metadata.name and metadata.generateName for a custom resource.
void check_metadata(MaybeJson metadata, field::ErrorList& errs) {
  const auto path = field::Path("metadata");
  const auto generate_name = string_or_empty(member(metadata, "generateName"));
  const auto name = string_or_empty(member(metadata, "name"));
  if (!generate_name.empty()) {
    for (const auto& msg : name_is_dns_subdomain(generate_name, true)) {
      errs.push_back(field::invalid(path.child("generateName"), field::BadValue::string(generate_name), msg));
    }
  }
  if (name.empty() && generate_name.empty()) {
    errs.push_back(field::required(path.child("name"), "name or generateName is required"));
  }
  if (!name.empty()) {
    for (const auto& msg : name_is_dns_subdomain(name, false)) {
      errs.push_back(field::invalid(path.child("name"), field::BadValue::string(name), msg));
    }
  }
}

}  // namespace

field::ErrorList validate_create_schema(JsonView js) {
  field::ErrorList errs;
  check_metadata(member(js, "metadata"), errs);
  if (const MaybeJson spec = member(js, "spec")) {
    field::Path path("spec");
    check(spec_schema(), *spec, path, errs);
    if (errs.empty()) check_cel(spec, errs);  // CEL runs on a well-typed object only
  }
  return errs;
}

}  // namespace jobset_webhook::validation

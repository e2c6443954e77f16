// The JobSet CRD's OpenAPI schema and CEL rules that the API server applies on CREATE, for front
// ends that run without an API server: the schema tree of jobset_schema.h walked over the object.

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "jobset_schema.h"
#include "jobset_webhook/validation/create.h"
#include "names.h"
#include "jobset_webhook/validation/read.h"
#include "schema_types.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

std::string_view type_name(SchemaType t) {
  switch (t) {
    case SchemaType::kObject: return "object";
    case SchemaType::kArray: return "array";
    case SchemaType::kString: return "string";
    case SchemaType::kInteger: return "integer";
    case SchemaType::kBoolean: return "boolean";
    case SchemaType::kAny: break;
  }
  return "";
}

bool has_schema_type(JsonView v, SchemaType t) {
  switch (t) {
    case SchemaType::kAny: return true;
    case SchemaType::kObject: return v.type() == element_type::OBJECT;
    case SchemaType::kArray: return v.type() == element_type::ARRAY;
    case SchemaType::kString: return v.type() == element_type::STRING;
    case SchemaType::kInteger: return json_type(v) == "integer";
    case SchemaType::kBoolean: return v.type() == element_type::BOOL;
  }
  return false;
}

// Entries are told apart by the key's compact JSON ("" for an entry without the key), in a hash
// set: a list of many entries must not cost a comparison of every pair.
void check_list_map_keys(std::string_view key_name, const std::vector<JsonView>& entries,
                         const field::Path& path, field::ErrorList& errs) {
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const MaybeJson key = member(entries[i], key_name);
    if (seen.insert(key ? simdjson::to_string(*key) : std::string()).second) continue;
    Json shown = Json::object();
    if (key) shown[std::string(key_name)] = Json::parse(simdjson::to_string(*key), nullptr, false);
    errs.push_back(field::duplicate(path.index(i), field::BadValue::of(shown)));
  }
}

void check(const SchemaNode& node, JsonView v, field::Path& path, field::ErrorList& errs) {
  if (v.type() == element_type::NULL_VALUE) return;
  if (node.kind != nullptr) return check_template_types(*node.kind, v, path, errs);
  if (!has_schema_type(v, node.type))
    return errs.push_back(type_error(path, type_name(node.type), v));
  if (!node.enum_values.empty()) {
    const auto s = std::string_view(v);
    if (std::find(node.enum_values.begin(), node.enum_values.end(), s) == node.enum_values.end()) {
      errs.push_back(field::not_supported(
          path, field::BadValue::string(s),
          std::vector<std::string>(node.enum_values.begin(), node.enum_values.end())));
    }
  }
  if (node.int32) check_int32(path, v, errs);
  if (node.minimum &&
      integer_of(v).value_or(std::numeric_limits<std::int64_t>::max()) < *node.minimum) {
    errs.push_back(field::invalid(path, field::BadValue::of(v),
                                  path.to_string() +
                                      " in body should be greater than or equal to " +
                                      std::to_string(*node.minimum)));
  }
  if (node.type == SchemaType::kObject) {
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
  if (node.type == SchemaType::kArray) {
    const auto entries = items_of(v);
    if (node.max_items && entries.size() > *node.max_items) {
      errs.push_back(field::too_many(path, static_cast<std::int64_t>(entries.size()),
                                     static_cast<std::int64_t>(*node.max_items)));
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
  if (in_order && std::any_of(rjobs.begin(), rjobs.end(),
                              [](JsonView r) { return member(r, "dependsOn").has_value(); })) {
    errs.push_back(field::invalid(field::Path("spec"), field::BadValue::string("object"),
                                  "StartupPolicy and DependsOn APIs are mutually exclusive"));
  }
  const auto policies = items_of(member(spec, "volumeClaimPolicies"));
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto templates = items_of(member(policies[i], "templates"));
    if (std::any_of(templates.begin(), templates.end(), [](JsonView t) {
          return !string_or_empty(at(t, {"metadata", "namespace"})).empty();
        })) {
      errs.push_back(field::invalid(field::Path("spec").child("volumeClaimPolicies").index(i),
                                    field::BadValue::string("object"),
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
      errs.push_back(
          field::invalid(path.child("generateName"), field::BadValue::string(generate_name), msg));
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

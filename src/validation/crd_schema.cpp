#include "crd_schema.h"

#include "jobset_webhook/validation/schema_defaults.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>

namespace jobset_webhook::validation {
namespace {

// The generated table, in pieces (scripts/gen_crd_schema.py embed).
constexpr std::array kTablePieces = {
#include "crd_schema_table.inc"
};

std::string table_text() {
  std::string text;
  for (const std::string_view piece : kTablePieces) text += piece;
  return text;
}

template <typename T>
std::optional<T> optional_of(const Json& node, const char* key) {
  if (!node.contains(key)) return std::nullopt;
  return node.at(key).get<T>();
}

std::vector<std::string> strings_of(const Json& node, const char* key) {
  if (!node.contains(key)) return {};
  return node.at(key).get<std::vector<std::string>>();
}

// Sets cel_below on every node with a rule at or under it. Nodes are shared, so the marks spread
// from child to parent until nothing changes (the table is a tree of shared subtrees: no cycles).
void mark_cel_below(std::vector<CrdSchema>& nodes) {
  for (CrdSchema& n : nodes) n.cel_below = !n.cel_rules.empty();
  for (bool changed = true; changed;) {
    changed = false;
    for (CrdSchema& n : nodes) {
      if (n.cel_below) continue;
      bool below = (n.items != nullptr && n.items->cel_below) ||
                   (n.additional_properties != nullptr && n.additional_properties->cel_below);
      for (const auto& child : n.properties) below = below || child.second->cel_below;
      if (below) n.cel_below = changed = true;
    }
  }
}

// Every node, read once; the vector never grows after, so the pointers between nodes hold.
const std::vector<CrdSchema>& nodes() {
  static const std::vector<CrdSchema> all = [] {
    const Json table = Json::parse(table_text());
    const Json& rows = table.at("nodes");
    std::vector<CrdSchema> out(rows.size());
    const auto ref = [&](const Json& index) { return &out.at(index.get<std::size_t>()); };
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Json& row = rows[i];
      CrdSchema& n = out[i];
      n.type = row.value("type", "");
      n.format = row.value("format", "");
      n.nullable = row.value("nullable", false);
      n.int_or_string = row.value("intOrString", false);
      n.preserve_unknown_fields = row.value("preserveUnknownFields", false);
      n.embedded_resource = row.value("embeddedResource", false);
      n.required = strings_of(row, "required");
      if (row.contains("enum")) n.enum_values = row.at("enum").get<std::vector<Json>>();
      n.minimum = optional_of<double>(row, "minimum");
      n.maximum = optional_of<double>(row, "maximum");
      n.exclusive_minimum = row.value("exclusiveMinimum", false);
      n.exclusive_maximum = row.value("exclusiveMaximum", false);
      n.min_length = optional_of<std::int64_t>(row, "minLength");
      n.max_length = optional_of<std::int64_t>(row, "maxLength");
      n.min_items = optional_of<std::int64_t>(row, "minItems");
      n.max_items = optional_of<std::int64_t>(row, "maxItems");
      n.pattern = row.value("pattern", "");
      n.list_type = row.value("listType", "");
      n.list_map_keys = strings_of(row, "listMapKeys");
      n.map_type = row.value("mapType", "");
      if (row.contains("default")) n.default_value = row.at("default");
      if (row.contains("validations")) {
        for (const auto& rule : row.at("validations")) {
          n.cel_rules.push_back({rule.value("rule", ""), rule.value("message", ""),
                                 rule.value("messageExpression", ""), rule.value("reason", ""),
                                 rule.value("fieldPath", ""),
                                 rule.value("optionalOldSelf", false)});
        }
      }
      if (row.contains("properties")) {
        for (const auto& [name, index] : row.at("properties").items())
          n.properties.emplace_back(name, ref(index));
        std::sort(n.properties.begin(), n.properties.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
      }
      if (row.contains("items")) n.items = ref(row.at("items"));
      if (row.contains("additionalProperties")) {
        const Json& additional = row.at("additionalProperties");
        if (additional.is_boolean()) {
          n.additional_properties_any = additional.get<bool>();
        } else {
          n.additional_properties = ref(additional);
        }
      }
      std::vector<std::pair<std::string_view, const CrdSchema*>> names;
      for (const auto& [name, child] : n.properties) names.emplace_back(name, child);
      n.property_index.build(names);
    }
    mark_cel_below(out);
    return out;
  }();
  return all;
}

}  // namespace

const CrdSchema* CrdSchema::property(std::string_view name) const {
  return property_index.find(name);
}

const CrdSchema* CrdSchema::member_schema(std::string_view key) const {
  if (const CrdSchema* p = property(key)) return p;
  return additional_properties;
}

const CrdSchema& crd_schema() { return nodes().front(); }

namespace {

void collect_defaults(const CrdSchema& node, const std::string& path,
                      std::vector<SchemaDefault>& out) {
  if (node.default_value) out.push_back({path, *node.default_value});
  for (const auto& [name, child] : node.properties)
    collect_defaults(*child, path + "." + name, out);
  if (node.items != nullptr) collect_defaults(*node.items, path + "[]", out);
}

}  // namespace

const std::vector<SchemaDefault>& schema_defaults() {
  static const std::vector<SchemaDefault> all = [] {
    std::vector<SchemaDefault> out;
    collect_defaults(*crd_schema().property("spec"), "spec", out);
    return out;
  }();
  return all;
}

const CrdSchema* crd_schema_at(std::string_view path) {
  const CrdSchema* node = &crd_schema();
  while (!path.empty() && node != nullptr) {
    if (path.front() == '.') path.remove_prefix(1);
    if (path.substr(0, 2) == "[]") {
      node = node->items;
      path.remove_prefix(2);
      continue;
    }
    if (path.substr(0, 2) == "{}") {
      node = node->additional_properties;
      path.remove_prefix(2);
      continue;
    }
    const std::size_t end = path.find_first_of(".[{");
    node = node->property(path.substr(0, end));
    path.remove_prefix(end == std::string_view::npos ? path.size() : end);
  }
  return node;
}

}  // namespace jobset_webhook::validation

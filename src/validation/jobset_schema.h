#pragma once

// The JobSet CRD's OpenAPI schema (upstream v0.12.0
// config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml, plus main's replicas >= 0) as a tree
// of nodes, for validate_create_schema. The JobSet's own fields are described node by node; the
// embedded Job template points at the field-kinds table instead.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "field_kinds.h"

namespace jobset_webhook::validation {

enum class SchemaType { kAny, kObject, kArray, kString, kInteger, kBoolean };

// One node of the schema: what the CRD says about a field.
struct SchemaNode {
  std::string_view name;  // the property name; empty for list items and the root
  SchemaType type = SchemaType::kAny;
  std::vector<std::string_view> enum_values;
  std::vector<std::string_view> required;
  std::optional<std::int64_t> minimum;
  std::optional<std::size_t> max_items;
  bool int32 = false;             // Go decodes it into an int32
  std::string_view list_map_key;  // x-kubernetes-list-type: map
  std::vector<SchemaNode> properties;
  std::vector<SchemaNode> items;    // zero or one: the schema of a list's entries
  const FieldKind* kind = nullptr;  // check below here with the field-kinds table instead
};

// The schema of a JobSet's spec, built once.
const SchemaNode& spec_schema();

// The schema of a JobSet's status, built once: for pruning only, as the API server checks a
// status against it on the status subresource, never on a write of the JobSet itself.
const SchemaNode& status_schema();

// The kind of a PersistentVolumeClaimSpec (the spec of volumeClaimPolicies' templates), as the
// field-kinds table has it under an ephemeral volume's volumeClaimTemplate.
const FieldKind& pvc_spec_kind();

}  // namespace jobset_webhook::validation

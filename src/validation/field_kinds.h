#pragma once

// The Go kind of every field of a ReplicatedJob (name, replicas, dependsOn, template and all that
// the batch/v1 JobTemplateSpec holds), which decides what "unchanged" means for it: see
// semantic.h. Built once, read-only, from src/validation/*-field-kinds.json.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "name_index.h"

namespace jobset_webhook::validation {

enum class Shape { kScalar, kStruct, kSlice, kMap };

// What a scalar holds once Go has decoded it.
enum class ScalarKind {
  kString,
  kInteger,
  kBool,
  kQuantity,     // resource.Quantity: compared by value, "1" == "1000m"
  kTime,         // metav1.Time: compared as an instant
  kIntOrString,  // intstr.IntOrString: typed, 80 != "80"
  kRawJson,      // FieldsV1 and the like: compared as plain JSON
};

struct FieldKind {
  bool pointer = false;  // absent differs from an explicit zero value
  Shape shape = Shape::kStruct;
  ScalarKind scalar = ScalarKind::kString;               // when shape is kScalar
  std::map<std::string, FieldKind, std::less<>> fields;  // when shape is kStruct
  std::unique_ptr<FieldKind> element;                    // when shape is kSlice or kMap

  // The kind of a struct field; nullptr for a field the table does not know (newer Kubernetes),
  // which is then compared as plain JSON.
  const FieldKind* field(std::string_view name) const;

  // Builds field_index here and below. Called once the table is complete: it points into `fields`.
  void index_fields();

  // What field() reads once built: `fields` hashed (name_index.h).
  NameIndex<FieldKind> field_index;
};

// The kinds of one ReplicatedJob entry (a struct whose fields are name, groupName, replicas,
// dependsOn and template). Thread-safe; built on first use.
const FieldKind& replicated_job_kind();

// A node by its path in the table's notation, relative to a ReplicatedJob:
// "template.spec.template.spec.containers[].image". nullptr when the table has no such path.
const FieldKind* find_kind(std::string_view path);

}  // namespace jobset_webhook::validation

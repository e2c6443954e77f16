#include "field_kinds.h"

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace jobset_webhook::validation {
namespace {

struct Row {
  std::string_view path;
  bool pointer;
  std::string_view kind;     // scalar, struct, slice, map, special
  std::string_view go_type;  // string, int32, ..., quantity, time, int-or-string, or a struct name
};

constexpr Row kRows[] = {
#include "field_kinds_table.inc"
};

ScalarKind scalar_kind_of(std::string_view go_type) {
  if (go_type == "int32" || go_type == "int64") return ScalarKind::kInteger;
  if (go_type == "bool") return ScalarKind::kBool;
  if (go_type == "quantity") return ScalarKind::kQuantity;
  if (go_type == "time") return ScalarKind::kTime;
  if (go_type == "int-or-string") return ScalarKind::kIntOrString;
  if (go_type == "fieldsv1" || go_type == "raw" || go_type == "duration")
    return ScalarKind::kRawJson;
  return ScalarKind::kString;
}

bool is_scalar_type(std::string_view go_type) {
  return go_type == "string" || go_type == "int32" || go_type == "int64" || go_type == "bool" ||
         go_type == "quantity";
}

// Splits "a.b[].c" into {"a", "b", "[]", "c"}.
std::vector<std::string_view> segments_of(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '.' || path[i] == '[') {
      if (i > start) out.push_back(path.substr(start, i - start));
      if (i < path.size() && path[i] == '[') {
        out.push_back(path.substr(i, 2));  // "[]" or "{}"-style marker
        i += 1;
      }
      start = i + 1;
    }
  }
  return out;
}

FieldKind& descend(FieldKind& node, std::string_view segment) {
  if (segment == "[]" || segment == "{}") {
    if (!node.element) node.element = std::make_unique<FieldKind>();
    return *node.element;
  }
  return node.fields[std::string(segment)];
}

void apply_row(FieldKind& root, const Row& row) {
  FieldKind* node = &root;
  for (const auto segment : segments_of(row.path)) node = &descend(*node, segment);
  node->pointer = row.pointer;
  if (row.kind == "scalar" || row.kind == "special") {
    node->shape = Shape::kScalar;
    node->scalar = scalar_kind_of(row.go_type);
  } else if (row.kind == "struct") {
    node->shape = Shape::kStruct;
  } else {
    node->shape = row.kind == "map" ? Shape::kMap : Shape::kSlice;
    if (!node->element) node->element = std::make_unique<FieldKind>();
    // A list or map of scalars has no rows of its own for the element: describe it here.
    // Elements of struct type get their fields from the rows that follow.
    if (is_scalar_type(row.go_type)) {
      node->element->shape = Shape::kScalar;
      node->element->scalar = scalar_kind_of(row.go_type);
    }
  }
}

}  // namespace

const FieldKind* FieldKind::field(std::string_view name) const {
  if (!field_index.built()) {
    const auto it = fields.find(name);
    return it == fields.end() ? nullptr : &it->second;
  }
  return field_index.find(name);
}

void FieldKind::index_fields() {
  if (element) element->index_fields();
  if (fields.empty()) return;
  std::vector<std::pair<std::string_view, const FieldKind*>> entries;
  for (auto& [name, kind] : fields) {
    kind.index_fields();
    entries.emplace_back(name, &kind);
  }
  field_index.build(entries);
}

const FieldKind& replicated_job_kind() {
  static const FieldKind kind = [] {
    FieldKind root;
    root.shape = Shape::kStruct;
    for (const Row& row : kRows) apply_row(root, row);
    root.index_fields();
    return root;
  }();
  return kind;
}

const FieldKind* find_kind(std::string_view path) {
  const FieldKind* node = &replicated_job_kind();
  for (const auto segment : segments_of(path)) {
    node = (segment == "[]" || segment == "{}") ? node->element.get() : node->field(segment);
    if (node == nullptr) return nullptr;
  }
  return node;
}

}  // namespace jobset_webhook::validation

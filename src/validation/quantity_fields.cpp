// validate_quantity_decoding of quantity.h: where a JobSet's quantities are, and whether
// upstream's decoder reads them. Apart from the parser, which stays free of the field-kinds table.

#include <unordered_map>
#include <utility>
#include <vector>

#include "field_kinds.h"
#include "quantity.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// For each struct kind, its fields below which a quantity can sit; for each kind, whether one can.
struct QuantityMap {
  std::unordered_map<const FieldKind*, bool> holds;
  std::unordered_map<const FieldKind*, std::vector<std::pair<std::string_view, const FieldKind*>>>
      fields;
};

bool fill(const FieldKind& kind, QuantityMap& map) {
  if (const auto it = map.holds.find(&kind); it != map.holds.end()) return it->second;
  bool holds = false;
  switch (kind.shape) {
    case Shape::kScalar: holds = kind.scalar == ScalarKind::kQuantity; break;
    case Shape::kStruct: {
      std::vector<std::pair<std::string_view, const FieldKind*>> with;
      for (const auto& [name, sub] : kind.fields) {
        if (fill(sub, map)) with.emplace_back(name, &sub);
      }
      holds = !with.empty();
      map.fields.emplace(&kind, std::move(with));
      break;
    }
    case Shape::kSlice:
    case Shape::kMap: holds = kind.element && fill(*kind.element, map); break;
  }
  map.holds.emplace(&kind, holds);
  return holds;
}

// Built once. The walk runs on every review and most of a pod template holds no quantity (env,
// probes, commands): it looks up the few fields that can, instead of visiting every member.
const QuantityMap& quantity_map() {
  static const QuantityMap map = [] {
    QuantityMap m;
    fill(replicated_job_kind(), m);
    return m;
  }();
  return map;
}

// The way down to the current value, turned into a field::Path only for an error: a Path
// allocates a string per segment, and almost every review has no error to report.
struct Step {
  enum class Kind { kChild, kIndex, kKey } kind;
  std::string_view name;
  std::size_t index = 0;
};

field::Path to_path(const std::vector<Step>& steps) {
  field::Path path;
  for (const auto& s : steps) {
    switch (s.kind) {
      case Step::Kind::kChild: path.push_child(s.name); break;
      case Step::Kind::kIndex: path.push_index(s.index); break;
      case Step::Kind::kKey: path.push_key(s.name); break;
    }
  }
  return path;
}

void walk(const FieldKind& kind, JsonView v, std::vector<Step>& steps, field::ErrorList& errs) {
  switch (kind.shape) {
    case Shape::kStruct: {
      const auto& fields = quantity_map().fields;
      const auto it = fields.find(&kind);
      if (v.type() != element_type::OBJECT || it == fields.end()) return;
      for (const auto& [name, sub] : it->second) {
        const auto child = member(v, name);
        if (!child) continue;
        steps.push_back({Step::Kind::kChild, name});
        walk(*sub, *child, steps, errs);
        steps.pop_back();
      }
      return;
    }
    case Shape::kMap: {
      if (v.type() != element_type::OBJECT || !kind.element) return;
      for (const auto [key, child] : JsonObjectView(v)) {
        steps.push_back({Step::Kind::kKey, key});
        walk(*kind.element, child, steps, errs);
        steps.pop_back();
      }
      return;
    }
    case Shape::kSlice: {
      if (v.type() != element_type::ARRAY || !kind.element) return;
      std::size_t i = 0;
      for (const auto e : JsonArrayView(v)) {
        steps.push_back({Step::Kind::kIndex, {}, i++});
        walk(*kind.element, e, steps, errs);
        steps.pop_back();
      }
      return;
    }
    case Shape::kScalar: {
      if (kind.scalar != ScalarKind::kQuantity || v.type() != element_type::STRING) return;
      const auto text = std::string_view(v);
      // The pattern's refusal comes first, from the API server (schema_types.h). Without an
      // exponent, what the pattern accepts (a number and an SI or binary suffix) always parses.
      if (text.find_first_of("eE") == std::string_view::npos || !matches_quantity_pattern(text))
        return;
      if (const auto error = quantity_error(text); !error.empty())
        errs.push_back(field::invalid(to_path(steps), field::BadValue::string(text), error));
      return;
    }
  }
}

// The kind of a PersistentVolumeClaimSpec (the spec of volumeClaimPolicies' templates), as the
// field-kinds table has it under an ephemeral volume's volumeClaimTemplate.
const FieldKind& pvc_spec_kind() {
  static const FieldKind* const kind =
      find_kind("template.spec.template.spec.volumes[].ephemeral.volumeClaimTemplate.spec");
  return *kind;
}

}  // namespace

field::ErrorList validate_quantity_decoding(JsonView js) {
  using K = Step::Kind;
  field::ErrorList errs;
  const auto spec = member(js, "spec");
  std::vector<Step> steps;
  std::size_t i = 0;
  for (const auto rj : items_of(member(spec, "replicatedJobs"))) {
    steps = {{K::kChild, "spec"}, {K::kChild, "replicatedJobs"}, {K::kIndex, {}, i++}};
    walk(replicated_job_kind(), rj, steps, errs);
  }
  std::size_t p = 0;
  for (const auto policy : items_of(member(spec, "volumeClaimPolicies"))) {
    std::size_t t = 0;
    for (const auto tmpl : items_of(member(policy, "templates"))) {
      steps = {{K::kChild, "spec"},  {K::kChild, "volumeClaimPolicies"},
               {K::kIndex, {}, p},   {K::kChild, "templates"},
               {K::kIndex, {}, t++}, {K::kChild, "spec"}};
      if (const auto pvc_spec = member(tmpl, "spec")) walk(pvc_spec_kind(), *pvc_spec, steps, errs);
    }
    ++p;
  }
  return errs;
}

}  // namespace jobset_webhook::validation

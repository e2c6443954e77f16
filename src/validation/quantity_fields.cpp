// Where a JobSet's quantities are and whether upstream's decoder reads them: validate_quantity_decoding
// of quantity.h, apart from the parser so that the parser stays free of the field-kinds table.

#include "jobset_webhook/validation/field_kinds.h"
#include "jobset_webhook/validation/quantity.h"
#include "jobset_webhook/validation/read.h"
#include "validation/jobset_schema.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

void walk(const FieldKind& kind, JsonView v, field::Path& path, field::ErrorList& errs) {
  switch (kind.shape) {
    case Shape::kStruct:
    case Shape::kMap: {
      const bool is_map = kind.shape == Shape::kMap;
      if (v.type() != element_type::OBJECT || (is_map && !kind.element)) return;
      for (const auto [key, child] : JsonObjectView(v)) {
        const FieldKind* sub = is_map ? kind.element.get() : kind.field(key);
        if (sub == nullptr) continue;  // pruned
        if (is_map) {
          path.push_key(key);
        } else {
          path.push_child(key);
        }
        walk(*sub, child, path, errs);
        path.pop();
      }
      return;
    }
    case Shape::kSlice: {
      if (v.type() != element_type::ARRAY || !kind.element) return;
      std::size_t i = 0;
      for (const auto e : JsonArrayView(v)) {
        path.push_index(i++);
        walk(*kind.element, e, path, errs);
        path.pop();
      }
      return;
    }
    case Shape::kScalar: {
      if (kind.scalar != ScalarKind::kQuantity || v.type() != element_type::STRING) return;
      const auto text = std::string_view(v);
      // The pattern's refusal comes first, from the API server (schema_types.h).
      if (!matches_quantity_pattern(text)) return;
      if (const auto error = quantity_error(text); !error.empty())
        errs.push_back(field::invalid(path, field::BadValue::string(text), error));
      return;
    }
  }
}

}  // namespace

field::ErrorList validate_quantity_decoding(JsonView js) {
  field::ErrorList errs;
  const auto spec = member(js, "spec");
  std::size_t i = 0;
  for (const auto rj : items_of(member(spec, "replicatedJobs"))) {
    auto path = field::Path("spec").child("replicatedJobs").index(i++);
    walk(replicated_job_kind(), rj, path, errs);
  }
  std::size_t p = 0;
  for (const auto policy : items_of(member(spec, "volumeClaimPolicies"))) {
    std::size_t t = 0;
    for (const auto tmpl : items_of(member(policy, "templates"))) {
      auto path = field::Path("spec").child("volumeClaimPolicies").index(p).child("templates");
      path.push_index(t++);
      path.push_child("spec");
      if (const auto pvc_spec = member(tmpl, "spec")) walk(pvc_spec_kind(), *pvc_spec, path, errs);
    }
    ++p;
  }
  return errs;
}

}  // namespace jobset_webhook::validation

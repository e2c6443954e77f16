#include <string>
#include <string_view>

#include "jobset_webhook/validation/update.h"
#include "field_kinds.h"
#include "json_values.h"
#include "object_members.h"
#include "semantic.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// A claim's metadata (ObjectMeta) and spec (PersistentVolumeClaimSpec): the kind table holds both
// below an ephemeral volume's claim template, a PersistentVolumeClaimTemplate.
const FieldKind* claim_kind(std::string_view part) {
  return find_kind("template.spec.template.spec.volumes[].ephemeral.volumeClaimTemplate." +
                   std::string(part));
}

// status is a PersistentVolumeClaimStatus, a struct the table does not describe: its zero value,
// which Go's encoder writes as {}, equals an absent status; anything else is compared as JSON.
bool zero_status(MaybeJson v) {
  return !v || (v->type() == element_type::OBJECT && JsonObjectView(*v).size() == 0);
}

bool claims_equal(MaybeJson a, MaybeJson b) {
  static const FieldKind* const metadata = claim_kind("metadata");
  static const FieldKind* const spec = claim_kind("spec");
  if (!has_type(a, element_type::OBJECT) || !has_type(b, element_type::OBJECT))
    return json_equal(a, b);
  return for_each_member(a, b, false, [](std::string_view key, MaybeJson va, MaybeJson vb) {
    va = present(va), vb = present(vb);
    if (key == "metadata") return semantically_equal(metadata, va, vb);
    if (key == "spec") return semantically_equal(spec, va, vb);
    if (key == "status") return (zero_status(va) && zero_status(vb)) || json_equal(va, vb);
    // apiVersion and kind are strings that Go leaves out when empty.
    const bool strings = (!va || va->is_string()) && (!vb || vb->is_string());
    if ((key == "apiVersion" || key == "kind") && strings)
      return string_or_empty(va) == string_or_empty(vb);
    return json_equal(va, vb);
  });
}

}  // namespace

bool claim_templates_equal(MaybeJson a, MaybeJson b) {
  if ((a && a->type() != element_type::ARRAY) || (b && b->type() != element_type::ARRAY))
    return json_equal(a, b);
  const auto items_a = items_of(a), items_b = items_of(b);
  if (items_a.size() != items_b.size()) return false;
  for (std::size_t i = 0; i < items_a.size(); ++i) {
    if (!claims_equal(present(items_a[i]), present(items_b[i]))) return false;
  }
  return true;
}

}  // namespace jobset_webhook::validation

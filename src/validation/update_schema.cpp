#include "jobset_webhook/validation/update.h"

#include <array>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "field_kinds.h"
#include "json_values.h"
#include "object_members.h"
#include "quantity.h"
#include "jobset_webhook/validation/read.h"
#include "semantic.h"
#include "schema_types.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// The lists on the way to a quantity that the CRD declares x-kubernetes-list-type: map with the
// key name; every other list there (downwardAPI items, projected sources) is atomic.
const std::array<const FieldKind*, 7>& named_lists() {
  static const std::array<const FieldKind*, 7> lists = {
      find_kind("template.spec.template.spec.containers"),
      find_kind("template.spec.template.spec.initContainers"),
      find_kind("template.spec.template.spec.ephemeralContainers"),
      find_kind("template.spec.template.spec.volumes"),
      find_kind("template.spec.template.spec.containers[].env"),
      find_kind("template.spec.template.spec.initContainers[].env"),
      find_kind("template.spec.template.spec.ephemeralContainers[].env"),
  };
  return lists;
}

bool is_named_list(const FieldKind& kind) {
  for (const FieldKind* k : named_lists()) {
    if (k == &kind) return true;
  }
  return false;
}

// The entries of a list-map by their name, for correlating each new entry with its old self: a
// lookup per entry, not a scan of the old list per entry, which made a list of 9,000 env
// entries cost seconds. A name held by more than one old entry correlates with none.
class EntriesByName {
 public:
  explicit EntriesByName(MaybeJson list) {
    for (const auto e : items_of(list)) {
      const auto [it, inserted] = entries_.try_emplace(string_or_empty(member(e, "name")), e);
      if (!inserted) it->second = std::nullopt;
    }
  }
  MaybeJson find(std::string_view name) const {
    const auto it = entries_.find(name);
    return it == entries_.end() ? std::nullopt : it->second;
  }

 private:
  std::unordered_map<std::string_view, MaybeJson> entries_;
};

// The quantity strings of v that fail the CRD's pattern. old is the value the API server
// correlates with v (through object keys and list-map keys; absent below an atomic list or where
// the old object has none): an error on a value equal to it is ratcheted away, as
// apiextensions-apiserver's ratchetingValueValidator drops errors of a value DeepEqual to its old
// self (CRDValidationRatcheting, on by default since Kubernetes 1.30).
void walk(const FieldKind& kind, JsonView v, MaybeJson old, field::Path& path,
          field::ErrorList& errs) {
  switch (kind.shape) {
    case Shape::kStruct:
    case Shape::kMap: {
      if (v.type() != element_type::OBJECT) return;
      const bool is_map = kind.shape == Shape::kMap;
      if (is_map && !kind.element) return;
      // Side by side with old, not by a lookup per key: a map may hold any number of keys.
      for_each_member(v, present(old), false,
                      [&](std::string_view key, MaybeJson child, MaybeJson old_child) {
                        const FieldKind* sub = is_map ? kind.element.get() : kind.field(key);
                        if (!child || sub == nullptr) return true;  // only in old, or pruned
                        if (is_map) {
                          path.push_key(key);
                        } else {
                          path.push_child(key);
                        }
                        walk(*sub, *child, present(old_child), path, errs);
                        path.pop();
                        return true;
                      });
      return;
    }
    case Shape::kSlice: {
      if (v.type() != element_type::ARRAY || !kind.element) return;
      const bool named = is_named_list(kind);
      const std::optional<EntriesByName> old_entries =
          named ? std::optional<EntriesByName>(old) : std::nullopt;
      const std::size_t before = errs.size();
      std::size_t i = 0;
      for (const auto e : JsonArrayView(v)) {
        path.push_index(i++);
        walk(*kind.element, e,
             named ? old_entries->find(string_or_empty(member(e, "name"))) : std::nullopt, path,
             errs);
        path.pop();
      }
      // An atomic list is correlated as a whole: unchanged, its errors are ratcheted.
      if (!named && errs.size() > before && old && json_equal(old, v)) errs.resize(before);
      return;
    }
    case Shape::kScalar:
      if (kind.scalar != ScalarKind::kQuantity || v.type() != element_type::STRING) return;
      if (matches_quantity_pattern(std::string_view(v))) return;
      if (old && old->type() == element_type::STRING &&
          std::string_view(*old) == std::string_view(v))
        return;
      errs.push_back(quantity_pattern_error(path, std::string_view(v)));
      return;
  }
}

}  // namespace

field::ErrorList validate_update_schema(JsonView old_js, JsonView new_js) {
  field::ErrorList errs;
  const EntriesByName old_rjobs(member(member(old_js, "spec"), "replicatedJobs"));
  std::size_t i = 0;
  for (const auto rj : items_of(member(member(new_js, "spec"), "replicatedJobs"))) {
    auto path = field::Path("spec").child("replicatedJobs").index(i++);
    walk(replicated_job_kind(), rj, old_rjobs.find(string_or_empty(member(rj, "name"))), path,
         errs);
  }
  return errs;
}

}  // namespace jobset_webhook::validation

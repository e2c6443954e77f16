#pragma once

// Kubernetes-semantic comparison of two JSON values of a known Go kind: what the upstream Go code
// sees after typed decoding plus equality.Semantic.DeepEqual, not textual JSON equality.
// - null and absent are the same (Go's decoder leaves the zero value);
// - a missing value-typed field equals its zero value ("", 0, false, an empty struct), while a
//   missing pointer-typed field differs from an explicit zero;
// - a missing, null and empty list or map are equal;
// - quantities compare by value, times as instants, int-or-string by type and value;
// - fields the kind table does not know are compared as plain JSON (key order and the spelling
//   of numbers do not matter).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "jobset_webhook/field/path.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/validation/read.h"
#include "field_kinds.h"

namespace jobset_webhook::validation {

// One difference found by diff().
struct Change {
  enum class What {
    kValue,       // a leaf (scalar, map entry, or pointer struct appearing/disappearing) differs
    kListLength,  // a list gained or lost entries; reported once, at the list
  };
  What what = What::kValue;
  std::string path;
  MaybeJson old_value;
  MaybeJson new_value;
  const FieldKind* kind = nullptr;  // nullptr for a field the table does not know
};

struct DiffOptions {
  // Subtrees to leave out of the comparison, by node of the kind table (the suspended-JobSet
  // exceptions, elastic parallelism).
  std::span<const FieldKind* const> ignored;
};

// True when a and b are equal for a field of this kind (nullptr: plain JSON).
bool semantically_equal(const FieldKind* kind, MaybeJson a, MaybeJson b,
                        const DiffOptions& options = {});

// A 64-bit fingerprint of v as a value of this kind (nullptr: plain JSON), such that
// semantically_equal(kind, a, b) implies fingerprint(kind, a) == fingerprint(kind, b): values that
// differ may still share one, so a match is confirmed with semantically_equal. One pass over v;
// it lets a list that changed length be aligned in n log n instead of comparing every pair.
std::uint64_t fingerprint(const FieldKind* kind, MaybeJson v);

// Appends one Change per differing leaf below path. Paths are printed like field::Path.
void diff(const FieldKind* kind, MaybeJson old_value, MaybeJson new_value, field::Path& path,
          const DiffOptions& options, std::vector<Change>& changes);

}  // namespace jobset_webhook::validation

#pragma once

// Checked reads of a JobSet seen through simdjson, in the shape Go's typed decoding gives it:
// a value of the wrong JSON type reads as absent (the schema check reports it, see
// validate_create_schema), null reads as absent, and nothing here throws or aborts.

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook::validation {

// A JSON value that may be absent; null is stored as absent.
using MaybeJson = std::optional<JsonView>;

// The member of an object, absent when the object or the member is missing or null.
MaybeJson member(MaybeJson object, std::string_view key);

// The value when it is a string.
std::optional<std::string_view> string_of(MaybeJson value);
// The value, or "" (Go's zero value) when it is absent or not a string.
std::string_view string_or_empty(MaybeJson value);
// The value when it is an integer that fits int64 (a float with an integral value counts, as
// the API server's decoder reads 2.0 as 2).
std::optional<std::int64_t> integer_of(MaybeJson value);
std::optional<bool> bool_of(MaybeJson value);
// The entries when the value is a list; empty otherwise.
std::vector<JsonView> items_of(MaybeJson value);
bool is_object(MaybeJson value);
bool is_list(MaybeJson value);

// Member by a run of keys: at(js, {"spec", "network", "subdomain"}).
MaybeJson at(MaybeJson value, std::initializer_list<std::string_view> keys);

// The bounds of Go's int32, the type of replicas, parallelism, completions and most other
// integer fields of a JobSet.
inline constexpr std::int64_t kMinInt32 = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();

// Go's int32(v) for a value already known to be an integer: keeps the low 32 bits, as a
// conversion of an out-of-range number would after the API server let it through.
std::int32_t wrap_int32(std::int64_t v);

// Plain JSON equality, independent of key order and of number spelling (1 == 1.0).
bool json_equal(MaybeJson a, MaybeJson b);

}  // namespace jobset_webhook::validation

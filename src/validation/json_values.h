#pragma once

// The scalars of a request as Go's typed decoding reads them: null is absent, numbers are the
// integers the API server stores, quantities are values. Shared by the semantic comparison and
// its fingerprints, which must agree value for value.

#include <cstdint>
#include <optional>

#include "jobset_webhook/json.h"
#include "jobset_webhook/validation/read.h"
#include "quantity.h"

namespace jobset_webhook::validation {

// The value, or absent when it is null.
MaybeJson present(JsonView v);
MaybeJson present(MaybeJson v);

bool has_type(MaybeJson v, simdjson::dom::element_type t);
bool is_number(JsonView v);

// A JSON number above int64's range as the uint64 Go would decode it into: a uint64, or a
// double with an integral value in [2^63, 2^64).
std::optional<std::uint64_t> big_unsigned(JsonView v);

// Numbers compare as the integers the API server stores when both are integers (an integral
// double such as 3.0 is the integer 3), exactly, never through a double: 9007199254740993 and
// 9007199254740992.0 differ. Other numbers compare as doubles.
bool numbers_equal(JsonView a, JsonView b);

bool is_zero(JsonView number);

// A string or a number: the JSON types the CRD allows for a quantity (anyOf integer, string).
bool is_quantity_json(JsonView v);

// The quantity a string or a JSON number holds. A number is read from the text the API server
// writes for it: integers in decimal, other numbers as the shortest text that reads back as the
// same double (Go's encoder and std::to_chars both write that).
std::optional<ExactQuantity> quantity_of(JsonView v);

}  // namespace jobset_webhook::validation

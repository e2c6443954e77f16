#pragma once

// A field error's bad value, printed once, the way apimachinery's field.Error prints it:
// strings Go-quoted ("bash:5.2", \" and \n escaped), numbers and bools bare (-1, true), null,
// objects and lists as compact JSON in Go's encoding (<, >, & as \u003c, \u003e, \u0026; keys
// sorted). Long values are elided so that a message stays readable: see kMaxValueBytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook::field {

// A printed value longer than this is cut at a character boundary and ends in "...".
inline constexpr std::size_t kMaxValueBytes = 80;

class BadValue {
 public:
  static BadValue of(JsonView value);
  static BadValue of(const Json& value);
  static BadValue string(std::string_view s);
  static BadValue integer(std::int64_t n);
  static BadValue boolean(bool b);
  static BadValue null();
  // No value at all: field.OmitValueType, which the API server gives a failed CEL rule of an object
  // or a list (apiextensions-apiserver v0.37.2, pkg/apiserver/schema/cel/validation.go), and
  // ErrorBody prints as the type alone ("Invalid value: <detail>").
  static BadValue omitted();

  // The value as printed in an error line, already elided; empty when omitted.
  const std::string& printed() const { return printed_; }
  bool is_omitted() const { return omitted_; }
  bool operator==(const BadValue&) const = default;

 private:
  explicit BadValue(std::string printed, bool omitted = false)
      : printed_(std::move(printed)), omitted_(omitted) {}
  std::string printed_;
  bool omitted_ = false;
};

// Decodes the UTF-8 sequence at s[i] into rune; returns its length, or 0 when the bytes there are
// not valid UTF-8 (overlong forms and surrogates included), which Go treats as one bad byte.
std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& rune);

// Go's strconv.Quote: printable UTF-8 kept, control characters and invalid bytes escaped.
std::string go_quote(std::string_view s);

// Compact JSON in Go's encoding/json style: object keys sorted, as Go writes a map, so that the
// printed value does not depend on the key order of the request.
std::string go_json(JsonView value);

// a < b in byte order, as std::string_view compares, deciding on the first byte without a call
// to memcmp when it differs: the walks that check each object's keys are in order (admission's
// duplicate check, the decision's fast paths) compare every key of a request with the one before.
inline bool key_less(std::string_view a, std::string_view b) {
  if (!a.empty() && !b.empty() && a[0] != b[0]) {
    return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(b[0]);
  }
  return a < b;
}

using Members = std::vector<std::pair<std::string_view, JsonView>>;

// The members of an object sorted by key (byte order). Of a key given twice, only the first, the
// one simdjson's at_key finds.
Members sorted_members(JsonObjectView object);

}  // namespace jobset_webhook::field

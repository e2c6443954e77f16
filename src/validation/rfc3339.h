#pragma once

// RFC 3339 times, as metav1.Time holds them: compared as instants, so that
// "2024-05-01T10:00:00+02:00" and "2024-05-01T08:00:00Z" are the same time.

#include <cstdint>
#include <optional>
#include <string_view>

namespace jobset_webhook::validation {

// Seconds and nanoseconds since 1970.
struct Instant {
  std::int64_t seconds = 0;
  std::int64_t nanos = 0;
  bool operator==(const Instant&) const = default;
};

// The instant of "2024-05-01T10:00:00.5+02:00" (T or t, Z or z or an offset, any number of
// fraction digits); nullopt for anything else.
std::optional<Instant> parse_time(std::string_view s);

// Go's zero time.Time, which is what an absent metav1.Time decodes to.
Instant zero_time();

}  // namespace jobset_webhook::validation

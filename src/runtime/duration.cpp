#include "jobset_webhook/runtime/duration.h"

#include <cstdint>
#include <limits>
#include <utility>

namespace jobset_webhook::runtime {
namespace {

using Nanos = std::int64_t;

// The unit at the front of text, and its length in bytes; {0, 0} when there is none.
std::pair<Nanos, std::size_t> unit_at(std::string_view text) {
  static constexpr std::pair<std::string_view, Nanos> kUnits[] = {
      {"ns", 1},
      {"us", 1'000},
      {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
      {"\xCE\xBCs", 1'000},  // U+03BC Greek mu
      {"ms", 1'000'000},
      {"s", 1'000'000'000},
      {"m", 60'000'000'000},
      {"h", 3'600'000'000'000},
  };
  // "ms" before "m" and "s": the longest unit that matches wins.
  std::pair<Nanos, std::size_t> best{0, 0};
  for (const auto& [name, nanos] : kUnits) {
    if (text.substr(0, name.size()) == name && name.size() > best.second)
      best = {nanos, name.size()};
  }
  return best;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  constexpr Nanos kMax = std::numeric_limits<Nanos>::max();
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return std::nullopt;

  // Summed as unsigned so that -9223372036854775808ns still fits before the sign is applied.
  std::uint64_t total = 0;
  const std::uint64_t limit = static_cast<std::uint64_t>(kMax) + (negative ? 1 : 0);
  while (!text.empty()) {
    std::uint64_t whole = 0;
    std::size_t whole_digits = 0;
    while (!text.empty() && is_digit(text[0])) {
      if (whole > (limit - static_cast<std::uint64_t>(text[0] - '0')) / 10) return std::nullopt;
      whole = whole * 10 + static_cast<std::uint64_t>(text[0] - '0');
      ++whole_digits;
      text.remove_prefix(1);
    }
    std::uint64_t fraction = 0, scale = 1;
    std::size_t fraction_digits = 0;
    if (!text.empty() && text[0] == '.') {
      text.remove_prefix(1);
      while (!text.empty() && is_digit(text[0])) {
        // Digits past nanosecond precision of an hour cannot change the result.
        if (scale < 1'000'000'000'000'000ULL) {
          fraction = fraction * 10 + static_cast<std::uint64_t>(text[0] - '0');
          scale *= 10;
        }
        ++fraction_digits;
        text.remove_prefix(1);
      }
    }
    if (whole_digits == 0 && fraction_digits == 0) return std::nullopt;
    const auto [unit, unit_length] = unit_at(text);
    if (unit_length == 0) return std::nullopt;
    text.remove_prefix(unit_length);

    const auto u = static_cast<std::uint64_t>(unit);
    if (whole > limit / u) return std::nullopt;
    std::uint64_t value = whole * u;
    const auto fractional =
        static_cast<std::uint64_t>(static_cast<long double>(fraction) * u / scale);
    if (value > limit - fractional) return std::nullopt;
    value += fractional;
    if (total > limit - value) return std::nullopt;
    total += value;
  }
  if (negative)
    return std::chrono::nanoseconds(total == limit ? std::numeric_limits<Nanos>::min()
                                                   : -static_cast<Nanos>(total));
  return std::chrono::nanoseconds(static_cast<Nanos>(total));
}

}  // namespace jobset_webhook::runtime

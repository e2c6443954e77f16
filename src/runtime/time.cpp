#include "jobset_webhook/runtime/time.h"

#include <cstdio>
#include <ctime>

namespace jobset_webhook::runtime {
namespace {

std::string format(std::chrono::system_clock::time_point t, bool micro) {
  using namespace std::chrono;
  const auto micros = duration_cast<microseconds>(t.time_since_epoch()).count();
  const auto seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  const int n =
      std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", utc.tm_year + 1900,
                    utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
  if (micro) {
    std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ".%06dZ",
                  static_cast<int>(micros % 1'000'000));
  } else {
    std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), "Z");
  }
  return text;
}

}  // namespace

std::string rfc3339_micro(std::chrono::system_clock::time_point t) { return format(t, true); }
std::string rfc3339(std::chrono::system_clock::time_point t) { return format(t, false); }

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  // "YYYY-MM-DDTHH:MM:SSZ": digits where the pattern has 'd', the separators exactly.
  constexpr std::string_view kPattern = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != kPattern.size()) return std::nullopt;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (kPattern[i] == 'd' ? !digit : text[i] != kPattern[i]) return std::nullopt;
  }
  const auto number = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  std::tm utc{};
  utc.tm_year = number(0, 4) - 1900;
  utc.tm_mon = number(5, 2) - 1;
  utc.tm_mday = number(8, 2);
  utc.tm_hour = number(11, 2);
  utc.tm_min = number(14, 2);
  utc.tm_sec = number(17, 2);
  if (utc.tm_mon > 11 || utc.tm_mday < 1 || utc.tm_mday > 31 || utc.tm_hour > 23 ||
      utc.tm_min > 59 || utc.tm_sec > 60)
    return std::nullopt;
  const std::time_t seconds = timegm(&utc);
  // timegm normalises (February 30 becomes March 2): only a date that round-trips is one.
  if (format(std::chrono::system_clock::from_time_t(seconds), false) != text) return std::nullopt;
  return std::chrono::system_clock::from_time_t(seconds);
}

}  // namespace jobset_webhook::runtime

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

}  // namespace jobset_webhook::runtime

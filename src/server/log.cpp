#include "jobset_webhook/server/log.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace jobset_webhook::server {
namespace {

constexpr std::string_view level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

// One write(2) per line: stderr is unbuffered, and a line written in pieces could interleave with
// another thread's.
void write_to_stderr(std::string_view line) {
  while (!line.empty()) {
    const auto n = ::write(STDERR_FILENO, line.data(), line.size());
    if (n <= 0) return;
    line.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) {
  for (const auto level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (text == level_name(level)) return level;
  }
  return std::nullopt;
}

std::string format_log_time(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto micros = duration_cast<microseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(micros % 1'000'000));
  return text;
}

Log::Log(LogLevel level, Sink sink)
    : level_(level), sink_(sink ? std::move(sink) : Sink(write_to_stderr)) {}

void Log::write(LogLevel level, std::string_view message, const Json& fields) const {
  if (!enabled(level)) return;
  try {
    Json line = Json::object();
    line["time"] = format_log_time(std::chrono::system_clock::now());
    line["level"] = level_name(level);
    line["msg"] = message;
    if (fields.is_object()) {
      for (const auto& [key, value] : fields.items()) line[key] = value;
    }
    sink_(line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n");
  } catch (...) {
    // Logging never takes a request down with it.
  }
}

}  // namespace jobset_webhook::server

#pragma once

// The log of both daemons (serve, scale-down-controller; --log-level, --log-format): one line per
// event on stderr, written whole so that lines from concurrent threads never interleave. JSON (the default), one object per line:
//   {"time":"2026-11-30T11:46:05.123456Z","level":"info","msg":"serving","port":9443}
// or text, for people reading a terminal: time, level, message, then key=value fields, with
// strings quoted (JSON-style) when they hold a space, a quote, '=' or a control character:
//   2026-11-30T11:46:05.123456Z INFO serving port=9443 address=127.0.0.1

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "jobset_webhook/json.h"

namespace jobset_webhook::runtime {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
enum class LogFormat { kJson, kText };

// "debug", "info", "warn" or "error"; nullopt for anything else.
std::optional<LogLevel> parse_log_level(std::string_view text);
// "json" or "text"; nullopt for anything else.
std::optional<LogFormat> parse_log_format(std::string_view text);

class Log {
 public:
  // Receives one complete line, newline included.
  using Sink = std::function<void(std::string_view line)>;

  // Lines below level are dropped. The default sink writes to stderr.
  explicit Log(LogLevel level, Sink sink = {}, LogFormat format = LogFormat::kJson);

  bool enabled(LogLevel level) const { return level >= level_; }

  // Writes {"time","level","msg", ...fields} (or its text form) when level is enabled. fields
  // must be an object.
  // Never throws: invalid UTF-8 is replaced, a failing sink is ignored.
  void write(LogLevel level, std::string_view message, const Json& fields = Json::object()) const;

  void debug(std::string_view message, const Json& fields = Json::object()) const {
    write(LogLevel::kDebug, message, fields);
  }
  void info(std::string_view message, const Json& fields = Json::object()) const {
    write(LogLevel::kInfo, message, fields);
  }
  void warn(std::string_view message, const Json& fields = Json::object()) const {
    write(LogLevel::kWarn, message, fields);
  }
  void error(std::string_view message, const Json& fields = Json::object()) const {
    write(LogLevel::kError, message, fields);
  }

 private:
  LogLevel level_;
  Sink sink_;
  LogFormat format_;
};

// The JSON form of one line: {"time","level","msg", ...fields}, compact, invalid UTF-8 replaced.
std::string format_json_line(std::string_view time, LogLevel level, std::string_view message,
                             const Json& fields);

// The text form of one line: "<time> <LEVEL> <msg> key=value ...\n".
std::string format_text_line(std::string_view time, LogLevel level, std::string_view message,
                             const Json& fields);

}  // namespace jobset_webhook::runtime

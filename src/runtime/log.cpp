#include "jobset_webhook/runtime/log.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "jobset_webhook/json_text.h"
#include "jobset_webhook/runtime/time.h"

namespace jobset_webhook::runtime {
namespace {

constexpr std::string_view level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

std::string dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A text-format value: bare when it reads unambiguously, JSON-quoted otherwise.
std::string text_value(const Json& value) {
  if (!value.is_string()) return dump(value);
  const auto& s = value.get_ref<const std::string&>();
  bool bare = !s.empty();
  for (const char c : s) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ||
        c == 0x7f) {
      bare = false;
      break;
    }
  }
  return bare ? s : dump(value);
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

// As dump() writes them; only text that is not valid UTF-8 goes through dump's replacement.
void append_log_string(std::string& line, std::string_view text) {
  if (!append_json_string(line, text, JsonEscapes::kStandard)) line += dump(Json(text));
}

void append_log_value(std::string& line, const Json& value) {
  switch (value.type()) {
    case Json::value_t::string: return append_log_string(line, value.get_ref<const std::string&>());
    case Json::value_t::boolean: line += value.get<bool>() ? "true" : "false"; return;
    case Json::value_t::number_integer:
      return append_json_integer(line, value.get<Json::number_integer_t>());
    case Json::value_t::number_unsigned:
      return append_json_integer(line, value.get<Json::number_unsigned_t>());
    default: line += dump(value);
  }
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) {
  for (const auto level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (text == level_name(level)) return level;
  }
  return std::nullopt;
}

std::optional<LogFormat> parse_log_format(std::string_view text) {
  if (text == "json") return LogFormat::kJson;
  if (text == "text") return LogFormat::kText;
  return std::nullopt;
}

std::string format_text_line(std::string_view time, LogLevel level, std::string_view message,
                             const Json& fields) {
  std::string line(time);
  line += ' ';
  for (const char c : level_name(level)) line += static_cast<char>(c - 'a' + 'A');
  line += ' ';
  line += message;
  if (fields.is_object()) {
    for (const auto& [key, value] : fields.items()) {
      line += ' ';
      line += key;
      line += '=';
      line += text_value(value);
    }
  }
  line += '\n';
  return line;
}

std::string format_json_line(std::string_view time, LogLevel level, std::string_view message,
                             const Json& fields) {
  const auto is_standard = [](const std::string& key) {
    return key == "time" || key == "level" || key == "msg";
  };
  const bool plain_fields =
      fields.is_object() && std::none_of(fields.items().begin(), fields.items().end(),
                                         [&](const auto& item) { return is_standard(item.key()); });
  if (!plain_fields) {
    // A field named like a standard member replaces it, as assigning members of one object does.
    Json line = Json::object();
    line["time"] = time;
    line["level"] = level_name(level);
    line["msg"] = message;
    if (fields.is_object()) {
      for (const auto& [key, value] : fields.items()) line[key] = value;
    }
    return dump(line) + "\n";
  }
  // The usual case, written member by member straight into the line: copying every field into
  // one object first, or a serializer per value, cost as much as the rest of a request's logging.
  std::string line = "{\"time\":";
  append_log_string(line, time);
  line += ",\"level\":";
  append_log_string(line, level_name(level));
  line += ",\"msg\":";
  append_log_string(line, message);
  for (const auto& [key, value] : fields.items()) {
    line += ',';
    append_log_string(line, key);
    line += ':';
    append_log_value(line, value);
  }
  line += "}\n";
  return line;
}

Log::Log(LogLevel level, Sink sink, LogFormat format)
    : level_(level), sink_(sink ? std::move(sink) : Sink(write_to_stderr)), format_(format) {}

void Log::write(LogLevel level, std::string_view message, const Json& fields) const {
  if (!enabled(level)) return;
  try {
    if (format_ == LogFormat::kText) {
      sink_(format_text_line(rfc3339_micro(std::chrono::system_clock::now()), level, message,
                             fields));
      return;
    }
    const auto time = rfc3339_micro(std::chrono::system_clock::now());
    sink_(format_json_line(time, level, message, fields));
  } catch (...) {
    // Logging never takes a request down with it.
  }
}

}  // namespace jobset_webhook::runtime

#include "jobset_webhook/runtime/log.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "jobset_webhook/runtime/time.h"

namespace runtime = jobset_webhook::runtime;

TEST_CASE("Log lines are one JSON object each, below the level dropped", "[runtime][log]") {
  std::vector<std::string> lines;
  const runtime::Log log(runtime::LogLevel::kInfo,
                         [&](std::string_view line) { lines.emplace_back(line); });
  log.debug("hidden");
  log.info("shown", {{"port", 9443}});
  log.error("bad bytes", {{"error", std::string("\xff")}});
  REQUIRE(lines.size() == 2);
  const auto first = jobset_webhook::Json::parse(lines[0]);
  CHECK(lines[0].back() == '\n');
  CHECK(first["level"] == "info");
  CHECK(first["msg"] == "shown");
  CHECK(first["port"] == 9443);
  CHECK(first["time"].get<std::string>().size() ==
        std::string("2026-11-30T11:46:05.123456Z").size());
  CHECK(jobset_webhook::Json::parse(lines[1])["error"] == "\xEF\xBF\xBD");
}

TEST_CASE("A JSON log line is written member by member, fields after the standard three",
          "[runtime][log]") {
  const std::string time = "2026-11-30T11:46:05.123456Z";
  jobset_webhook::Json fields = jobset_webhook::Json::object();
  fields["code"] = 200;
  fields["uid"] = "u\"1\xff";
  fields["allowed"] = true;
  CHECK(runtime::format_json_line(time, runtime::LogLevel::kInfo, "request", fields) ==
        R"({"time":"2026-11-30T11:46:05.123456Z","level":"info","msg":"request","code":200,)"
        "\"uid\":\"u\\\"1\xEF\xBF\xBD\",\"allowed\":true}\n");
  SECTION("every kind of value is written as nlohmann's dump writes it") {
    jobset_webhook::Json other = jobset_webhook::Json::object();
    other["negative"] = -7;
    other["unsigned"] = 18446744073709551615ULL;
    other["float"] = 0.25;
    other["null"] = nullptr;
    other["nested"] = {{"a", {1, "x\n<&>"}}};
    other["controls"] = "tab\t\x01\x7f";
    other["k\"ey"] = false;
    jobset_webhook::Json whole = {{"time", time}, {"level", "error"}, {"msg", "m\xff"}};
    for (const auto& [key, value] : other.items()) whole[key] = value;
    CHECK(runtime::format_json_line(time, runtime::LogLevel::kError, "m\xff", other) ==
          whole.dump(-1, ' ', false, jobset_webhook::Json::error_handler_t::replace) + "\n");
  }
  SECTION("a field named like a standard member replaces it in place") {
    fields["msg"] = "other";
    CHECK(runtime::format_json_line(time, runtime::LogLevel::kWarn, "request", fields) ==
          R"({"time":"2026-11-30T11:46:05.123456Z","level":"warn","msg":"other","code":200,)"
          "\"uid\":\"u\\\"1\xEF\xBF\xBD\",\"allowed\":true}\n");
  }
}

TEST_CASE("Times are RFC 3339 UTC, with microseconds (MicroTime, the log) or seconds (Time)",
          "[runtime][time]") {
  const auto t =
      std::chrono::system_clock::time_point(std::chrono::microseconds(1'796'039'165'123'456LL));
  CHECK(runtime::rfc3339_micro(t) == "2026-11-30T11:46:05.123456Z");
  CHECK(runtime::rfc3339(t) == "2026-11-30T11:46:05Z");
  CHECK(runtime::rfc3339(std::chrono::system_clock::time_point{}) == "1970-01-01T00:00:00Z");
}

TEST_CASE("A time rfc3339() wrote is read back; any other text is not", "[runtime][time]") {
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1'796'039'165LL));
  CHECK(runtime::parse_rfc3339("2026-11-30T11:46:05Z") == t);
  CHECK(runtime::parse_rfc3339(runtime::rfc3339(t)) == t);
  CHECK(runtime::parse_rfc3339("1970-01-01T00:00:00Z") == std::chrono::system_clock::time_point{});
  for (const char* bad : {"", "2026-11-30T11:46:05", "2026-11-30T11:46:05.5Z",
                          "2026-11-30T11:46:05+00:00", "2026-02-30T11:46:05Z",
                          "2026-11-30t11:46:05Z", "2026-13-01T00:00:00Z", "2026-11-30T24:00:00Z"}) {
    DYNAMIC_SECTION(bad) { CHECK_FALSE(runtime::parse_rfc3339(bad).has_value()); }
  }
}

TEST_CASE("Log levels parse by name", "[runtime][log]") {
  CHECK(runtime::parse_log_level("debug") == runtime::LogLevel::kDebug);
  CHECK(runtime::parse_log_level("warn") == runtime::LogLevel::kWarn);
  CHECK_FALSE(runtime::parse_log_level("verbose").has_value());
}

TEST_CASE("The text log format is time, level, message and key=value fields, quoted when needed",
          "[runtime][log]") {
  jobset_webhook::Json fields = jobset_webhook::Json::object();
  fields["port"] = 9443;
  fields["address"] = "127.0.0.1";
  fields["error"] = "a \"quoted\" reason";
  fields["empty"] = "";
  fields["ok"] = false;
  fields["dryRun"] = nullptr;
  fields["eq"] = "a=b";
  fields["nl"] = "line\nnext";
  CHECK(runtime::format_text_line("2026-11-30T11:46:05.123456Z", runtime::LogLevel::kWarn,
                                  "serving", fields) ==
        "2026-11-30T11:46:05.123456Z WARN serving port=9443 address=127.0.0.1 "
        R"(error="a \"quoted\" reason" empty="" ok=false dryRun=null eq="a=b" nl="line\nnext")"
        "\n");

  std::vector<std::string> lines;
  const runtime::Log log(
      runtime::LogLevel::kInfo, [&](std::string_view line) { lines.emplace_back(line); },
      runtime::LogFormat::kText);
  log.info("request", {{"code", 200}});
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].substr(27) == " INFO request code=200\n");
  CHECK(runtime::parse_log_format("text") == runtime::LogFormat::kText);
  CHECK(runtime::parse_log_format("json") == runtime::LogFormat::kJson);
  CHECK_FALSE(runtime::parse_log_format("logfmt").has_value());
}

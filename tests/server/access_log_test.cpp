#include "server/access_log.h"

#include <catch2/catch.hpp>

namespace server = jobset_webhook::server;

TEST_CASE("An access-log line carries the review's identity, decision, code and latency",
          "[server][access_log]") {
  server::AccessRecord record;
  record.method = "POST";
  record.path = "/validate-jobset-x-k8s-io-v1alpha2-jobset";
  record.remote = "127.0.0.1:51234";
  record.code = 200;
  record.latency_us = 412;
  record.review = jobset_webhook::admission::ReviewSummary{
      "u-1", "UPDATE", "default", "training",
      true,  false,    422,       {"spec.replicatedJobs[0].replicas"}};
  CHECK(
      server::access_fields(record).dump() ==
      R"({"method":"POST","path":"/validate-jobset-x-k8s-io-v1alpha2-jobset","remote":"127.0.0.1:51234",)"
      R"("code":200,"latencyUs":412,"uid":"u-1","operation":"UPDATE","namespace":"default","name":"training",)"
      R"("dryRun":true,"allowed":false})");
}

TEST_CASE("A refused request's access-log line says why, without review fields",
          "[server][access_log]") {
  server::AccessRecord record;
  record.method = "GET";
  record.path = "/validate-jobset-x-k8s-io-v1alpha2-jobset";
  record.remote = "127.0.0.1:51234";
  record.code = 405;
  record.latency_us = 20;
  record.error = "method GET is not allowed; use POST";
  CHECK(
      server::access_fields(record).dump() ==
      R"({"method":"GET","path":"/validate-jobset-x-k8s-io-v1alpha2-jobset","remote":"127.0.0.1:51234",)"
      R"("code":405,"latencyUs":20,"error":"method GET is not allowed; use POST"})");
}

TEST_CASE("Log lines are one JSON object each, below the level dropped", "[server][log]") {
  std::vector<std::string> lines;
  const server::Log log(server::LogLevel::kInfo,
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
          "[server][log]") {
  const std::string time = "2026-11-30T11:46:05.123456Z";
  jobset_webhook::Json fields = jobset_webhook::Json::object();
  fields["code"] = 200;
  fields["uid"] = "u\"1\xff";
  fields["allowed"] = true;
  CHECK(server::format_json_line(time, server::LogLevel::kInfo, "request", fields) ==
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
    CHECK(server::format_json_line(time, server::LogLevel::kError, "m\xff", other) ==
          whole.dump(-1, ' ', false, jobset_webhook::Json::error_handler_t::replace) + "\n");
  }
  SECTION("a field named like a standard member replaces it in place") {
    fields["msg"] = "other";
    CHECK(server::format_json_line(time, server::LogLevel::kWarn, "request", fields) ==
          R"({"time":"2026-11-30T11:46:05.123456Z","level":"warn","msg":"other","code":200,)"
          "\"uid\":\"u\\\"1\xEF\xBF\xBD\",\"allowed\":true}\n");
  }
}

TEST_CASE("Log times are RFC 3339 UTC with microseconds", "[server][log]") {
  const auto t =
      std::chrono::system_clock::time_point(std::chrono::microseconds(1'796'039'165'123'456LL));
  CHECK(server::format_log_time(t) == "2026-11-30T11:46:05.123456Z");
}

TEST_CASE("Log levels parse by name", "[server][log]") {
  CHECK(server::parse_log_level("debug") == server::LogLevel::kDebug);
  CHECK(server::parse_log_level("warn") == server::LogLevel::kWarn);
  CHECK_FALSE(server::parse_log_level("verbose").has_value());
}

TEST_CASE("The text log format is time, level, message and key=value fields, quoted when needed",
          "[server][log]") {
  jobset_webhook::Json fields = jobset_webhook::Json::object();
  fields["port"] = 9443;
  fields["address"] = "127.0.0.1";
  fields["error"] = "a \"quoted\" reason";
  fields["empty"] = "";
  fields["ok"] = false;
  fields["dryRun"] = nullptr;
  fields["eq"] = "a=b";
  fields["nl"] = "line\nnext";
  CHECK(server::format_text_line("2026-11-30T11:46:05.123456Z", server::LogLevel::kWarn, "serving",
                                 fields) ==
        "2026-11-30T11:46:05.123456Z WARN serving port=9443 address=127.0.0.1 "
        R"(error="a \"quoted\" reason" empty="" ok=false dryRun=null eq="a=b" nl="line\nnext")"
        "\n");

  std::vector<std::string> lines;
  const server::Log log(
      server::LogLevel::kInfo, [&](std::string_view line) { lines.emplace_back(line); },
      server::LogFormat::kText);
  log.info("request", {{"code", 200}});
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].substr(27) == " INFO request code=200\n");
  CHECK(server::parse_log_format("text") == server::LogFormat::kText);
  CHECK(server::parse_log_format("json") == server::LogFormat::kJson);
  CHECK_FALSE(server::parse_log_format("logfmt").has_value());
}

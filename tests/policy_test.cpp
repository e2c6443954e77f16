#include "jobset_webhook/policy.h"

#include <catch2/catch.hpp>

#include "jobset_webhook/scale_down_notice.h"

using jobset_webhook::Json;
using jobset_webhook::parse_policy;

TEST_CASE("An empty policy keeps the defaults", "[policy]") {
  const auto p = parse_policy(Json(nullptr));
  REQUIRE(p.ok());
  CHECK(p.value().elastic.replicas);
  CHECK_FALSE(p.value().elastic.parallelism);
  CHECK_FALSE(p.value().feature_gates.in_place_restart);
  CHECK_FALSE(p.value().feature_gates.restart_job);
}

TEST_CASE("Feature gates are read by upstream's gate names", "[policy]") {
  const auto p = parse_policy(
      Json::parse(R"({"featureGates": {"InPlaceRestart": true, "RestartJob": true}})"));
  REQUIRE(p.ok());
  CHECK(p.value().feature_gates.in_place_restart);
  CHECK(p.value().feature_gates.restart_job);
  CHECK(p.value().elastic.replicas);
}

TEST_CASE("elastic.scaleDown says who deletes the Jobs above replicas", "[policy]") {
  using ScaleDown = jobset_webhook::Policy::ScaleDown;
  CHECK(parse_policy(Json(nullptr)).value().elastic.scale_down == ScaleDown::kManual);
  const auto controller =
      parse_policy(Json::parse(R"({"elastic": {"scaleDown": "controller", "replicas": true}})"));
  REQUIRE(controller.ok());
  CHECK(controller.value().elastic.scale_down == ScaleDown::kController);
  CHECK(controller.value().elastic.replicas);
  const auto manual = parse_policy(Json::parse(R"({"elastic": {"scaleDown": "manual"}})"));
  REQUIRE(manual.ok());
  CHECK(manual.value().elastic.scale_down == ScaleDown::kManual);
}

TEST_CASE("scaleHazards.deny names the scale warnings refused instead", "[policy]") {
  using jobset_webhook::ScaleHazard;
  CHECK(parse_policy(Json(nullptr)).value().deny_scale_hazards.empty());
  const auto p = parse_policy(
      Json::parse(R"({"scaleHazards": {"deny": ["kueue", "successPolicy", "kueue"]}})"));
  REQUIRE(p.ok());
  CHECK(p.value().deny_scale_hazards ==
        std::vector<ScaleHazard>{ScaleHazard::kKueue, ScaleHazard::kSuccessPolicy});
  CHECK(p.value().denies(ScaleHazard::kKueue));
  CHECK_FALSE(p.value().denies(ScaleHazard::kDependsOn));
  for (const ScaleHazard h : jobset_webhook::kScaleHazards) {
    const auto one =
        parse_policy(Json{{"scaleHazards", {{"deny", {std::string(scale_hazard_name(h))}}}}});
    REQUIRE(one.ok());
    CHECK(one.value().denies(h));
  }
  CHECK(parse_policy(Json::parse(R"({"scaleHazards": {"deny": null}})")).ok());
}

TEST_CASE("elastic.scaleDownNoticeSeconds is the default scale-down notice, none when absent",
          "[policy]") {
  CHECK(parse_policy(Json(nullptr)).value().elastic.scale_down_notice_seconds == 0);
  const auto p = parse_policy(Json::parse(R"({"elastic": {"scaleDownNoticeSeconds": 300}})"));
  REQUIRE(p.ok());
  CHECK(p.value().elastic.scale_down_notice_seconds == 300);
}

TEST_CASE("A notice period is whole seconds, printed as Go prints a duration", "[policy]") {
  using jobset_webhook::notice_text;
  using jobset_webhook::parse_notice_seconds;
  CHECK(parse_notice_seconds("0") == 0);
  CHECK(parse_notice_seconds("20") == 20);
  CHECK(parse_notice_seconds("604800") == 604800);
  for (const char* bad : {"", "5m", "-1", " 30", "604801", "1e3", "99999999"}) {
    DYNAMIC_SECTION("\"" << bad << "\"") { CHECK_FALSE(parse_notice_seconds(bad).has_value()); }
  }
  CHECK(notice_text(0) == "0s");
  CHECK(notice_text(20) == "20s");
  CHECK(notice_text(90) == "1m30s");
  CHECK(notice_text(300) == "5m");
  CHECK(notice_text(5400) == "1h30m");
  CHECK(notice_text(3601) == "1h1s");
}

TEST_CASE("Policy switches are read", "[policy]") {
  const auto p =
      parse_policy(Json::parse(R"({"elastic": {"replicas": false, "parallelism": true}})"));
  REQUIRE(p.ok());
  CHECK_FALSE(p.value().elastic.replicas);
  CHECK(p.value().elastic.parallelism);
}

TEST_CASE("Unknown policy keys and wrong types are errors that name the key", "[policy]") {
  struct Case {
    const char* name;
    const char* doc;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"unknown top key", R"({"elastik": {}})",
       "policy: elastik: unknown key (known: elastic, featureGates, scaleHazards)"},
      {"unknown scale hazard", R"({"scaleHazards": {"deny": ["successPolicy", "indices"]}})",
       R"(policy: scaleHazards.deny: unknown scale hazard "indices" (known: globalIndex, )"
       R"(staleReplicaCounts, successPolicy, dependsOn, startupPolicy, kueue, restartJobIndex))"},
      {"scale hazards not a list", R"({"scaleHazards": {"deny": "kueue"}})",
       R"(policy: scaleHazards.deny: must be a list, got "kueue")"},
      {"unknown scaleHazards key", R"({"scaleHazards": {"warn": []}})",
       "policy: scaleHazards.warn: unknown key (known: deny)"},
      {"unknown nested key", R"({"elastic": {"replica": true}})",
       "policy: elastic.replica: unknown key (known: replicas, parallelism, scaleDown, "
       "scaleDownNoticeSeconds)"},
      {"scaleDown not a choice", R"({"elastic": {"scaleDown": "auto"}})",
       R"(policy: elastic.scaleDown: must be "controller" or "manual", got "auto")"},
      {"scaleDown not a string", R"({"elastic": {"scaleDown": true}})",
       R"(policy: elastic.scaleDown: must be "controller" or "manual", got true)"},
      {"notice in Go's duration form", R"({"elastic": {"scaleDownNoticeSeconds": "5m"}})",
       R"(policy: elastic.scaleDownNoticeSeconds: must be an integer from 0 to 604800, got "5m")"},
      {"negative notice", R"({"elastic": {"scaleDownNoticeSeconds": -1}})",
       "policy: elastic.scaleDownNoticeSeconds: must be an integer from 0 to 604800, got -1"},
      {"wrong type", R"({"elastic": {"replicas": "yes"}})",
       R"(policy: elastic.replicas: must be a boolean, got "yes")"},
      {"not a mapping", R"([1])", "policy: <root>: must be a mapping, got [1]"},
      {"elastic not a mapping", R"({"elastic": true})",
       "policy: elastic: must be a mapping, got true"},
      {"unknown gate", R"({"featureGates": {"ElasticJobSet": true}})",
       "policy: featureGates.ElasticJobSet: unknown key (known: InPlaceRestart, RestartJob)"},
      {"gate not a boolean", R"({"featureGates": {"RestartJob": 1}})",
       "policy: featureGates.RestartJob: must be a boolean, got 1"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto p = parse_policy(Json::parse(c.doc));
      REQUIRE_FALSE(p.ok());
      CHECK(p.failure().message == c.want);
    }
  }
}

// Found by fuzz_policy: a policy document holding a string with invalid UTF-8 made the message's
// Json::dump throw out of parse_policy, which promises never to throw.
TEST_CASE("A policy value with invalid UTF-8 is refused with a message, never an exception",
          "[policy]") {
  const auto p = parse_policy(Json("bad\xFF"));
  REQUIRE_FALSE(p.ok());
  CHECK(p.failure().message == "policy: <root>: must be a mapping, got \"bad\xEF\xBF\xBD\"");
  const auto q = parse_policy(Json{{"elastic", {{"replicas", "\xC3"}}}});
  REQUIRE_FALSE(q.ok());
  CHECK(q.failure().message == "policy: elastic.replicas: must be a boolean, got \"\xEF\xBF\xBD\"");
}

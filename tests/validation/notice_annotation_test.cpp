#include "jobset_webhook/validation/notice_annotation.h"

#include <catch2/catch.hpp>

#include "jobset_webhook/decide.h"
#include "jobset_webhook/scale_down_notice.h"
#include "support/jobset_builder.h"
#include "support/parsed.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::AdmissionRequest;
using jobset_webhook::Json;
using jobset_webhook::kNoticeSecondsAnnotation;
using jobset_webhook::Operation;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::Parsed;

namespace {

// A JobSet of one replicatedJob "workers" with replicas Jobs and, unless value is null, the
// notice annotation set to value.
Json noticed(const Json& value, int replicas = 2) {
  Json js = MakeJobSet("js")
                .Namespace("default")
                .ReplicatedJob(MakeReplicatedJob("workers").Replicas(replicas).Parallelism(1))
                .Obj();
  if (!value.is_null()) js["metadata"]["annotations"][kNoticeSecondsAnnotation] = value;
  return js;
}

std::string printed(const jobset_webhook::field::ErrorList& errs) {
  return jobset_webhook::field::to_string(errs);
}

std::string refusal(const std::string& shown) {
  return std::string("metadata.annotations[") + kNoticeSecondsAnnotation +
         "]: Invalid value: " + shown +
         ": must be a whole number of seconds from 0 to 604800, in digits only (\"300\" for 5m); "
         "the scale-down controller would give no notice";
}

}  // namespace

TEST_CASE("A notice annotation that is not whole seconds is refused on CREATE",
          "[validation][notice_annotation]") {
  for (const char* good : {"0", "300", "604800"}) {
    DYNAMIC_SECTION("\"" << good << "\"") {
      const Parsed js(noticed(good));
      CHECK(printed(v::validate_notice_annotation(std::nullopt, js)).empty());
    }
  }
  for (const char* bad : {"5m", "-1", "", " 30", "604801", "1.5", "0x10", "99999999"}) {
    DYNAMIC_SECTION("\"" << bad << "\"") {
      const Parsed js(noticed(bad));
      CHECK(printed(v::validate_notice_annotation(std::nullopt, js)) ==
            refusal("\"" + std::string(bad) + "\""));
    }
  }
  SECTION("no annotation") {
    const Parsed js(noticed(nullptr));
    CHECK(printed(v::validate_notice_annotation(std::nullopt, js)).empty());
  }
  SECTION("not a string (the API server never sends one)") {
    const Parsed js(noticed(300));
    CHECK(printed(v::validate_notice_annotation(std::nullopt, js)) == refusal("300"));
  }
}

TEST_CASE("A notice annotation is judged on UPDATE when it is new or changed",
          "[validation][notice_annotation]") {
  SECTION("added") {
    const Parsed old_js(noticed(nullptr)), new_js(noticed("5m"));
    CHECK(printed(v::validate_notice_annotation(old_js, new_js)) == refusal("\"5m\""));
  }
  SECTION("changed from valid to invalid") {
    const Parsed old_js(noticed("300")), new_js(noticed("300s"));
    CHECK(printed(v::validate_notice_annotation(old_js, new_js)) == refusal("\"300s\""));
  }
  SECTION("changed from one invalid value to another") {
    const Parsed old_js(noticed("5m")), new_js(noticed("10m"));
    CHECK(printed(v::validate_notice_annotation(old_js, new_js)) == refusal("\"10m\""));
  }
  SECTION("an invalid value stored before the rule, left as it is by a scale") {
    const Parsed old_js(noticed("5m", 2)), new_js(noticed("5m", 1));
    CHECK(printed(v::validate_notice_annotation(old_js, new_js)).empty());
  }
  SECTION("an invalid value stored, fixed") {
    const Parsed old_js(noticed("5m")), new_js(noticed("300"));
    CHECK(printed(v::validate_notice_annotation(old_js, new_js)).empty());
  }
}

namespace {

// What decide answers: a CREATE of new_js, or an UPDATE from old_js to it.
jobset_webhook::Decision decided(const Parsed& new_js, const Parsed* old_js = nullptr) {
  AdmissionRequest request;
  request.operation = old_js != nullptr ? Operation::kUpdate : Operation::kCreate;
  request.name = "js";
  request.object = new_js;
  if (old_js != nullptr) request.old_object = *old_js;
  return decide(request, Policy{});
}

}  // namespace

// Every front end asks decide: serve and review through the AdmissionReview, check directly.
TEST_CASE("decide refuses the invalid notice annotation", "[validation][notice_annotation]") {
  SECTION("CREATE") {
    const auto decision = decided(Parsed(noticed("5m")));
    CHECK_FALSE(decision.allowed);
    CHECK(printed(decision.errors) == refusal("\"5m\""));
  }
  SECTION("UPDATE: a scale-down that adds it") {
    const Parsed old_js(noticed(nullptr, 2));
    const auto decision = decided(Parsed(noticed("5m", 1)), &old_js);
    CHECK_FALSE(decision.allowed);
    CHECK(printed(decision.errors) == refusal("\"5m\""));
  }
  SECTION("UPDATE: a valid one") {
    const Parsed old_js(noticed(nullptr, 2));
    CHECK(decided(Parsed(noticed("60", 1)), &old_js).allowed);
  }
}

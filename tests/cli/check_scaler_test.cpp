// check and validate judge ReplicatedJobScalers as the API server and the webhook's scaler path
// do: the CRD's default and CEL rules first, in the API server's words, then the webhook's rules,
// whose message is byte for byte what `serve` answers on that path.

#include "cli/check.h"

#include <catch2/catch.hpp>

#include "cli/documents.h"
#include "cli/report.h"
#include "support/admission.h"
#include "support/jobset_builder.h"
#include "support/manifests.h"
#include "support/review_builder.h"
#include "support/scaler_builder.h"

namespace cli = jobset_webhook::cli;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::MakeReview;
using jobset_webhook::testing::MakeScaler;
using jobset_webhook::testing::manifests_of;
using jobset_webhook::testing::server_response;

namespace {

cli::Report validated(const std::vector<Json>& objects) {
  auto report = cli::validate_manifests(manifests_of(objects, "new.yaml"), Policy{});
  REQUIRE(report.ok());
  return std::move(report).value();
}

cli::Report checked(const std::vector<Json>& old_objects, const std::vector<Json>& new_objects) {
  auto report = cli::check_manifests(manifests_of(old_objects, "old.yaml"),
                                     manifests_of(new_objects, "new.yaml"), Policy{});
  REQUIRE(report.ok());
  return std::move(report).value();
}

Json without_replicas(Json scaler) {
  scaler["spec"].erase("replicas");
  return scaler;
}

}  // namespace

TEST_CASE("validate refuses a scaler by the CRD's CEL rules in the API server's words",
          "[cli][check][scaler]") {
  const auto report = validated({MakeScaler("s").MinReplicas(3).MaxReplicas(2).Obj()});
  REQUIRE(report.jobsets.size() == 1);
  const auto& result = report.jobsets[0];
  CHECK(result.kind == cli::kScalerKindName);
  CHECK_FALSE(result.allowed);
  // A rule of an object: the value is omitted (field.OmitValueType). CEL evaluates every rule,
  // and replicas 1 is below minReplicas too.
  CHECK(result.message ==
        "ReplicatedJobScaler.elastic.jobset-webhook.io \"s\" is invalid: [spec: Invalid value: "
        "minReplicas must be less than or equal to maxReplicas, spec: Invalid value: replicas must "
        "be greater than or equal to minReplicas]");
  REQUIRE(result.findings.size() == 2);
  CHECK(result.findings[0].where.to_string() == "new.yaml:7:1");  // spec:
  CHECK(report.denied() == 1);
  CHECK(report.summary() ==
        "validate: 0 JobSets: 0 denied, 0 allowed; 1 ReplicatedJobScaler: 1 denied, 0 allowed; "
        "0 other objects skipped");
}

TEST_CASE("validate applies the CRD's default replicas before its rules", "[cli][check][scaler]") {
  // replicas left out is 1 once stored, below minReplicas 2.
  const auto report = validated({without_replicas(MakeScaler("s").MinReplicas(2).Obj())});
  REQUIRE(report.jobsets.size() == 1);
  CHECK(report.jobsets[0].message ==
        "ReplicatedJobScaler.elastic.jobset-webhook.io \"s\" is invalid: spec: Invalid value: "
        "replicas must be greater than or equal to minReplicas");
  CHECK(validated({without_replicas(MakeScaler("s").Obj())}).denied() == 0);
}

TEST_CASE("validate's answer to a scaler the CRD lets through is the webhook's, as serve gives it",
          "[cli][check][scaler]") {
  const Json scaler = MakeScaler("s").JobSet("Not_A_Label").Obj();
  const auto report = validated({scaler});
  REQUIRE(report.jobsets.size() == 1);
  const auto response = server_response(MakeReview().Scaler().Create(scaler).Obj(), Policy{},
                                        Hook::kValidatingScaler);
  REQUIRE_FALSE(response.at("allowed").get<bool>());
  CHECK_FALSE(report.jobsets[0].allowed);
  CHECK(report.jobsets[0].message == response.at("status").at("message").get<std::string>());
  REQUIRE_FALSE(report.jobsets[0].findings.empty());
  CHECK(report.jobsets[0].findings[0].error.field == "spec.jobSetName");
}

TEST_CASE("check judges a changed scaler as an UPDATE and shows the old name",
          "[cli][check][scaler]") {
  const Json before = MakeScaler("s").Obj();
  const Json after = MakeScaler("s").JobSet("other").Obj();
  const auto report = checked({before}, {after});
  REQUIRE(report.jobsets.size() == 1);
  const auto& result = report.jobsets[0];
  CHECK(result.change == cli::Change::kUpdate);
  CHECK_FALSE(result.allowed);
  const auto response = server_response(MakeReview().Scaler().Update(before, after).Obj(), Policy{},
                                        Hook::kValidatingScaler);
  CHECK(result.message == response.at("status").at("message").get<std::string>());
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].error.to_string() ==
        "spec.jobSetName: Invalid value: \"other\": field is immutable");
  REQUIRE(result.findings[0].old_value);
  CHECK(result.findings[0].old_value->printed == "\"demo\"");
  // A scale within bounds is allowed.
  CHECK(checked({before}, {MakeScaler("s").Replicas(3).Obj()}).denied() == 0);
}

TEST_CASE("A JobSet and a scaler of one name are judged apart; a scaler only in --old is deleted",
          "[cli][check][scaler]") {
  const Json js =
      MakeJobSet("s").Namespace("default").ReplicatedJob(MakeReplicatedJob("workers")).Obj();
  const auto report = checked({js, MakeScaler("gone").Obj()}, {js, MakeScaler("s").Obj()});
  REQUIRE(report.jobsets.size() == 3);
  CHECK(report.jobsets[0].kind == cli::kJobSetKindName);
  CHECK(report.jobsets[0].change == cli::Change::kUpdate);
  CHECK(report.jobsets[1].kind == cli::kScalerKindName);
  CHECK(report.jobsets[1].change == cli::Change::kCreate);
  CHECK(report.jobsets[2].change == cli::Change::kDelete);
  CHECK(report.summary() ==
        "check: 1 JobSet: 0 denied, 1 allowed (1 updated, 0 created); 0 deleted; "
        "1 ReplicatedJobScaler: 0 denied, 1 allowed (0 updated, 1 created); 1 deleted; "
        "0 other objects skipped");
  const std::string text = cli::render(report, cli::Format::kText);
  CHECK_THAT(text,
             Catch::Contains("note: ReplicatedJobScaler default/gone deleted (only in --old)"));
  const Json json = Json::parse(cli::render(report, cli::Format::kJson));
  CHECK(json.at("jobsets").size() == 1);
  CHECK(json.at("scalers").size() == 2);
  CHECK(json.at("summary").at("jobsets") == 1);
  CHECK(json.at("summary").at("scalers").at("judged") == 1);
  CHECK(json.at("summary").at("scalers").at("deleted") == 1);
}

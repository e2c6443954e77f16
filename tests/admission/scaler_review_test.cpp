#include <string>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
#include "support/jobset_builder.h"
#include "support/review_builder.h"
#include "support/scaler_builder.h"

namespace admission = jobset_webhook::admission;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::MakeReview;
using jobset_webhook::testing::MakeScaler;

namespace {

std::string respond(const std::string& body, Hook hook = Hook::kValidatingScaler) {
  const auto r = admission::handle_review(body, Policy{}, hook);
  REQUIRE(r.ok());
  return r.value();
}

Json response_of(const std::string& body, Hook hook = Hook::kValidatingScaler) {
  return Json::parse(respond(body, hook))["response"];
}

const std::string kAllowed =
    R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true,"status":{"metadata":{},"code":200}}})";

// A 400 answer's status.message, after checking that it is one.
std::string bad_request_message(const Json& response) {
  CHECK(response["allowed"] == false);
  CHECK(response["status"]["code"] == 400);
  return response["status"].value("message", "");
}

}  // namespace

TEST_CASE("A scaler within its bounds is allowed on CREATE and UPDATE", "[admission][scaler]") {
  const auto scaler = MakeScaler("demo-workers").Replicas(2).MinReplicas(1).MaxReplicas(4).Obj();
  CHECK(respond(MakeReview().Scaler().Create(scaler).Text()) == kAllowed);
  const auto scaled = MakeScaler("demo-workers").Replicas(4).MinReplicas(1).MaxReplicas(4).Obj();
  CHECK(respond(MakeReview().Scaler().Update(scaler, scaled).Text()) == kAllowed);
}

TEST_CASE("A scaler's denial is the API server's 422 Invalid for its kind, with causes",
          "[admission][scaler]") {
  const auto bad = MakeScaler("demo-workers").Replicas(9).MinReplicas(5).MaxReplicas(3).Obj();
  CHECK(
      respond(MakeReview().Scaler().Create(bad).Text()) ==
      R"j({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)j"
      R"j("allowed":false,"status":{"metadata":{},"status":"Failure","message":"ReplicatedJobScaler.elastic.jobset-webhook.io \"demo-workers\" is invalid: )j"
      R"j(spec.minReplicas: Invalid value: 5: must be less than or equal to maxReplicas (3)",)j"
      R"j("reason":"Invalid","details":{"name":"demo-workers","group":"elastic.jobset-webhook.io","kind":"ReplicatedJobScaler","causes":[{"reason":"FieldValueInvalid",)j"
      R"j("message":"Invalid value: 5: must be less than or equal to maxReplicas (3)","field":"spec.minReplicas"}]},)j"
      R"j("code":422}}})j");
}

TEST_CASE("A scaler's names are DNS-1035 labels and immutable, through the review",
          "[admission][scaler]") {
  const auto upper = MakeScaler("demo-workers").JobSet("Demo").Obj();
  CHECK(response_of(MakeReview().Scaler().Create(upper).Text())["status"]["message"] ==
        "ReplicatedJobScaler.elastic.jobset-webhook.io \"demo-workers\" is invalid: "
        "spec.jobSetName: Invalid value: \"Demo\": a DNS-1035 label must consist of lower case "
        "alphanumeric characters or '-', start with an alphabetic character, and end with an "
        "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')");

  const auto stored = MakeScaler("demo-workers").Obj();
  const auto moved = MakeScaler("demo-workers").JobSet("other").Obj();
  const auto out = response_of(MakeReview().Scaler().Update(stored, moved).Text());
  CHECK(out["status"]["code"] == 422);
  CHECK(out["status"]["message"] ==
        "ReplicatedJobScaler.elastic.jobset-webhook.io \"demo-workers\" is invalid: "
        "spec.jobSetName: Invalid value: \"other\": field is immutable");
}

TEST_CASE("A scaler without spec is refused as required, as the schema would",
          "[admission][scaler]") {
  const auto out = response_of(
      MakeReview().Scaler().Create(MakeScaler("demo-workers").Unset("/spec").Obj()).Text());
  CHECK(out["status"]["code"] == 422);
  CHECK(out["status"]["message"] ==
        "ReplicatedJobScaler.elastic.jobset-webhook.io \"demo-workers\" is invalid: spec: "
        "Required value");
}

TEST_CASE("A scaler's DELETE and CONNECT are allowed", "[admission][scaler]") {
  for (const char* op : {"DELETE", "CONNECT"}) {
    DYNAMIC_SECTION(op) { CHECK(respond(MakeReview().Scaler().Operation(op).Text()) == kAllowed); }
  }
}

TEST_CASE("The scaler's hook never judges a JobSet, nor a JobSet's hook a scaler",
          "[admission][scaler]") {
  const auto js =
      MakeJobSet("js").Namespace("default").ReplicatedJob(MakeReplicatedJob("workers")).Obj();
  CHECK(bad_request_message(response_of(MakeReview().Create(js).Text())) ==
        "this webhook admits only elastic.jobset-webhook.io/v1alpha1 ReplicatedJobScaler "
        "objects, got jobset.x-k8s.io/v1alpha2 JobSet");
  const auto scaler = MakeReview().Scaler().Create(MakeScaler("demo-workers").Obj()).Text();
  for (const Hook hook : {Hook::kValidating, Hook::kMutating}) {
    CHECK(bad_request_message(response_of(scaler, hook)) ==
          "this webhook admits only jobset.x-k8s.io/v1alpha2 JobSet objects, got "
          "elastic.jobset-webhook.io/v1alpha1 ReplicatedJobScaler");
  }
}

TEST_CASE("A write through /scale sent to the scaler's hook is refused, not allowed unjudged",
          "[admission][scaler]") {
  // What the API server sends for replicatedjobscalers/scale: an autoscaling/v1 Scale, which
  // carries no bounds (the CRD's CEL rules judge that write).
  const Json scale = {{"apiVersion", "autoscaling/v1"},
                      {"kind", "Scale"},
                      {"metadata", {{"name", "demo-workers"}, {"namespace", "default"}}},
                      {"spec", {{"replicas", 5}}}};
  const auto body = MakeReview()
                        .Kind("autoscaling", "v1", "Scale", "replicatedjobscalers")
                        .Update(scale, scale)
                        .Text();
  CHECK(bad_request_message(response_of(body)) ==
        "this webhook admits only elastic.jobset-webhook.io/v1alpha1 ReplicatedJobScaler "
        "objects, got autoscaling/v1 Scale");
}

TEST_CASE("A malformed scaler review is a 400 that says what is wrong", "[admission][scaler]") {
  const auto scaler = MakeScaler("demo-workers").Obj();
  struct Case {
    std::string name;
    std::string body;
    std::string want;
  };
  const Case cases[] = {
      {"update without oldObject", MakeReview().Scaler().Operation("UPDATE").Object(scaler).Text(),
       "UPDATE request has no oldObject"},
      {"object not an object", MakeReview().Scaler().Create("demo").Text(),
       "request.object must be an object"},
      {"spec not an object",
       MakeReview().Scaler().Create(MakeScaler("s").Set("/spec", 3).Obj()).Text(),
       "request.object.spec must be an object"},
      {"oldObject spec not an object",
       MakeReview()
           .Scaler()
           .Update(MakeScaler("s").Set("/spec", Json::array()).Obj(), scaler)
           .Text(),
       "request.oldObject.spec must be an object"},
      {"no object", MakeReview().Scaler().Operation("CREATE").Text(), "request.object is missing"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(bad_request_message(response_of(c.body)) == c.want); }
  }
  CHECK_FALSE(admission::handle_review("{not json", Policy{}, Hook::kValidatingScaler).ok());
}

TEST_CASE("Without request.kind, the scaler's own apiVersion and kind are read",
          "[admission][scaler]") {
  auto review = MakeReview().Scaler().Create(MakeScaler("demo-workers").JobSet("Demo").Obj()).Obj();
  review["request"].erase("kind");
  CHECK(response_of(review.dump())["status"]["code"] == 422);
  review["request"]["object"]["kind"] = "JobSet";
  CHECK(bad_request_message(response_of(review.dump())) ==
        "this webhook admits only elastic.jobset-webhook.io/v1alpha1 ReplicatedJobScaler "
        "objects, got elastic.jobset-webhook.io/v1alpha1 JobSet");
}

TEST_CASE("A scaler review's summary names its denied fields", "[admission][scaler]") {
  const auto bad = MakeScaler("demo-workers").Replicas(0).MinReplicas(1).Obj();
  const auto answer = admission::answer_review(MakeReview().Scaler().Create(bad).Text(), Policy{},
                                               Hook::kValidatingScaler);
  REQUIRE(answer.ok());
  CHECK(answer.value().summary.code == 422);
  CHECK(answer.value().summary.name == "demo-workers");
  CHECK(answer.value().summary.denied_fields == std::vector<std::string>{"spec.replicas"});
}

#include "jobset_webhook/admission/review.h"

#include <functional>

#include <catch2/catch.hpp>

#include "support/jobset_builder.h"
#include "support/review_builder.h"

namespace admission = jobset_webhook::admission;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::MakeReview;

namespace {

// "js" in "default": one replicatedJob "workers" running this image.
Json jobset(const std::string& image, int replicas = 1) {
  return MakeJobSet("js")
      .Namespace("default")
      .ReplicatedJob(MakeReplicatedJob("workers").Replicas(replicas).Image(image))
      .Obj();
}

std::string respond(const std::string& body, Hook hook = Hook::kValidating) {
  const auto r = admission::handle_review(body, Policy{}, hook);
  REQUIRE(r.ok());
  return r.value();
}

}  // namespace

TEST_CASE("An allowed update answers as controller-runtime does", "[admission][review]") {
  CHECK(
      respond(MakeReview().Update(jobset("bash:5.1", 2), jobset("bash:5.1", 2)).Text()) ==
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true,"status":{"metadata":{},"code":200}}})");
}

TEST_CASE("A denied update is upstream's 422 Invalid with causes", "[admission][review]") {
  CHECK(
      respond(MakeReview().Update(jobset("bash:5.1"), jobset("bash:5.2")).Text()) ==
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)"
      R"("allowed":false,"status":{"metadata":{},"status":"Failure","message":"JobSet.jobset.x-k8s.io \"js\" is invalid: )"
      R"(spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: Invalid value: \"bash:5.2\": field is immutable",)"
      R"("reason":"Invalid","details":{"name":"js","group":"jobset.x-k8s.io","kind":"JobSet","causes":[{"reason":"FieldValueInvalid",)"
      R"("message":"Invalid value: \"bash:5.2\": field is immutable","field":"spec.replicatedJobs[0].template.spec.template.spec.containers[0].image"}]},)"
      R"("code":422}}})");
}

TEST_CASE("A scale is allowed with warnings", "[admission][review]") {
  const auto out = Json::parse(
      respond(MakeReview().Update(jobset("bash:5.1", 1), jobset("bash:5.1", 3)).Text()));
  CHECK(out["response"]["allowed"] == true);
  CHECK(
      out["response"]["warnings"] ==
      Json::array({"replicatedJob \"workers\" scaled up from 1 to 3: the JobSet controller will "
                   "create Jobs js-workers-1, js-workers-2",
                   "replicatedJob \"workers\" scaled up from 1 to 3: upstream's JobSet controller "
                   "writes the replica counts into the labels and annotations of a Job and its "
                   "pods only when it creates the Job, so until the JobSet restarts the Jobs that "
                   "exist and their pods (and a workload that reads the counts through the "
                   "downward API) keep the old ones: Job js-workers-0 keeps "
                   "jobset.sigs.k8s.io/replicatedjob-replicas, jobset.sigs.k8s.io/global-replicas "
                   "and jobset.sigs.k8s.io/group-replicas 1 (now 3)"}));
}

TEST_CASE("v1beta1 reviews are answered in v1beta1", "[admission][review]") {
  const auto out = Json::parse(respond(
      MakeReview().Update(jobset("a"), jobset("a")).ApiVersion("admission.k8s.io/v1beta1").Text()));
  CHECK(out["apiVersion"] == "admission.k8s.io/v1beta1");
}

TEST_CASE("DELETE and CONNECT are allowed", "[admission][review]") {
  for (const char* op : {"DELETE", "CONNECT"}) {
    DYNAMIC_SECTION(op) {
      const auto out = Json::parse(respond(MakeReview().Operation(op).Text()));
      CHECK(out["response"]["allowed"] == true);
    }
  }
}

TEST_CASE("Unusable AdmissionReviews get a 400 status that says what is wrong",
          "[admission][review]") {
  auto no_old = MakeReview().Operation("UPDATE").Object(jobset("a")).Obj();
  const auto bad_spec = MakeReview().Create(MakeJobSet("js").Set("/spec", "x").Obj()).Obj();
  auto bad_kind = MakeReview().Create(jobset("a")).Obj();
  bad_kind["request"]["kind"] = {{"group", "batch"}, {"version", "v1"}, {"kind", "Job"}};
  auto no_uid = MakeReview().Create(jobset("a")).Obj();
  no_uid["request"].erase("uid");
  const auto bad_op = MakeReview().Operation("PATCH").Object(jobset("a")).Obj();
  const auto bad_rjobs =
      MakeReview().Create(MakeJobSet("js").ReplicatedJobs(Json::object()).Obj()).Obj();
  struct Case {
    const char* name;
    std::string body;
    const char* want;
  };
  // The first three as text: bodies no builder makes (not an object, another kind, no request).
  const std::vector<Case> cases = {
      {"not an object", "[1,2]", "the body must be a JSON object (an AdmissionReview)"},
      {"not an AdmissionReview", R"({"kind":"Pod","apiVersion":"v1"})",
       "not an AdmissionReview: expected kind AdmissionReview and apiVersion admission.k8s.io/v1 "
       "or v1beta1"},
      {"no request", R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"})",
       "AdmissionReview has no request"},
      {"no uid", no_uid.dump(), "request.uid is missing"},
      {"unknown operation", bad_op.dump(),
       "request.operation must be one of CREATE, UPDATE, DELETE, CONNECT"},
      {"update without oldObject", no_old.dump(), "UPDATE request has no oldObject"},
      {"spec not an object", bad_spec.dump(), "request.object.spec must be an object"},
      {"replicatedJobs not a list", bad_rjobs.dump(),
       "request.object.spec.replicatedJobs must be a list"},
      {"not a JobSet", bad_kind.dump(),
       "this webhook admits only jobset.x-k8s.io/v1alpha2 JobSet objects, got batch/v1 Job"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto out = Json::parse(respond(c.body));
      CHECK(out["response"]["allowed"] == false);
      CHECK(out["response"]["status"]["code"] == 400);
      CHECK(out["response"]["status"]["message"] == c.want);
    }
  }
}

TEST_CASE("Bytes that are not JSON are a failure for the front end", "[admission][review]") {
  const auto r = admission::handle_review("{not json", Policy{}, Hook::kValidating);
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().code == jobset_webhook::StatusCode::kInvalidArgument);
  CHECK(r.failure().message.rfind("request body is not valid JSON: ", 0) == 0);
}

TEST_CASE("Deep nesting is refused, not recursed into", "[admission][review]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto r = admission::handle_review(deep, Policy{}, Hook::kValidating);
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().code == jobset_webhook::StatusCode::kInvalidArgument);
}

TEST_CASE("dryRun changes nothing in the answer", "[admission][review]") {
  const auto dry = MakeReview().Update(jobset("a"), jobset("b")).DryRun().Text();
  const auto wet = MakeReview().Update(jobset("a"), jobset("b")).Text();
  CHECK(respond(dry) == respond(wet));
}

TEST_CASE("The answer does not depend on the key order of the request", "[admission][review]") {
  const auto body = MakeReview().Update(jobset("a"), jobset("b", 2)).Obj();
  // nlohmann's ordered_json keeps insertion order: rebuild the review with keys reversed.
  std::function<Json(const Json&)> reverse = [&](const Json& j) -> Json {
    if (j.is_object()) {
      Json out = Json::object();
      std::vector<std::pair<std::string, Json>> items;
      for (const auto& [k, v] : j.items()) items.emplace_back(k, reverse(v));
      for (auto it = items.rbegin(); it != items.rend(); ++it) out[it->first] = it->second;
      return out;
    }
    if (j.is_array()) {
      Json out = Json::array();
      for (const auto& v : j) out.push_back(reverse(v));
      return out;
    }
    return j;
  };
  CHECK(respond(reverse(body).dump()) == respond(body.dump()));
}

TEST_CASE("Messages are encoded as Go encodes them", "[admission][review]") {
  const auto out = respond(MakeReview().Update(jobset("a"), jobset("<b>&")).Text());
  CHECK(out.find(R"(Invalid value: \"\u003cb\u003e\u0026\": field is immutable)") !=
        std::string::npos);
}

TEST_CASE("A valid create is allowed by the validating hook", "[admission][review][create]") {
  CHECK(
      respond(MakeReview().Create(jobset("bash:5.1")).Text()) ==
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true,"status":{"metadata":{},"code":200}}})");
}

TEST_CASE("A denied create carries upstream's plain errors as <nil> Internal errors",
          "[admission][review][create]") {
  const Json js = MakeJobSet("js")
                      .Namespace("default")
                      .ReplicatedJob(MakeReplicatedJob("workers").DependsOn("workers", "Ready"))
                      .Obj();
  CHECK(
      respond(MakeReview().Create(js).Text()) ==
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)"
      R"("allowed":false,"status":{"metadata":{},"status":"Failure","message":"JobSet.jobset.x-k8s.io \"js\" is invalid: )"
      R"(\u003cnil\u003e: Internal error: DependsOn can't be set for the first ReplicatedJob","reason":"Invalid","details":{"name":"js",)"
      R"("group":"jobset.x-k8s.io","kind":"JobSet","causes":[{"reason":"InternalError","message":"Internal error: DependsOn )"
      R"(can't be set for the first ReplicatedJob","field":"\u003cnil\u003e"}]},"code":422}}})");
}

TEST_CASE("The mutating hook answers a create with a base64 JSON Patch of the defaults",
          "[admission][review][create]") {
  // The patch is
  // [{"op":"add","path":"/spec/successPolicy","value":{"operator":"All"}},
  //  {"op":"add","path":"/spec/startupPolicy","value":{"startupPolicyOrder":"AnyOrder"}},
  //  {"op":"add","path":"/spec/replicatedJobs/0/template/spec/completionMode","value":"Indexed"},
  //  {"op":"add","path":"/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy","value":"OnFailure"},
  //  {"op":"add","path":"/spec/network","value":{"enableDNSHostnames":true,"publishNotReadyAddresses":true}}]
  CHECK(
      respond(MakeReview().Create(jobset("bash:5.1")).Text(), Hook::kMutating) ==
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)"
      R"("allowed":true,"status":{"metadata":{},"code":200},"patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvc3VjY2Vzc1BvbGljeSIsInZhbHVlIjp7Im9wZXJhdG9yIjoiQWxsIn19LHsib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvc3RhcnR1cFBvbGljeSIsInZhbHVlIjp7InN0YXJ0dXBQb2xpY3lPcmRlciI6IkFueU9yZGVyIn19LHsib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvcmVwbGljYXRlZEpvYnMvMC90ZW1wbGF0ZS9zcGVjL2NvbXBsZXRpb25Nb2RlIiwidmFsdWUiOiJJbmRleGVkIn0seyJvcCI6ImFkZCIsInBhdGgiOiIvc3BlYy9yZXBsaWNhdGVkSm9icy8wL3RlbXBsYXRlL3NwZWMvdGVtcGxhdGUvc3BlYy9yZXN0YXJ0UG9saWN5IiwidmFsdWUiOiJPbkZhaWx1cmUifSx7Im9wIjoiYWRkIiwicGF0aCI6Ii9zcGVjL25ldHdvcmsiLCJ2YWx1ZSI6eyJlbmFibGVETlNIb3N0bmFtZXMiOnRydWUsInB1Ymxpc2hOb3RSZWFkeUFkZHJlc3NlcyI6dHJ1ZX19XQ==",)"
      R"("patchType":"JSONPatch"}})");
}

TEST_CASE("The mutating hook gives back on UPDATE the completionMode a merge patch dropped",
          "[admission][review][update]") {
  // Stored: completionMode filled in on CREATE. Sent: kubectl apply's merge patch replaced the
  // list with the manifest's, which leaves it out, and scaled to 3.
  const Json stored = MakeJobSet("js")
                          .Namespace("default")
                          .ReplicatedJob(MakeReplicatedJob("workers").CompletionMode("Indexed"))
                          .Obj();
  // The patch is
  // [{"op":"add","path":"/spec/replicatedJobs/0/template/spec/completionMode","value":"Indexed"}]
  CHECK(
      respond(MakeReview().Update(stored, jobset("bash:5.1", 3)).Text(), Hook::kMutating) ==
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)"
      R"("allowed":true,"status":{"metadata":{},"code":200},"patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvcmVwbGljYXRlZEpvYnMvMC90ZW1wbGF0ZS9zcGVjL2NvbXBsZXRpb25Nb2RlIiwidmFsdWUiOiJJbmRleGVkIn1d",)"
      R"("patchType":"JSONPatch"}})");
}

TEST_CASE(
    "The mutating hook sends no patch when nothing needs defaulting, nor for an update of "
    "an object stored without defaults",
    "[admission][review][create]") {
  const Json full =
      MakeJobSet("js")
          .Namespace("default")
          .SuccessPolicy({{"operator", "All"}})
          .StartupPolicy("AnyOrder")
          .Network({{"enableDNSHostnames", false}, {"publishNotReadyAddresses", false}})
          .ReplicatedJob(MakeReplicatedJob("workers")
                             .CompletionMode("NonIndexed")
                             .PodSpec("restartPolicy", "Never"))
          .Obj();
  const std::string allowed =
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true,"status":{"metadata":{},"code":200}}})";
  CHECK(respond(MakeReview().Create(full).Text(), Hook::kMutating) == allowed);
  // On UPDATE only defaults the stored object holds come back (none here: the old object has
  // none), and a mutating hook does not judge.
  CHECK(respond(MakeReview().Update(jobset("bash:5.1"), jobset("bash:5.2")).Text(),
                Hook::kMutating) == allowed);
}

TEST_CASE("The mutating hook does not validate a create", "[admission][review][create]") {
  const Json js = MakeJobSet("js")
                      .Namespace("default")
                      .ReplicatedJob(MakeReplicatedJob("workers").DependsOn("workers", "Ready"))
                      .Obj();
  const auto out = Json::parse(respond(MakeReview().Create(js).Text(), Hook::kMutating));
  CHECK(out["response"]["allowed"] == true);
  CHECK(out["response"]["patchType"] == "JSONPatch");
}

TEST_CASE("answer_review gives handle_review's bytes and a summary for the access log",
          "[admission][review]") {
  const auto body = MakeReview().Update(jobset("a"), jobset("b")).DryRun().Text();
  const auto answer = admission::answer_review(body, Policy{}, Hook::kValidating);
  REQUIRE(answer.ok());
  CHECK(answer.value().body == respond(body));
  const auto& s = answer.value().summary;
  CHECK(s.uid == "705ab4f5-6393-11e8-b7cc-42010a800002");
  CHECK(s.operation == "UPDATE");
  CHECK(s.ns == "default");
  CHECK(s.name == "js");
  CHECK(s.dry_run);
  CHECK_FALSE(s.allowed);
  CHECK(s.code == 422);
}

TEST_CASE("The summary of an unusable review says what it carried and that it was refused",
          "[admission][review]") {
  // As text: a review without the members the builder always writes (kind, dryRun, namespace).
  const auto answer =
      admission::answer_review(R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",
    "request":{"uid":"u-9","operation":"PATCH","object":{"metadata":{"name":"from-object"}}}})",
                               Policy{}, Hook::kMutating);
  REQUIRE(answer.ok());
  const auto& s = answer.value().summary;
  CHECK(s.uid == "u-9");
  CHECK(s.operation == "PATCH");
  CHECK(s.name == "from-object");
  CHECK(s.ns.empty());
  CHECK_FALSE(s.dry_run);
  CHECK_FALSE(s.allowed);
  CHECK(s.code == 400);
  CHECK_FALSE(admission::answer_review("{", Policy{}, Hook::kValidating).ok());
}

TEST_CASE("A padded body is parsed in place and answered with the same bytes",
          "[admission][review]") {
  const auto answer_both = [](const std::string& text) {
    std::string padded = text;
    padded.reserve(text.size() + admission::kInPlacePadding);
    // Whatever the padding holds must not matter: fill it with what would break a parse.
    padded.append(admission::kInPlacePadding, '"');
    padded.resize(text.size());
    const auto plain = admission::answer_review(text, Policy{}, Hook::kValidating);
    const auto in_place = admission::answer_padded_review(padded, Policy{}, Hook::kValidating);
    REQUIRE(plain.ok() == in_place.ok());
    return plain.ok() ? std::make_pair(plain.value().body, in_place.value().body)
                      : std::make_pair(plain.failure().message, in_place.failure().message);
  };
  for (const auto& text :
       {MakeReview().Update(jobset("a"), jobset("b")).Text(),
        MakeReview().Create(jobset("a")).Text(), std::string("{\"kind\":"), std::string("[1,2")}) {
    const auto [plain, in_place] = answer_both(text);
    CHECK(plain == in_place);
  }
}

#pragma once

// Test helper: small JobSets and UPDATE AdmissionReviews to build hostile requests from, shared by
// the core's hostile-input tests and the server's (which send the same bodies over HTTPS). The
// requests are made with the builders, then edited as text where the hostile part is in the bytes
// (a key given twice, invalid UTF-8, numbers beyond int64, nesting no builder would write).

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "jobset_webhook/json.h"
#include "support/jobset_builder.h"
#include "support/review_builder.h"

namespace jobset_webhook::testing {

// "js" in "default" with this list of replicatedJobs.
inline Json jobset_of(Json replicated_jobs) {
  return MakeJobSet("js").Namespace("default").ReplicatedJobs(std::move(replicated_jobs)).Obj();
}

// "js" in "default" with one replicatedJob "w" (image bash:5.1).
inline Json small_jobset() {
  return MakeJobSet("js").Namespace("default").ReplicatedJob(MakeReplicatedJob("w")).Obj();
}

// The UPDATE hostile requests are made from, as text: uid "u-1" (tests replace its bytes).
inline std::string update_text(const Json& old_object, const Json& object,
                               const std::string& uid = "u-1") {
  return MakeReview().Update(old_object, object).Uid(uid).Text();
}

inline std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// A hostile AdmissionReview body and what the server must answer: HTTP 400 with exactly
// failure_body, or HTTP 200 with an AdmissionReview whose response has `allowed` and, when not
// empty, a status.message containing message_part.
struct HostileReview {
  std::string name;
  std::string body;
  int http_status = 200;
  std::string failure_body;
  bool allowed = false;
  std::string message_part;
};

// Hostile bodies, each a few bytes to a few MiB (all under serve's 7 MiB limit).
inline std::vector<HostileReview> hostile_reviews() {
  const std::string plain = update_text(small_jobset(), small_jobset());
  const auto not_json = [](const std::string& why) {
    return R"({"code":400,"message":"request body is not valid JSON: )" + why + R"("})";
  };
  std::vector<HostileReview> out;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  out.push_back({"JSON nested 100,000 levels deep inside request.object",
                 replace_once(plain, "\"main\"", deep), 400,
                 not_json("The JSON document was too deep (too many nested objects and arrays)"),
                 false, ""});
  out.push_back({"invalid UTF-8 (0xFF) in the uid", replace_once(plain, "\"u-1\"", "\"u\xFF\""),
                 400, not_json("The input is not valid UTF-8"), false, ""});
  out.push_back({"invalid UTF-8 (an overlong '/') in an image",
                 replace_once(plain, "\"bash:5.1\"",
                              "\"bash\xC0\xAF"
                              "5.1\""),
                 400, not_json("The input is not valid UTF-8"), false, ""});
  out.push_back({"a key given twice in one object",
                 replace_once(plain, "\"replicas\":1", "\"replicas\":1,\"replicas\":5"), 200, "",
                 false,
                 "the request holds the JSON key \"replicas\" twice in one object; refused because "
                 "decoders disagree on which one counts"});
  out.push_back({"replicas beyond int32",
                 replace_once(plain, "\"replicas\":1", "\"replicas\":2147483648"), 200, "", false,
                 "Invalid value: 2147483648: must be less than or equal to 2147483647"});
  out.push_back({"replicas beyond int64",
                 replace_once(plain, "\"replicas\":1", "\"replicas\":99999999999999999999"), 400,
                 not_json("Problem while parsing a number"), false, ""});
  const std::string big_a(1 << 20, 'a'), big_b(1 << 20, 'b');
  const auto labelled = [](const std::string& value) {
    return MakeJobSet("js")
        .Namespace("default")
        .Label("big", value)
        .ReplicatedJob(MakeReplicatedJob("w"))
        .Obj();
  };
  out.push_back({"a 1 MiB label value, changed in the JobSet's metadata",
                 update_text(labelled(big_a), labelled(big_b)), 200, "", true, ""});
  const auto pod_labelled = [](const std::string& value) {
    return MakeJobSet("js")
        .Namespace("default")
        .ReplicatedJob(MakeReplicatedJob("w").PodLabel("big", value))
        .Obj();
  };
  out.push_back({"a 1 MiB pod-template label value that changes",
                 update_text(pod_labelled(big_a), pod_labelled(big_b)), 200, "", false,
                 "Invalid value: \"" + std::string(75, 'b') + "...\": field is immutable"});
  Json old_jobs = Json::array(), scaled = Json::array(), changed = Json::array();
  for (int i = 0; i < 10000; ++i) {
    const std::string name = "rj-" + std::to_string(i);
    old_jobs.push_back(MakeReplicatedJob(name).Obj());
    scaled.push_back(MakeReplicatedJob(name).Replicas(3).Obj());
    changed.push_back(MakeReplicatedJob(name).Image("bash:5.2").Obj());
  }
  out.push_back({"10,000 replicatedJobs, all scaled",
                 update_text(jobset_of(old_jobs), jobset_of(scaled)), 200, "", true, ""});
  out.push_back({"10,000 replicatedJobs, every image changed",
                 update_text(jobset_of(old_jobs), jobset_of(changed)), 200, "", false,
                 ", and 9990 more]"});
  return out;
}

}  // namespace jobset_webhook::testing

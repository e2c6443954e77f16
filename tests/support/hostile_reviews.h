#pragma once

// Test helper: small JobSets and UPDATE AdmissionReviews to build hostile requests from, shared by
// the core's hostile-input tests and the server's (which send the same bodies over HTTPS).

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "jobset_webhook/json.h"

namespace jobset_webhook::testing {

inline Json replicated_job(const std::string& name, const std::string& image = "bash:5.1") {
  return {
      {"name", name},
      {"replicas", 1},
      {"template",
       {{"spec",
         {{"template", {{"spec", {{"containers", {{{"name", "main"}, {"image", image}}}}}}}}}}}}};
}

inline Json jobset(Json replicated_jobs) {
  return {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
          {"kind", "JobSet"},
          {"metadata", {{"name", "js"}, {"namespace", "default"}}},
          {"spec", {{"replicatedJobs", std::move(replicated_jobs)}}}};
}

inline std::string update(const Json& object, const Json& old_object,
                          const std::string& uid = "u-1") {
  return Json{
      {"apiVersion", "admission.k8s.io/v1"},
      {"kind", "AdmissionReview"},
      {"request",
       {{"uid", uid},
        {"kind", {{"group", "jobset.x-k8s.io"}, {"version", "v1alpha2"}, {"kind", "JobSet"}}},
        {"operation", "UPDATE"},
        {"object", object},
        {"oldObject", old_object}}}}
      .dump();
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
  const std::string plain = update(jobset({replicated_job("w")}), jobset({replicated_job("w")}));
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
  Json labelled_old = jobset({replicated_job("w")});
  labelled_old["metadata"]["labels"] = {{"big", big_a}};
  Json labelled_new = labelled_old;
  labelled_new["metadata"]["labels"]["big"] = big_b;
  out.push_back({"a 1 MiB label value, changed in the JobSet's metadata",
                 update(labelled_new, labelled_old), 200, "", true, ""});
  Json template_old = jobset({replicated_job("w")});
  template_old["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = {
      {"labels", {{"big", big_a}}}};
  Json template_new = template_old;
  template_new["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["labels"]
              ["big"] = big_b;
  out.push_back({"a 1 MiB pod-template label value that changes",
                 update(template_new, template_old), 200, "", false,
                 "Invalid value: \"" + std::string(75, 'b') + "...\": field is immutable"});
  Json old_jobs = Json::array(), scaled = Json::array(), changed = Json::array();
  for (int i = 0; i < 10000; ++i) {
    const std::string name = "rj-" + std::to_string(i);
    old_jobs.push_back(replicated_job(name));
    scaled.push_back(replicated_job(name));
    scaled.back()["replicas"] = 3;
    changed.push_back(replicated_job(name, "bash:5.2"));
  }
  out.push_back({"10,000 replicatedJobs, all scaled", update(jobset(scaled), jobset(old_jobs)), 200,
                 "", true, ""});
  out.push_back({"10,000 replicatedJobs, every image changed",
                 update(jobset(changed), jobset(old_jobs)), 200, "", false, ", and 9990 more]"});
  return out;
}

}  // namespace jobset_webhook::testing

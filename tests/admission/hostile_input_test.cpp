// Hostile and broken AdmissionReviews against the decision core: each gets a clean refusal or a
// correct answer, never a crash, a hang or a wrong allow. docs/reliability.md lists them with the
// observed results. Sizes are checked by counting (causes, bytes), never by timing.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"
#include "support/hostile_reviews.h"

namespace admission = jobset_webhook::admission;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::jobset_of;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::replace_once;
using jobset_webhook::testing::small_jobset;
using jobset_webhook::testing::update_text;

namespace {

// The response of a body that must get one; Json::parse also checks that it is valid UTF-8.
Json response_of(const std::string& body) {
  const auto r = admission::handle_review(body, Policy{}, Hook::kValidating);
  REQUIRE(r.ok());
  return Json::parse(r.value())["response"];
}

std::string failure_of(const std::string& body) {
  const auto r = admission::handle_review(body, Policy{}, Hook::kValidating);
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().code == jobset_webhook::StatusCode::kInvalidArgument);
  return r.failure().message;
}

}  // namespace

TEST_CASE("An empty body, or one of only whitespace, is refused as not JSON",
          "[admission][hostile]") {
  for (const std::string body : {"", " ", "\n\t \r\n"}) {
    DYNAMIC_SECTION("body of " << body.size() << " bytes") {
      CHECK(failure_of(body) == "request body is not valid JSON: Empty: no JSON found");
    }
  }
}

TEST_CASE("JSON nested 100,000 levels deep is refused without recursing", "[admission][hostile]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string want =
      "request body is not valid JSON: The JSON document was too deep (too many nested objects and "
      "arrays)";
  CHECK(failure_of(deep) == want);
  CHECK(failure_of(replace_once(update_text(small_jobset(), small_jobset()), "\"main\"", deep)) ==
        want);
  const std::string deep_objects = [] {
    std::string s;
    for (int i = 0; i < 100000; ++i) s += "{\"a\":";
    return s + "1" + std::string(100000, '}');
  }();
  CHECK(failure_of(deep_objects) == want);
}

TEST_CASE("A value nested 1,000 levels deep is compared, reported and freed",
          "[admission][hostile]") {
  const auto nested = [](int leaf) {
    Json v = leaf;
    for (int i = 0; i < 1000; ++i) v = Json{{"a", std::move(v)}};
    return v;
  };
  const auto with_x = [](Json x) {
    return MakeJobSet("js")
        .Namespace("default")
        .ReplicatedJob(MakeReplicatedJob("w").JobSpec("x", std::move(x)))
        .Obj();
  };
  const Json old_js = with_x(nested(1)), new_js = with_x(nested(2));
  const Json same = response_of(update_text(old_js, old_js));
  CHECK(same["allowed"] == true);
  const Json changed = response_of(update_text(old_js, new_js));
  CHECK(changed["allowed"] == false);
  REQUIRE(changed["status"]["details"]["causes"].size() == 1);
  std::string path = "spec.replicatedJobs[0].template.spec.x";
  for (int i = 0; i < 1000; ++i) path += ".a";
  CHECK(changed["status"]["details"]["causes"][0]["field"] == path);
  CHECK(changed["status"]["details"]["causes"][0]["message"] ==
        "Invalid value: 2: field is immutable");
}

TEST_CASE("Invalid UTF-8 in any string is refused as not JSON", "[admission][hostile]") {
  const std::string body = update_text(small_jobset(), small_jobset());
  const std::vector<std::pair<std::string, std::string>> places = {
      {"uid", "\"u-1\""}, {"name", "\"js\""}, {"image", "\"bash:5.1\""}};
  const std::vector<std::pair<std::string, std::string>> bytes = {
      {"a lone continuation byte", "\x80"},     {"0xff", "\xFF"},
      {"a truncated sequence", "\xC3"},         {"an overlong slash", "\xC0\xAF"},
      {"an encoded surrogate", "\xED\xA0\x80"}, {"beyond U+10FFFF", "\xF4\x90\x80\x80"}};
  for (const auto& [where, original] : places) {
    for (const auto& [what, bad] : bytes) {
      DYNAMIC_SECTION(what << " in " << where) {
        const std::string hostile = replace_once(body, original, "\"x" + bad + "y\"");
        CHECK(failure_of(hostile) ==
              "request body is not valid JSON: The input is not valid UTF-8");
      }
    }
  }
  SECTION("an escaped lone surrogate") {
    CHECK(failure_of(replace_once(body, "\"u-1\"", R"("x\ud800y")")) ==
          "request body is not valid JSON: Problem while parsing a string");
    CHECK(failure_of(replace_once(body, "\"bash:5.1\"", R"("x\udc00y")")) ==
          "request body is not valid JSON: Problem while parsing a string");
  }
}

TEST_CASE("Unusual but valid UTF-8 is echoed exactly and escaped as Go escapes it",
          "[admission][hostile]") {
  const std::string uid =
      "u\xE2\x80\xA8<&>\xF0\x9F\x98\x80\x01";  // U+2028, HTML characters, an emoji, a control
  const auto named = [](const std::string& image) {
    return MakeJobSet("js\xE2\x80\xA9")
        .Namespace("default")
        .ReplicatedJob(MakeReplicatedJob("w").Image(image))
        .Obj();
  };
  const auto raw = admission::handle_review(
      update_text(named("bash:5.1"), named("b\xE2\x80\xA8"), uid), Policy{}, Hook::kValidating);
  REQUIRE(raw.ok());
  CHECK(raw.value().find("\"uid\":\"u\\u2028\\u003c\\u0026\\u003e\xF0\x9F\x98\x80\\u0001\"") !=
        std::string::npos);
  const Json r = Json::parse(raw.value())["response"];
  CHECK(r["uid"] == uid);
  CHECK(r["allowed"] == false);
  CHECK(r["status"]["message"] ==
        "JobSet.jobset.x-k8s.io \"js\\u2029\" is invalid: "
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: "
        "Invalid value: \"b\\u2028\": field is immutable");
}

TEST_CASE("A request with a JSON key given twice is refused with 400", "[admission][hostile]") {
  const std::string body = update_text(small_jobset(), small_jobset());
  auto labelled_builder = MakeJobSet("js").Namespace("default");
  for (int i = 0; i < 40; ++i) labelled_builder.Label("label-" + std::to_string(i), "v");
  const Json labelled = labelled_builder.ReplicatedJob(MakeReplicatedJob("w")).Obj();
  struct Case {
    std::string name, body, key;
  };
  const std::vector<Case> cases = {
      // Go would read replicas 5 and the new image; simdjson's first-wins lookup would not.
      {"replicas in the new object",
       replace_once(body, "\"replicas\":1", "\"replicas\":1,\"replicas\":5"), "replicas"},
      {"image in the old object",
       replace_once(body, "\"image\":\"bash:5.1\"}]}}}}}]}}}}",
                    "\"image\":\"bash:5.1\",\"image\":\"x\"}]}}}}}]}}}}"),
       "image"},
      {"the uid", replace_once(body, "\"uid\":\"u-1\"", "\"uid\":\"u-1\",\"uid\":\"u-2\""), "uid"},
      {"a label of a map with 41 keys",
       replace_once(update_text(labelled, labelled), "\"label-39\":\"v\"",
                    "\"label-39\":\"v\",\"label-7\":\"w\""),
       "label-7"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const Json r = response_of(c.body);
      CHECK(r["uid"] == "u-1");
      CHECK(r["allowed"] == false);
      CHECK(r["status"]["code"] == 400);
      CHECK(r["status"]["message"] ==
            "the request holds the JSON key \"" + c.key +
                "\" twice in one object; refused because decoders disagree on which one counts");
    }
  }
  SECTION("the same key in different objects is fine") {
    CHECK(response_of(body)["allowed"] == true);
  }
}

TEST_CASE("A duplicate key in the JobSet's own managedFields is let through, anywhere else refused",
          "[admission][hostile]") {
  const Json managed_fields = Json::parse(
      R"([{"fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:suspend":{}}},"manager":"kubectl"}])");
  const Json with_fields = MakeJobSet("js")
                               .Namespace("default")
                               .Set("/metadata/managedFields", managed_fields)
                               .ReplicatedJob(MakeReplicatedJob("w").Set(
                                   "/template/metadata/managedFields", managed_fields))
                               .Obj();
  const std::string body = update_text(with_fields, with_fields);
  const std::string doubled = R"("f:suspend":{},"f:suspend":{})";
  const auto nth = [&](std::size_t n) {
    std::string out = body;
    std::size_t at = 0;
    for (std::size_t i = 0; i <= n; ++i) at = out.find(R"("f:suspend":{})", i == 0 ? 0 : at + 1);
    REQUIRE(at != std::string::npos);
    return out.replace(at, std::string_view(R"("f:suspend":{})").size(), doubled);
  };
  // In order of the body: the new object's metadata, its job template, then the old object's.
  SECTION("the object's metadata.managedFields, which no decision reads") {
    CHECK(response_of(nth(0))["allowed"] == true);
    CHECK(response_of(nth(2))["allowed"] == true);
  }
  SECTION("managedFields inside the job template") {
    const Json r = response_of(nth(1));
    REQUIRE(r["status"]["code"] == 400);
    CHECK(r["status"]["message"] ==
          "the request holds the JSON key \"f:suspend\" twice in one object; refused because "
          "decoders disagree on which one counts");
  }
}

TEST_CASE("Numbers beyond int64 or double are refused as not JSON, beyond int32 denied",
          "[admission][hostile]") {
  const std::string body = update_text(small_jobset(), small_jobset());
  for (const std::string number :
       {"99999999999999999999", "-99999999999999999999", "1e400", "-1e400"}) {
    DYNAMIC_SECTION(number) {
      CHECK(failure_of(replace_once(body, "\"replicas\":1", "\"replicas\":" + number)) ==
            "request body is not valid JSON: Problem while parsing a number");
    }
  }
  const Json r = response_of(replace_once(body, "\"replicas\":1", "\"replicas\":2147483648"));
  CHECK(r["allowed"] == false);
  CHECK(r["status"]["details"]["causes"][0]["message"] ==
        "Invalid value: 2147483648: must be less than or equal to 2147483647");
}

TEST_CASE("A 1 MiB label value is judged, and printed short", "[admission][hostile]") {
  const std::string big_a(1 << 20, 'a'), big_b(1 << 20, 'b');
  const auto labelled = [](const std::string& label, const std::string& pod_label) {
    return MakeJobSet("js")
        .Namespace("default")
        .Label("big", label)
        .ReplicatedJob(MakeReplicatedJob("w").PodLabel("big", pod_label))
        .Obj();
  };
  const Json old_js = labelled(big_a, big_a);
  CHECK(response_of(update_text(old_js, labelled(big_b, big_a)))["allowed"] ==
        true);  // JobSet metadata is not ours to judge

  const auto raw = admission::handle_review(update_text(old_js, labelled(big_a, big_b)), Policy{},
                                            Hook::kValidating);
  REQUIRE(raw.ok());
  CHECK(raw.value().size() < 2048);
  const Json r = Json::parse(raw.value())["response"];
  CHECK(r["allowed"] == false);
  CHECK(r["status"]["details"]["causes"][0]["message"] ==
        "Invalid value: \"" + std::string(75, 'b') + "...\": field is immutable");
}

TEST_CASE("10,000 ReplicatedJobs: scaled, changed and renamed, with bounded answers",
          "[admission][hostile]") {
  Json old_jobs = Json::array(), scaled = Json::array(), changed = Json::array(),
       renamed = Json::array();
  for (int i = 0; i < 10000; ++i) {
    const std::string name = "rj-" + std::to_string(i);
    old_jobs.push_back(MakeReplicatedJob(name).Obj());
    scaled.push_back(MakeReplicatedJob(name).Replicas(3).Obj());
    changed.push_back(MakeReplicatedJob(name).Image("bash:5.2").Obj());
    renamed.push_back(MakeReplicatedJob("new-" + std::to_string(i)).Obj());
  }
  const Json old_js = jobset_of(old_jobs);

  const Json up = response_of(update_text(old_js, jobset_of(scaled)));
  CHECK(up["allowed"] == true);
  std::size_t warning_bytes = 0;
  for (const auto& w : up["warnings"]) warning_bytes += w.get<std::string>().size();
  CHECK(warning_bytes <= 4096);
  CHECK(up["warnings"].back() == "and 9962 more replicatedJobs rescaled");

  const Json images = response_of(update_text(old_js, jobset_of(changed)));
  CHECK(images["allowed"] == false);
  CHECK(images["status"]["details"]["causes"].size() == 100);
  const std::string message = images["status"]["message"];
  CHECK(message.substr(message.size() - 16) == ", and 9990 more]");

  const Json names = response_of(update_text(old_js, jobset_of(renamed)));
  CHECK(names["status"]["details"]["causes"].size() == 1);
  CHECK(
      names["status"]["details"]["causes"][0]["message"] ==
      R"(Forbidden: field is immutable: added "new-0", "new-1", "new-2" and 9997 more; removed "rj-0", "rj-1", "rj-2" and 9997 more)");
}

TEST_CASE("A pod-template label map of 100,000 entries compares by key, in any key order",
          "[admission][hostile]") {
  // Compared key by key through lookups this was 5 * 10^9 string comparisons; sorted, it is a
  // merge. (The maps are written as text: Json's ordered map would insert in quadratic time.)
  const auto labels_text = [](bool reverse) {
    std::string text = "{";
    for (int k = 0; k < 100000; ++k)
      text += (k ? ",\"k" : "\"k") + std::to_string(reverse ? 99999 - k : k) + "\":\"v\"";
    return text + "}";
  };
  const Json js = MakeJobSet("js")
                      .Namespace("default")
                      .ReplicatedJob(MakeReplicatedJob("w").Set(
                          "/template/spec/template/metadata/labels", "LABELS"))
                      .Obj();
  const std::string body = update_text(js, js);
  const std::string same = replace_once(replace_once(body, "\"LABELS\"", labels_text(true)),
                                        "\"LABELS\"", labels_text(false));
  CHECK(response_of(same)["allowed"] == true);
  const std::string changed = replace_once(same, "\"k50000\":\"v\"", "\"k50000\":\"changed\"");
  const Json r = response_of(changed);
  REQUIRE(r["status"]["details"]["causes"].size() == 1);
  CHECK(r["status"]["details"]["causes"][0]["field"] ==
        "spec.replicatedJobs[0].template.spec.template.metadata.labels[k50000]");
}

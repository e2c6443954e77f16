// The offline model of `check` and `validate` against the server: for every case, the verdict,
// message and warnings equal what admission::handle_review answers for the AdmissionReview the
// API server would send (objects defaulted by the schema and by the server's own mutating answer).

#include "cli/check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "jobset_webhook/apiserver/apiserver.h"
#include "cli/documents.h"
#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/patch/json_patch.h"
#include "support/admission.h"
#include "support/jobset_builder.h"
#include "support/manifests.h"
#include "support/review_builder.h"
#include "support/files.h"
#include "support/sample_reviews.h"
#include "support/test_server.h"
#include "validation/crd_schema.h"

namespace cli = jobset_webhook::cli;
namespace v = jobset_webhook::validation;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;
using jobset_webhook::testing::MakeReview;
using jobset_webhook::testing::manifests_of;
using jobset_webhook::testing::ReplicatedJobBuilder;
using jobset_webhook::testing::server_response;

namespace {

struct Verdict {
  bool allowed = true;
  std::string message;
  std::vector<std::string> warnings;
};

// What the API server would store: the schema defaults, then the server's mutating answer.
Json server_stored(const Json& manifest, const Policy& policy) {
  Json stored = manifest;
  jobset_webhook::apiserver::apply_crd_defaults(stored);
  const auto response = server_response(MakeReview().Create(stored).Obj(), policy, Hook::kMutating);
  if (response.contains("patch")) {
    stored = stored.patch(Json::parse(
        jobset_webhook::testing::base64_decode(response.at("patch").get<std::string>())));
    jobset_webhook::apiserver::apply_crd_defaults(stored);
  }
  return stored;
}

Verdict server_verdict(const Json* old_manifest, const Json& new_manifest,
                       const Policy& policy = {}) {
  const Json stored = server_stored(new_manifest, policy);
  const Json review = old_manifest != nullptr
                          ? MakeReview().Update(server_stored(*old_manifest, policy), stored).Obj()
                          : MakeReview().Create(stored).Obj();
  const auto response = server_response(review, policy, Hook::kValidating);
  Verdict v;
  v.allowed = response.at("allowed").get<bool>();
  if (!v.allowed) v.message = response.at("status").at("message").get<std::string>();
  if (response.contains("warnings"))
    v.warnings = response.at("warnings").get<std::vector<std::string>>();
  return v;
}

cli::Report checked(const std::vector<Json>& old_objects, const std::vector<Json>& new_objects,
                    const Policy& policy = {}) {
  auto report = cli::check_manifests(manifests_of(old_objects, "old.yaml"),
                                     manifests_of(new_objects, "new.yaml"), policy);
  INFO((report.ok() ? "" : report.failure().message));
  REQUIRE(report.ok());
  return std::move(report).value();
}

cli::JobSetResult checked_one(const Json& old_js, const Json& new_js) {
  auto report = checked({old_js}, {new_js});
  REQUIRE(report.jobsets.size() == 1);
  return report.jobsets[0];
}

std::vector<Json> example_jobsets(const std::string& root) {
  std::vector<Json> out;
  for (const auto& file : jobset_webhook::testing::yaml_files(root)) {
    const auto m = cli::load_manifests({file});
    REQUIRE(m.ok());
    for (const auto& js : m.value().jobsets) out.push_back(js.object);
  }
  return out;
}

// Every scalar below value, as JSON pointers.
void collect_leaves(const Json& value, const Json::json_pointer& pointer,
                    std::vector<Json::json_pointer>& out) {
  if (value.is_object()) {
    for (const auto& [k, child] : value.items()) collect_leaves(child, pointer / k, out);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) collect_leaves(value[i], pointer / i, out);
  } else if (!value.is_null()) {
    out.push_back(pointer);
  }
}

// The schema node of a leaf, by its pointer ("/spec/replicatedJobs/0/name" is
// spec.replicatedJobs[].name); nullptr below a map key or where the schema has none.
const v::CrdSchema* schema_node(const Json::json_pointer& where) {
  std::string path;
  const std::string pointer = where.to_string();
  std::size_t start = 1;
  while (start <= pointer.size()) {
    const auto end = std::min(pointer.find('/', start), pointer.size());
    const std::string token = pointer.substr(start, end - start);
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    path += index ? "[]" : (path.empty() ? "" : ".") + token;
    start = end + 1;
  }
  return v::crd_schema_at(path);
}

// A different value of the same type that the API server still lets through to the webhooks,
// past the CRD's schema: another value of an enum; a string that starts with a digit (a quantity
// such as "250m" or "64Mi", which the CRD's pattern checks before admission) gets a digit in front
// instead of a suffix; an int32 at its maximum goes down, not past it.
Json edited(const Json& leaf, const Json::json_pointer& where) {
  const v::CrdSchema* node = schema_node(where);
  if (node != nullptr) {
    for (const auto& value : node->enum_values) {
      if (value != leaf) return value;
    }
  }
  if (leaf.is_string()) {
    const auto s = leaf.get<std::string>();
    if (!s.empty() && s[0] >= '0' && s[0] <= '9') return "1" + s;
    return s + "-edited";
  }
  if (leaf.is_boolean()) return !leaf.get<bool>();
  if (leaf.is_number_integer()) {
    const auto n = leaf.get<std::int64_t>();
    return n == std::numeric_limits<std::int32_t>::max() ? n - 1 : n + 1;
  }
  return leaf.get<double>() + 0.5;
}

// A replicatedJob as a manifest writes it: replicas left to the schema's default.
ReplicatedJobBuilder manifest_rjob(const std::string& name, const std::string& image) {
  return MakeReplicatedJob(name).Unset("/replicas").Image(image);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// check's verdict and message against the server's, on generated edits of every JobSet under root.
void verdicts_match_the_server(const std::string& root, std::size_t min_cases,
                               std::size_t min_denied) {
  std::size_t cases = 0, denied = 0;
  const auto compare = [&](const std::string& name, const Json* old_js, const Json& new_js) {
    INFO(name);
    const auto want = server_verdict(old_js, new_js);
    auto report = old_js != nullptr ? checked({*old_js}, {new_js}) : checked({}, {new_js});
    REQUIRE(report.jobsets.size() == 1);
    const auto& got = report.jobsets[0];
    CHECK(got.change == (old_js != nullptr ? cli::Change::kUpdate : cli::Change::kCreate));
    CHECK(got.allowed == want.allowed);
    CHECK(got.message == want.message);
    CHECK(got.warnings == want.warnings);
    CHECK(got.findings.empty() == want.allowed);
    ++cases;
    denied += want.allowed ? 0 : 1;
  };
  for (const auto& js : example_jobsets(root)) {
    const std::string name = js["metadata"].value("name", "");
    compare(name + " created", nullptr, js);
    compare(name + " unchanged", &js, js);
    const auto& rjobs = js["spec"]["replicatedJobs"];
    for (std::size_t i = 0; i < rjobs.size(); ++i) {
      for (const int replicas : {0, 3, 1000}) {
        Json scaled = js;
        scaled["spec"]["replicatedJobs"][i]["replicas"] = replicas;
        compare(name + " rj " + std::to_string(i) + " replicas " + std::to_string(replicas), &js,
                scaled);
      }
    }
    if (rjobs.size() > 1) {
      Json removed = js;
      removed["spec"]["replicatedJobs"].erase(rjobs.size() - 1);
      compare(name + " last replicatedJob removed", &js, removed);
    }
    std::vector<Json::json_pointer> leaves;
    collect_leaves(js["spec"], Json::json_pointer("/spec"), leaves);
    for (const auto& leaf : leaves) {
      Json changed = js;
      changed[leaf] = edited(js[leaf], leaf);
      compare(name + " " + leaf.to_string(), &js, changed);
      compare(name + " " + leaf.to_string() + " created", nullptr, changed);
    }
  }
  CHECK(cases >= min_cases);
  CHECK(denied >= min_denied);
}

// Every finding of a single-leaf edit of every JobSet under root, at its field's line and column.
void findings_point_at_their_field(const std::string& root, std::size_t min_located) {
  std::size_t located = 0;
  for (const auto& js : example_jobsets(root)) {
    std::vector<Json::json_pointer> leaves;
    collect_leaves(js["spec"]["replicatedJobs"], Json::json_pointer("/spec/replicatedJobs"),
                   leaves);
    for (const auto& leaf : leaves) {
      Json changed = js;
      changed[leaf] = edited(js[leaf], leaf);
      const auto new_text = "---\n" + cli::to_yaml(changed);
      auto report =
          cli::check_manifests(manifests_of({js}, "old.yaml"),
                               cli::parse_manifests(new_text, "new.yaml").value(), Policy{});
      REQUIRE(report.ok());
      const auto lines = lines_of(new_text);
      for (const auto& finding : report.value().jobsets.at(0).findings) {
        // The field a finding names is written in the new manifest (the leaf, or the list whose
        // entries changed), so the mark is its own, not an ancestor's.
        const auto tokens = cli::field_path_tokens(finding.error.field);
        INFO(leaf.to_string() << ": " << finding.error.to_string() << " at "
                              << finding.where.to_string());
        REQUIRE_FALSE(tokens.empty());
        REQUIRE(changed.contains(Json::json_pointer(jobset_webhook::json_pointer(tokens))));
        REQUIRE(finding.where.line >= 1);
        REQUIRE(static_cast<std::size_t>(finding.where.line) <= lines.size());
        const std::string at = lines[finding.where.line - 1].substr(finding.where.column - 1);
        const std::string& last = tokens.back();
        if (last.find_first_not_of("0123456789") == std::string::npos) {
          // A list element is marked at its first character: its value.
          const Json& value = changed[Json::json_pointer(jobset_webhook::json_pointer(tokens))];
          std::string printed = cli::to_yaml(value);
          printed = printed.substr(0, std::min<std::size_t>(3, printed.find('\n')));
          CHECK(at.rfind(printed, 0) == 0);
        } else {
          CHECK(at.rfind(last + ":", 0) == 0);
        }
        ++located;
      }
    }
  }
  CHECK(located >= min_located);
}

}  // namespace

TEST_CASE("check's verdict and message equal the server's on every generated edit of every fixture",
          "[cli][check]") {
  verdicts_match_the_server(jobset_webhook::testing::kFixtureJobSets, 250, 80);
}

TEST_CASE("check's verdict and message equal the server's on every edit of every upstream example",
          "[cli][check][upstream_examples]") {
  verdicts_match_the_server(jobset_webhook::testing::kUpstreamExamples, 1000, 400);
}

TEST_CASE("Every finding of a single-leaf edit of a fixture points at its field's line and column",
          "[cli][check]") {
  findings_point_at_their_field(jobset_webhook::testing::kFixtureJobSets, 60);
}

TEST_CASE("Every finding of a single-leaf edit of an upstream example points at its field",
          "[cli][check][upstream_examples]") {
  findings_point_at_their_field(jobset_webhook::testing::kUpstreamExamples, 400);
}

TEST_CASE("An immutability finding shows the old value next to the new", "[cli][check]") {
  const Json old_js = MakeJobSet("js").Obj();
  SECTION("a changed image, with replicatedJobs matched by name across a reorder") {
    const Json a = MakeJobSet("js")
                       .ReplicatedJob(manifest_rjob("one", "bash:5.1"))
                       .ReplicatedJob(manifest_rjob("two", "python:3"))
                       .Obj();
    const Json b = MakeJobSet("js")
                       .ReplicatedJob(manifest_rjob("two", "python:3"))
                       .ReplicatedJob(manifest_rjob("one", "bash:5.2"))
                       .Obj();
    const auto result = checked_one(a, b);
    REQUIRE(result.findings.size() == 2);
    CHECK(result.findings[0].error.to_string().rfind(
              "spec.replicatedJobs: Forbidden: field is immutable: replicatedJobs were reordered",
              0) == 0);
    CHECK_FALSE(result.findings[0].old_value);
    const auto& image = result.findings[1];
    CHECK(
        image.error.to_string() ==
        R"(spec.replicatedJobs[1].template.spec.template.spec.containers[0].image: Invalid value: "bash:5.2": field is immutable)");
    REQUIRE(image.old_value);
    CHECK(image.old_value->set);
    CHECK(image.old_value->printed == R"("bash:5.1")");
  }
  SECTION("a field the old JobSet leaves unset") {
    const Json a = MakeJobSet("js").ReplicatedJob(manifest_rjob("one", "bash")).Obj();
    const Json b =
        MakeJobSet("js").ReplicatedJob(manifest_rjob("one", "bash").BackoffLimit(4)).Obj();
    const auto result = checked_one(a, b);
    REQUIRE(result.findings.size() == 1);
    REQUIRE(result.findings[0].old_value);
    CHECK_FALSE(result.findings[0].old_value->set);
  }
}

TEST_CASE(
    "A field spelled out on one side and left to its schema default on the other is no change",
    "[cli][check]") {
  const Json terse = MakeJobSet("js")
                         .ReplicatedJob(manifest_rjob("one", "bash")
                                            .Set("/template/spec/template/spec/containers/0/ports",
                                                 {{{"containerPort", 80}}}))
                         .FailurePolicy({{"maxRestarts", 3}})
                         .Obj();
  Json verbose = terse;
  auto& rj = verbose["spec"]["replicatedJobs"][0];
  rj["replicas"] = 1;
  rj["groupName"] = "default";
  rj["template"]["spec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"] = "TCP";
  verbose["spec"]["failurePolicy"]["restartStrategy"] = "Recreate";
  for (const auto& [name, from, to] : {std::tuple{"written out in new", terse, verbose},
                                       std::tuple{"dropped in new", verbose, terse}}) {
    DYNAMIC_SECTION(name) {
      const auto result = checked_one(from, to);
      CHECK(result.allowed);
      CHECK(result.findings.empty());
      CHECK(result.warnings.empty());
    }
  }
  SECTION("but dropping replicas: 3 is a scale to the default 1") {
    Json three = verbose;
    three["spec"]["replicatedJobs"][0]["replicas"] = 3;
    const auto result = checked_one(three, terse);
    CHECK(result.allowed);
    REQUIRE(result.warnings.size() == 2);  // the scale, then the replica counts left stale
    CHECK(result.warnings[0].find("scaled down from 3 to 1") != std::string::npos);
    CHECK(result.warnings[1].find("3 (now 1)") != std::string::npos);
  }
}

// Both sides get the mutating webhook's defaults before the UPDATE rules run.
TEST_CASE(
    "completionMode: Indexed written out only in new is no change once the mutating defaults apply",
    "[cli][check]") {
  const Json terse = MakeJobSet("js").ReplicatedJob(manifest_rjob("one", "bash")).Obj();
  const Json indexed =
      MakeJobSet("js").ReplicatedJob(manifest_rjob("one", "bash").CompletionMode("Indexed")).Obj();
  const auto result = checked_one(terse, indexed);
  CHECK(result.allowed);
  CHECK(result.findings.empty());
}

TEST_CASE("JobSets are matched by namespace and name: new ones are created, missing ones deleted",
          "[cli][check]") {
  const auto named = [](const std::string& name) {
    return MakeJobSet(name).ReplicatedJob(manifest_rjob("w", "bash")).Obj();
  };
  const Json a = named("a"), b = named("b"), c = named("c");
  const Json b_prod =
      MakeJobSet("b").Namespace("prod").ReplicatedJob(manifest_rjob("w", "other")).Obj();
  const auto report = checked({a, b}, {c, b_prod, b});
  REQUIRE(report.jobsets.size() == 4);
  CHECK(report.jobsets[0].display_name() == "default/c");
  CHECK(report.jobsets[0].change == cli::Change::kCreate);
  CHECK(report.jobsets[1].display_name() == "prod/b");
  CHECK(report.jobsets[1].change == cli::Change::kCreate);
  CHECK(report.jobsets[2].display_name() == "default/b");
  CHECK(report.jobsets[2].change == cli::Change::kUpdate);
  CHECK(report.jobsets[3].display_name() == "default/a");
  CHECK(report.jobsets[3].change == cli::Change::kDelete);
  CHECK(report.jobsets[3].allowed);
  CHECK(report.jobsets[3].where.to_string() == "old.yaml:2:1");
  CHECK(report.summary() ==
        "check: 3 JobSets: 0 denied, 3 allowed (1 updated, 2 created); 1 deleted; 0 other objects "
        "skipped");
}

TEST_CASE("A JobSet named twice in one file makes check and validate fail", "[cli][check]") {
  const Json a = MakeJobSet("a").Obj();
  const auto twice = manifests_of({a, a}, "twice.yaml");
  const auto check = cli::check_manifests(twice, twice, Policy{});
  REQUIRE_FALSE(check.ok());
  CHECK(check.failure().message ==
        "twice.yaml:10:1: --old holds JobSet default/a twice in one file (first at "
        "twice.yaml:2:1); applying the file keeps only the last");
  const auto validate = cli::validate_manifests(twice, Policy{});
  REQUIRE_FALSE(validate.ok());
  CHECK(validate.failure().message.find("the input holds JobSet default/a twice in one file") !=
        std::string::npos);
}

TEST_CASE("The policy reaches the decision: a scale hazard it denies is refused as the server does",
          "[cli][check]") {
  const Json one = MakeJobSet("js").ReplicatedJob(manifest_rjob("w", "bash")).Obj();
  const Json three = MakeJobSet("js").ReplicatedJob(manifest_rjob("w", "bash").Replicas(3)).Obj();
  Policy strict;
  strict.deny_scale_hazards = {jobset_webhook::ScaleHazard::kStaleReplicaCounts};
  const auto report = checked({one}, {three}, strict);
  REQUIRE(report.jobsets.size() == 1);
  CHECK_FALSE(report.jobsets[0].allowed);
  CHECK(report.jobsets[0].message == server_verdict(&one, three, strict).message);
  CHECK(
      report.jobsets[0].message ==
      R"(JobSet.jobset.x-k8s.io "js" is invalid: spec.replicatedJobs[0].replicas: Forbidden: )"
      R"(scaled up from 1 to 3: upstream's JobSet controller writes the replica counts into the )"
      R"(labels and annotations of a Job and its pods only when it creates the Job, so until the )"
      R"(JobSet restarts the Jobs that exist and their pods (and a workload that reads the counts )"
      R"(through the downward API) keep the old ones: Job js-w-0 keeps )"
      R"(jobset.sigs.k8s.io/replicatedjob-replicas, jobset.sigs.k8s.io/global-replicas and )"
      R"(jobset.sigs.k8s.io/group-replicas 1 (now 3); the policy refuses it )"
      R"((scaleHazards.deny: staleReplicaCounts))");
  CHECK(checked({one}, {three}).jobsets[0].allowed);
}

TEST_CASE("The policy reaches the decision: elastic replicas off makes a scale a denial",
          "[cli][check]") {
  const Json one = MakeJobSet("js").ReplicatedJob(manifest_rjob("w", "bash")).Obj();
  const Json three = MakeJobSet("js").ReplicatedJob(manifest_rjob("w", "bash").Replicas(3)).Obj();
  Policy strict;
  strict.elastic.replicas = false;
  const auto report = checked({one}, {three}, strict);
  REQUIRE(report.jobsets.size() == 1);
  CHECK_FALSE(report.jobsets[0].allowed);
  CHECK(report.jobsets[0].message == server_verdict(&one, three, strict).message);
  CHECK(
      report.jobsets[0].message ==
      R"(JobSet.jobset.x-k8s.io "js" is invalid: spec.replicatedJobs[0].replicas: Invalid value: 3: field is immutable)");
}

// A manifest as written, with the defaults left to the cluster: validate (check's CREATE) stores
// it with defaulting::create_defaults and asks decide; review and serve get it raw in a CREATE
// review, and decide applies the same create_defaults before the CREATE rules. The second rule's
// name comes from the mutating webhook's default, so the denial needs the defaults in their order.
TEST_CASE("serve, review and validate give one answer for a CREATE that needs the defaults",
          "[cli][check][parity]") {
  const Json raw = Json::parse(R"({
    "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
    "metadata": {"name": "js", "namespace": "default"},
    "spec": {
      "failurePolicy": {"maxRestarts": 1, "rules": [
        {"name": "failurePolicyRule1", "action": "FailJobSet"}, {"action": "FailJobSet"}]},
      "replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": "bash", "ports": [{"containerPort": 80}]}]}}}}}]}})");
  const std::string want =
      "JobSet.jobset.x-k8s.io \"js\" is invalid: <nil>: Internal error: rule names are not unique, "
      "rules with indices [0 1] all have the same name 'failurePolicyRule1'";
  const std::string body = MakeReview().Create(raw).Text();

  const auto reviewed = jobset_webhook::admission::handle_review(body, Policy{}, Hook::kValidating);
  REQUIRE(reviewed.ok());
  const Json response = Json::parse(reviewed.value()).at("response");
  CHECK(response.at("allowed") == false);
  CHECK(response.at("status").at("message") == want);

  const auto pki = jobset_webhook::testing::make_pki();
  jobset_webhook::testing::TestServer server(jobset_webhook::testing::test_options(pki));
  const auto served =
      server.client(pki.ca_crt())
          ->Post(jobset_webhook::testing::kValidate.c_str(), body, "application/json");
  REQUIRE(served);
  CHECK(served->body == reviewed.value());

  const auto report = cli::validate_manifests(manifests_of({raw}, "new.yaml"), Policy{});
  REQUIRE(report.ok());
  REQUIRE(report.value().jobsets.size() == 1);
  CHECK_FALSE(report.value().jobsets[0].allowed);
  CHECK(report.value().jobsets[0].message == want);
}

// The decision's warnings carry the field they are about; check places them there without reading
// their words: at the second ReplicatedJob's replicas when the manifest writes it, at its name
// when the manifest leaves replicas to the default.
TEST_CASE("A scale warning points at its replicas, or at the name when replicas is defaulted",
          "[cli][check]") {
  const auto at = [](const Json& old_js, const Json& new_js, const std::string& field) {
    const auto result = checked_one(old_js, new_js);
    REQUIRE_FALSE(result.warnings.empty());
    const auto manifests = manifests_of({new_js}, "new.yaml");
    const auto want = manifests.jobsets.at(0).mark_of(field);
    REQUIRE(want);
    CHECK(result.warning_location(0).to_string() == want->to_string());
  };
  const Json one = MakeJobSet("js")
                       .ReplicatedJob(manifest_rjob("a", "bash"))
                       .ReplicatedJob(manifest_rjob("b", "bash"))
                       .Obj();
  const Json three = MakeJobSet("js")
                         .ReplicatedJob(manifest_rjob("a", "bash"))
                         .ReplicatedJob(manifest_rjob("b", "bash").Replicas(3))
                         .Obj();
  SECTION("written") { at(one, three, "spec.replicatedJobs[1].replicas"); }
  SECTION("defaulted") { at(three, one, "spec.replicatedJobs[1].name"); }
}

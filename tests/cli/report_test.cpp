#include "cli/report.h"

#include <catch2/catch.hpp>

#include "support/xml.h"

namespace cli = jobset_webhook::cli;
namespace field = jobset_webhook::field;
using jobset_webhook::Json;
using jobset_webhook::testing::XmlReader;

namespace {

// A report with every kind of entry, and text that each format must escape: markup, quotes,
// percent signs, newlines, separators, a control character and a byte that is not UTF-8.
cli::Report sample_report() {
  cli::Report report;
  report.command = "check";
  cli::JobSetResult denied;
  denied.change = cli::Change::kUpdate;
  denied.namespace_name = "default";
  denied.name = "js";
  denied.where = {"manifests/new,1:x%.yaml", 3, 1};
  denied.allowed = false;
  denied.message =
      "JobSet.jobset.x-k8s.io \"js\" is invalid: spec.x: Invalid value: \"a<b>&c\\n%\": field is "
      "immutable";
  denied.findings.push_back(
      {field::Error{field::ErrorType::kInvalid, "spec.x", field::BadValue::string("a<b>&c\n%"),
                    "field is immutable"},
       {"manifests/new,1:x%.yaml", 12, 7},
       cli::OldValue{true, "\"old\x01\xff\""},
       std::nullopt});
  denied.findings.push_back({field::Error{field::ErrorType::kForbidden, "spec.replicatedJobs",
                                          std::nullopt, "field is immutable: added \"b\""},
                             {"manifests/new,1:x%.yaml", 8, 3},
                             std::nullopt,
                             std::nullopt});
  denied.warnings = {"100% scaled\nnext line"};
  report.jobsets.push_back(denied);
  cli::JobSetResult created;
  created.change = cli::Change::kCreate;
  created.namespace_name = "team";
  created.name = "fresh";
  created.where = {"manifests/other.yaml", 1, 1};
  report.jobsets.push_back(created);
  cli::JobSetResult deleted;
  deleted.change = cli::Change::kDelete;
  deleted.namespace_name = "default";
  deleted.name = "gone";
  deleted.where = {"old/gone.yaml", 2, 1};
  report.jobsets.push_back(deleted);
  report.skipped.push_back({{"manifests/cm.yaml", 1, 1}, "v1", "ConfigMap", "cm"});
  return report;
}

}  // namespace

TEST_CASE("Formats are named text, json, junit, sarif and github", "[cli][report]") {
  CHECK(cli::parse_format("text") == cli::Format::kText);
  CHECK(cli::parse_format("github") == cli::Format::kGithub);
  CHECK_FALSE(cli::parse_format("xml"));
}

TEST_CASE("The text report is one compiler-style line per finding, then the summary",
          "[cli][report]") {
  CHECK(cli::render(sample_report(), cli::Format::kText) ==
        "manifests/new,1:x%.yaml:12:7: spec.x: Invalid value: \"a<b>&c\\n%\": field is immutable "
        "(old value: \"old\x01\xff\")\n"
        "manifests/new,1:x%.yaml:8:3: spec.replicatedJobs: Forbidden: field is immutable: added "
        "\"b\"\n"
        "manifests/new,1:x%.yaml:3:1: warning: 100% scaled\nnext line\n"
        "old/gone.yaml:2:1: note: JobSet default/gone deleted (only in --old)\n"
        "check: 2 JobSets: 1 denied, 1 allowed (1 updated, 1 created); 1 deleted; 1 other object "
        "skipped\n");
}

TEST_CASE("The json report follows the documented schema and is valid UTF-8", "[cli][report]") {
  const auto out = Json::parse(cli::render(sample_report(), cli::Format::kJson));
  CHECK(out["schema"] == "jobset-webhook/report/v1");
  CHECK(out["command"] == "check");
  CHECK(out["allowed"] == false);
  CHECK(out["summary"] ==
        Json::parse(
            R"({"jobsets":2,"allowed":1,"denied":1,"updated":1,"created":1,"deleted":1,"skipped":1,
    "text":"check: 2 JobSets: 1 denied, 1 allowed (1 updated, 1 created); 1 deleted; 1 other object skipped",
    "scalers":{"judged":0,"allowed":0,"denied":0,"updated":0,"created":0,"deleted":0}})"));
  REQUIRE(out["jobsets"].size() == 3);
  const auto& js = out["jobsets"][0];
  CHECK(js ==
        Json::parse(R"J({"namespace":"default","name":"js","operation":"UPDATE","allowed":false,
    "file":"manifests/new,1:x%.yaml","line":3,"column":1,
    "message":"JobSet.jobset.x-k8s.io \"js\" is invalid: spec.x: Invalid value: \"a<b>&c\\n%\": field is immutable",
    "findings":[
      {"field":"spec.x","type":"FieldValueInvalid","message":"Invalid value: \"a<b>&c\\n%\": field is immutable",
       "text":"spec.x: Invalid value: \"a<b>&c\\n%\": field is immutable (old value: \"old\u0001\ufffd\")",
       "file":"manifests/new,1:x%.yaml","line":12,"column":7,"oldValue":"\"old\u0001\ufffd\""},
      {"field":"spec.replicatedJobs","type":"FieldValueForbidden","message":"Forbidden: field is immutable: added \"b\"",
       "text":"spec.replicatedJobs: Forbidden: field is immutable: added \"b\"",
       "file":"manifests/new,1:x%.yaml","line":8,"column":3}],
    "warnings":["100% scaled\nnext line"],
    "warningLocations":[{"file":"manifests/new,1:x%.yaml","line":3,"column":1}]})J"));
  CHECK(out["jobsets"][1]["operation"] == "CREATE");
  CHECK(out["jobsets"][1]["allowed"] == true);
  CHECK(out["jobsets"][1]["message"] == "");
  CHECK(out["jobsets"][2]["operation"] == "DELETE");
  CHECK(
      out["skipped"] ==
      Json::parse(
          R"([{"file":"manifests/cm.yaml","line":1,"column":1,"apiVersion":"v1","kind":"ConfigMap","name":"cm"}])"));
}

TEST_CASE("The junit report is well-formed XML with one test case per JobSet", "[cli][report]") {
  const auto text = cli::render(sample_report(), cli::Format::kJunit);
  XmlReader reader(text);
  const auto root = reader.parse();
  INFO(reader.error() << "\n" << text);
  REQUIRE(root);
  CHECK(root->name == "testsuites");
  CHECK(root->attributes.at("tests") == "3");
  CHECK(root->attributes.at("failures") == "1");
  const auto suites = root->all("testsuite");
  REQUIRE(suites.size() == 1);
  const auto cases = suites[0]->all("testcase");
  REQUIRE(cases.size() == 3);
  CHECK(cases[0]->attributes.at("name") == "default/js");
  CHECK(cases[0]->attributes.at("classname") == "manifests/new,1:x%.yaml");
  const auto failures = cases[0]->all("failure");
  REQUIRE(failures.size() == 1);
  CHECK(failures[0]->attributes.at("message") ==
        "JobSet.jobset.x-k8s.io \"js\" is invalid: spec.x: Invalid value: \"a<b>&c\\n%\": field is "
        "immutable");
  // The control character and the stray byte become U+FFFD: XML 1.0 cannot carry them.
  CHECK(failures[0]->text ==
        "manifests/new,1:x%.yaml:12:7: spec.x: Invalid value: \"a<b>&c\\n%\": field is immutable "
        "(old value: \"old\xEF\xBF\xBD\xEF\xBF\xBD\")\n"
        "manifests/new,1:x%.yaml:8:3: spec.replicatedJobs: Forbidden: field is immutable: added "
        "\"b\"\n");
  CHECK(cases[0]->all("system-out").at(0)->text ==
        "manifests/new,1:x%.yaml:3:1: warning: 100% scaled\nnext line\n");
  CHECK(cases[1]->all("failure").empty());
  CHECK(cases[2]->all("system-out").at(0)->text == "JobSet default/gone deleted (only in --old)\n");
}

TEST_CASE("The sarif report has SARIF 2.1.0's required fields and one result per finding",
          "[cli][report]") {
  const auto sarif = Json::parse(cli::render(sample_report(), cli::Format::kSarif));
  CHECK(sarif["version"] == "2.1.0");
  CHECK(sarif["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  REQUIRE(sarif["runs"].size() == 1);
  const auto& run = sarif["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "jobset-webhook");
  const auto& rules = run["tool"]["driver"]["rules"];
  const auto& results = run["results"];
  REQUIRE(results.size() == 3);
  for (const auto& r : results) {
    const auto index = r["ruleIndex"].get<std::size_t>();
    REQUIRE(index < rules.size());
    CHECK(rules[index]["id"] == r["ruleId"]);
    CHECK(r["message"]["text"].is_string());
    const auto& region = r["locations"][0]["physicalLocation"]["region"];
    CHECK(region["startLine"].get<int>() >= 1);
    CHECK(region["startColumn"].get<int>() >= 1);
  }
  CHECK(results[0]["ruleId"] == "FieldValueInvalid");
  CHECK(results[0]["level"] == "error");
  CHECK(results[0]["message"]["text"] ==
        "JobSet default/js: spec.x: Invalid value: \"a<b>&c\\n%\": field is immutable (old value: "
        "\"old\x01\xEF\xBF\xBD\")");
  CHECK(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        "manifests/new%2C1%3Ax%25.yaml");
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"] ==
        Json::parse(R"({"startLine":12,"startColumn":7})"));
  CHECK(results[1]["ruleId"] == "FieldValueForbidden");
  CHECK(results[2]["ruleId"] == "AdmissionWarning");
  CHECK(results[2]["level"] == "warning");
}

TEST_CASE("The github report is workflow commands with data and properties escaped",
          "[cli][report]") {
  CHECK(
      cli::render(sample_report(), cli::Format::kGithub) ==
      "::error file=manifests/new%2C1%3Ax%25.yaml,line=12,col=7,title=JobSet default/js (UPDATE)::"
      "spec.x: Invalid value: \"a<b>&c\\n%25\": field is immutable (old value: "
      "\"old\x01\xEF\xBF\xBD\")\n"
      "::error file=manifests/new%2C1%3Ax%25.yaml,line=8,col=3,title=JobSet default/js (UPDATE)::"
      "spec.replicatedJobs: Forbidden: field is immutable: added \"b\"\n"
      "::warning file=manifests/new%2C1%3Ax%25.yaml,line=3,col=1,title=JobSet default/js "
      "(UPDATE)::100%25 scaled%0Anext line\n"
      "::notice file=old/gone.yaml,line=2,col=1,title=JobSet default/gone::JobSet default/gone "
      "deleted (only in --old)\n"
      "check: 2 JobSets: 1 denied, 1 allowed (1 updated, 1 created); 1 deleted; 1 other object "
      "skipped\n");
}

// The sarif format: SARIF 2.1.0 for code-scanning upload (GitHub's upload-sarif). One rule per
// error type (its StatusCause reason), one result per finding at its line and column, and the
// decision's warnings as results of level "warning".

#include <map>

#include "report_internal.h"

namespace jobset_webhook::cli {
namespace {

constexpr std::string_view kWarningRule = "AdmissionWarning";
constexpr std::string_view kPairingRule = "JobSetPairing";
constexpr std::string_view kLeftOutRule = "FileLeftOut";

// A relative URI reference for a file name: unreserved characters and '/' kept, the rest
// percent-encoded.
std::string uri_of(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto b = static_cast<unsigned char>(c);
    if ((b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
    }
  }
  return out;
}

Json location_json(const Location& where) {
  return Json::array(
      {{{"physicalLocation",
         {{"artifactLocation", {{"uri", uri_of(where.file)}}},
          {"region", {{"startLine", where.line}, {"startColumn", where.column}}}}}}});
}

class Rules {
 public:
  std::size_t index(std::string_view id, std::string_view description) {
    const auto [it, inserted] = index_.emplace(std::string(id), rules_.size());
    if (inserted) {
      rules_.push_back({{"id", id}, {"name", id}, {"shortDescription", {{"text", description}}}});
    }
    return it->second;
  }
  const Json& json() const { return rules_; }

 private:
  std::map<std::string, std::size_t> index_;
  Json rules_ = Json::array();
};

Json result_json(std::string_view rule, std::size_t rule_index, std::string_view level,
                 const std::string& text, const Location& where) {
  return {{"ruleId", rule},
          {"ruleIndex", rule_index},
          {"level", level},
          {"message", {{"text", text}}},
          {"locations", location_json(where)}};
}

}  // namespace

std::string render_sarif(const Report& report) {
  Rules rules;
  Json results = Json::array();
  for (const auto& note : report.notes) {
    const auto rule = rules.index(kLeftOutRule, "A file left out of the input, and why");
    results.push_back(result_json(kLeftOutRule, rule, "note", note.text, note.where));
  }
  for (const auto& js : report.jobsets) {
    for (const auto& finding : js.findings) {
      const auto id = field::cause_reason(finding.error.type);
      const auto rule =
          rules.index(id, "JobSet " + std::string(field::type_name(finding.error.type)));
      results.push_back(
          result_json(id, rule, "error",
                      std::string(js.kind) + " " + js.display_name() + ": " + finding_text(finding),
                      finding.where));
    }
    for (std::size_t i = 0; i < js.warnings.size(); ++i) {
      const auto rule = rules.index(kWarningRule, "A warning of the JobSet admission webhook");
      results.push_back(
          result_json(kWarningRule, rule, "warning",
                      std::string(js.kind) + " " + js.display_name() + ": " + js.warnings[i],
                      js.warning_location(i)));
    }
    if (!js.note.empty()) {
      const auto rule =
          rules.index(kPairingRule, "How a JobSet was paired with the base when not by its path");
      results.push_back(result_json(kPairingRule, rule, "note", note_text(js), js.where));
    }
  }
  Json driver = {
      {"name", "jobset-webhook"}, {"version", JOBSET_WEBHOOK_VERSION}, {"rules", rules.json()}};
  Json run = {{"tool", {{"driver", std::move(driver)}}},
              {"results", std::move(results)},
              {"invocations", Json::array({{{"executionSuccessful", true}}})}};
  Json sarif = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"version", "2.1.0"},
                {"runs", Json::array({std::move(run)})}};
  return dump_json(sarif, 2) + "\n";
}

}  // namespace jobset_webhook::cli

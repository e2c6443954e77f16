// The json format: schema "jobset-webhook/report/v1", documented in docs/ci-gating.md. Keys are
// only ever added to it; a change of meaning gets a new schema name.

#include "report_internal.h"

namespace jobset_webhook::cli {
namespace {

void put_location(Json& out, const Location& where) {
  out["file"] = where.file;
  out["line"] = where.line;
  out["column"] = where.column;
}

Json finding_json(const Finding& finding) {
  Json out = Json::object();
  out["field"] = finding.error.field;
  out["type"] = field::cause_reason(finding.error.type);
  out["message"] = finding.error.body();
  out["text"] = finding_text(finding);
  put_location(out, finding.where);
  if (finding.old_value) {
    out["oldValue"] = finding.old_value->set ? Json(finding.old_value->printed) : Json(nullptr);
  }
  if (finding.source) {
    Json source = Json::object();
    put_location(source, *finding.source);
    out["source"] = std::move(source);
  }
  return out;
}

Json jobset_json(const JobSetResult& js) {
  Json out = Json::object();
  out["namespace"] = js.namespace_name;
  out["name"] = js.name;
  if (!js.generate_name.empty()) out["generateName"] = js.generate_name;
  out["operation"] = change_name(js.change);
  out["allowed"] = js.allowed;
  put_location(out, js.where);
  out["message"] = js.message;
  out["findings"] = Json::array();
  for (const auto& finding : js.findings) out["findings"].push_back(finding_json(finding));
  out["warnings"] = js.warnings;
  out["warningLocations"] = Json::array();
  for (std::size_t i = 0; i < js.warnings.size(); ++i) {
    Json where = Json::object();
    put_location(where, js.warning_location(i));
    out["warningLocations"].push_back(std::move(where));
  }
  if (!js.note.empty()) out["note"] = js.note;
  return out;
}

}  // namespace

std::string render_json(const Report& report) {
  Json out = Json::object();
  out["schema"] = "jobset-webhook/report/v1";
  out["command"] = report.command;
  out["allowed"] = report.denied() == 0;
  // {"<judged>": n, "allowed", "denied", "updated", "created", "deleted"} of one kind.
  const auto counts = [&report](std::string_view kind, const char* judged_key) {
    const std::size_t judged =
        report.count(Change::kUpdate, kind) + report.count(Change::kCreate, kind);
    return Json{{judged_key, judged},
                {"allowed", judged - report.denied(kind)},
                {"denied", report.denied(kind)},
                {"updated", report.count(Change::kUpdate, kind)},
                {"created", report.count(Change::kCreate, kind)},
                {"deleted", report.count(Change::kDelete, kind)}};
  };
  out["summary"] = counts(kJobSetKindName, "jobsets");
  out["summary"]["skipped"] = report.skipped.size();
  out["summary"]["text"] = report.summary();
  out["summary"]["scalers"] = counts(kScalerKindName, "judged");
  out["jobsets"] = Json::array();
  out["scalers"] = Json::array();
  for (const auto& js : report.jobsets) {
    out[js.kind == kScalerKindName ? "scalers" : "jobsets"].push_back(jobset_json(js));
  }
  out["notes"] = Json::array();
  for (const auto& note : report.notes) {
    Json item = Json::object();
    put_location(item, note.where);
    item["text"] = note.text;
    out["notes"].push_back(std::move(item));
  }
  out["skipped"] = Json::array();
  for (const auto& s : report.skipped) {
    Json item = Json::object();
    put_location(item, s.where);
    item["apiVersion"] = s.api_version;
    item["kind"] = s.kind;
    item["name"] = s.name;
    out["skipped"].push_back(std::move(item));
  }
  return dump_json(out, 2) + "\n";
}

}  // namespace jobset_webhook::cli

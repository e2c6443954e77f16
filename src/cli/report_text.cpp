// The text format: one compiler-style line per finding, so that editors and terminals can jump
// to it, then one summary line.

#include "report_internal.h"

namespace jobset_webhook::cli {

std::string render_text(const Report& report) {
  std::string out;
  for (const auto& note : report.notes)
    out += note.where.to_string() + ": note: " + note.text + "\n";
  RepeatedNotes notes(report);
  for (const auto& js : report.jobsets) {
    if (js.change == Change::kDelete) {
      out += js.where.to_string() + ": note: " + deletion_text(js) + "\n";
      continue;
    }
    if (const auto note = notes.line(js)) out += js.where.to_string() + ": note: " + *note + "\n";
    for (const auto& finding : js.findings) {
      out += finding.where.to_string() + ": " + finding_text(finding) + "\n";
      if (finding.source)
        out +=
            finding.source->to_string() + ": note: " + finding.error.field + " is written here\n";
    }
    for (std::size_t i = 0; i < js.warnings.size(); ++i)
      out += js.warning_location(i).to_string() + ": warning: " + js.warnings[i] + "\n";
  }
  out += report.summary() + "\n";
  return out;
}

}  // namespace jobset_webhook::cli

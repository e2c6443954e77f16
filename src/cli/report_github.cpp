// The github format: GitHub Actions workflow commands, so that each finding shows as an
// annotation on its line of the pull request's diff.
// https://docs.github.com/actions/reference/workflow-commands-for-github-actions

#include "report_internal.h"

namespace jobset_webhook::cli {
namespace {

// The message of a command: '%', CR and LF percent-encoded, as the runner decodes them.
std::string escape_data(std::string_view raw) {
  std::string out;
  for (const char c : raw) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out += c;
    }
  }
  return out;
}

// A property value: as data, plus ':' and ',' which separate properties.
std::string escape_property(std::string_view raw) {
  std::string out;
  for (const char c : escape_data(raw)) {
    switch (c) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out += c;
    }
  }
  return out;
}

std::string command(std::string_view name, const Location& where, std::string_view title,
                    std::string_view message) {
  return "::" + std::string(name) + " file=" + escape_property(where.file) +
         ",line=" + std::to_string(where.line) + ",col=" + std::to_string(where.column) +
         ",title=" + escape_property(title) + "::" + escape_data(message) + "\n";
}

}  // namespace

std::string render_github(const Report& report) {
  std::string out;
  for (const auto& note : report.notes) out += command("notice", note.where, "Left out", note.text);
  RepeatedNotes notes(report);
  for (const auto& js : report.jobsets) {
    if (js.change == Change::kDelete) {
      out += command("notice", js.where, std::string(js.kind) + " " + js.display_name(),
                     deletion_text(js));
      continue;
    }
    const std::string title = std::string(js.kind) + " " + js.display_name() + " (" +
                              std::string(change_name(js.change)) + ")";
    if (const auto note = notes.line(js)) out += command("notice", js.where, title, *note);
    for (const auto& finding : js.findings)
      out += command("error", finding.where, title, finding_text(finding));
    for (std::size_t i = 0; i < js.warnings.size(); ++i)
      out += command("warning", js.warning_location(i), title, js.warnings[i]);
  }
  out += escape_data(report.summary()) + "\n";
  return valid_utf8(out);
}

}  // namespace jobset_webhook::cli

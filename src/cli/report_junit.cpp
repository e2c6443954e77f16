// The junit format, for CI dashboards (GitLab, Jenkins): one <testcase> per JobSet, named
// namespace/name, its classname the manifest file; a denial is a <failure> whose message is the
// server's and whose body lists the findings.

#include "report_internal.h"

namespace jobset_webhook::cli {
namespace {

enum class XmlPlace { kText, kAttribute };

// XML 1.0 text or attribute value: markup escaped, line breaks and tabs in attributes kept as
// character references (a parser would turn them into spaces), and characters XML cannot carry
// at all (most C0 controls) replaced by U+FFFD.
std::string xml(std::string_view raw, XmlPlace place = XmlPlace::kAttribute) {
  const std::string text = valid_utf8(raw);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += place == XmlPlace::kAttribute ? "&#10;" : "\n"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += place == XmlPlace::kAttribute ? "&#9;" : "\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\xEF\xBF\xBD";
        } else if (text.compare(i, 3, "\xEF\xBF\xBE") == 0 ||
                   text.compare(i, 3, "\xEF\xBF\xBF") == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFE and U+FFFF are not XML characters either
          i += 2;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string testcase(const JobSetResult& js) {
  std::string out = "    <testcase name=\"" + xml(js.display_name()) + "\" classname=\"" +
                    xml(js.where.file) + "\" file=\"" + xml(js.where.file) + "\" line=\"" +
                    std::to_string(js.where.line) + "\">\n";
  if (!js.allowed) {
    std::string body;
    for (const auto& finding : js.findings)
      body += finding.where.to_string() + ": " + finding_text(finding) + "\n";
    out += "      <failure type=\"" + std::string(change_name(js.change)) + " denied\" message=\"" +
           xml(js.message) + "\">" + xml(body, XmlPlace::kText) + "</failure>\n";
  }
  std::string system_out;
  if (js.change == Change::kDelete) system_out += deletion_text(js) + "\n";
  if (!js.note.empty()) system_out += "note: " + note_text(js) + "\n";
  for (std::size_t i = 0; i < js.warnings.size(); ++i) {
    system_out += js.warning_location(i).to_string() + ": warning: " + js.warnings[i] + "\n";
  }
  if (!system_out.empty())
    out += "      <system-out>" + xml(system_out, XmlPlace::kText) + "</system-out>\n";
  out += "    </testcase>\n";
  return out;
}

}  // namespace

std::string render_junit(const Report& report) {
  const std::string counts = "tests=\"" + std::to_string(report.jobsets.size()) + "\" failures=\"" +
                             std::to_string(report.denied()) + "\" errors=\"0\" skipped=\"0\"";
  const std::string name = xml("jobset-webhook " + report.command);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"" + name + "\" " + counts + ">\n";
  out += "  <testsuite name=\"" + name + "\" " + counts + ">\n";
  for (const auto& js : report.jobsets) out += testcase(js);
  std::string system_out;
  for (const auto& note : report.notes)
    system_out += note.where.to_string() + ": note: " + note.text + "\n";
  system_out += report.summary();
  out += "    <system-out>" + xml(system_out, XmlPlace::kText) + "</system-out>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace jobset_webhook::cli

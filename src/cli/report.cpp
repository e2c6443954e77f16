#include "report.h"

#include <algorithm>

#include "report_internal.h"
#include "jobset_webhook/field/value.h"

namespace jobset_webhook::cli {
namespace {

std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// The length of the valid UTF-8 sequence at text[i], or 0.
std::size_t utf8_length_at(std::string_view text, std::size_t i) {
  char32_t rune = 0;
  return field::decode_utf8(text, i, rune);
}

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  if (name == "junit") return Format::kJunit;
  if (name == "sarif") return Format::kSarif;
  if (name == "github") return Format::kGithub;
  return std::nullopt;
}

std::string_view change_name(Change change) {
  switch (change) {
    case Change::kUpdate: return "UPDATE";
    case Change::kCreate: return "CREATE";
    case Change::kDelete: return "DELETE";
  }
  return "UPDATE";
}

std::string JobSetResult::display_name() const {
  return namespace_name + "/" + (name.empty() ? generate_name + "*" : name);
}

Location JobSetResult::warning_location(std::size_t i) const {
  return i < warning_locations.size() ? warning_locations[i] : where;
}

std::size_t Report::count(Change change, std::string_view kind) const {
  return static_cast<std::size_t>(
      std::count_if(jobsets.begin(), jobsets.end(),
                    [&](const JobSetResult& r) { return r.change == change && r.kind == kind; }));
}

std::size_t Report::denied(std::string_view kind) const {
  return static_cast<std::size_t>(
      std::count_if(jobsets.begin(), jobsets.end(),
                    [&](const JobSetResult& r) { return !r.allowed && r.kind == kind; }));
}

std::size_t Report::denied() const {
  return static_cast<std::size_t>(std::count_if(jobsets.begin(), jobsets.end(),
                                                [](const JobSetResult& r) { return !r.allowed; }));
}

std::string Report::summary() const {
  const auto counts = [this](std::string_view kind) {
    const std::size_t judged = count(Change::kUpdate, kind) + count(Change::kCreate, kind);
    const std::string name(kind);
    std::string s = counted(judged, name, name + "s") + ": " + std::to_string(denied(kind)) +
                    " denied, " + std::to_string(judged - denied(kind)) + " allowed";
    if (command == "check") {
      s += " (" + std::to_string(count(Change::kUpdate, kind)) + " updated, " +
           std::to_string(count(Change::kCreate, kind)) + " created); " +
           std::to_string(count(Change::kDelete, kind)) + " deleted";
    }
    return s;
  };
  std::string s = command + ": " + counts(kJobSetKindName);
  if (std::any_of(jobsets.begin(), jobsets.end(),
                  [](const JobSetResult& r) { return r.kind == kScalerKindName; })) {
    s += "; " + counts(kScalerKindName);
  }
  s += "; " + counted(skipped.size(), "other object", "other objects") + " skipped";
  if (!notes.empty()) s += "; " + counted(notes.size(), "file", "files") + " left out";
  return s;
}

std::string finding_text(const Finding& finding) {
  std::string s = finding.error.to_string();
  if (finding.old_value) {
    s += " (old value: " +
         (finding.old_value->set ? finding.old_value->printed : std::string("unset")) + ")";
  }
  return s;
}

std::string deletion_text(const JobSetResult& result) {
  return std::string(result.kind) + " " + result.display_name() + " deleted (only in --old)";
}

std::string note_text(const JobSetResult& result) {
  return std::string(result.kind) + " " + result.display_name() + ": " + result.note;
}

RepeatedNotes::RepeatedNotes(const Report& report) {
  for (const auto& js : report.jobsets) {
    if (!js.note.empty()) ++seen_[note_text(js)].total;
  }
}

std::optional<std::string> RepeatedNotes::line(const JobSetResult& js) {
  if (js.note.empty()) return std::nullopt;
  std::string text = note_text(js);
  Seen& seen = seen_[text];
  const std::size_t turn = seen.printed++;
  if (turn < kRepeatsShown) return text;
  if (turn > kRepeatsShown) return std::nullopt;
  const std::size_t more = seen.total - kRepeatsShown;
  const std::string kind(js.kind);
  return kind + " " + js.display_name() + ": the same note for " + std::to_string(more) + " more " +
         (more == 1 ? kind : kind + "s");
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8_length_at(text, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string dump_json(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string render(const Report& report, Format format) {
  switch (format) {
    case Format::kText: return render_text(report);
    case Format::kJson: return render_json(report);
    case Format::kJunit: return render_junit(report);
    case Format::kSarif: return render_sarif(report);
    case Format::kGithub: return render_github(report);
  }
  return render_text(report);
}

}  // namespace jobset_webhook::cli

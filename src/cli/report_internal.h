#pragma once

// Shared by the report formats: one printed form per finding, and text cleaning.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "report.h"

namespace jobset_webhook::cli {

// "<field>: <error>", plus " (old value: <value>)" or " (old value: unset)" on UPDATE findings.
std::string finding_text(const Finding& finding);

// "JobSet default/gone deleted (only in --old)".
std::string deletion_text(const JobSetResult& result);

// "JobSet default/train: <note>" for a pairing note.
std::string note_text(const JobSetResult& result);

// The text and github formats print a pairing note that several JobSets share (all those of one
// identity that moved together get the same one) for the first kRepeatsShown of them, then once
// "JobSet default/train: the same note for 3997 more JobSets", then nothing, so that their output
// stays linear in the input.
inline constexpr std::size_t kRepeatsShown = 3;

class RepeatedNotes {
 public:
  explicit RepeatedNotes(const Report& report);
  // What to print for js's note, in report order; nullopt for none.
  std::optional<std::string> line(const JobSetResult& js);

 private:
  struct Seen {
    std::size_t total = 0;
    std::size_t printed = 0;
  };
  std::map<std::string, Seen, std::less<>> seen_;
};

// Valid UTF-8: each byte of an invalid sequence becomes U+FFFD.
std::string valid_utf8(std::string_view text);

// JSON text with invalid UTF-8 replaced; never throws.
std::string dump_json(const Json& value, int indent);

std::string render_text(const Report& report);
std::string render_json(const Report& report);
std::string render_junit(const Report& report);
std::string render_sarif(const Report& report);
std::string render_github(const Report& report);

}  // namespace jobset_webhook::cli

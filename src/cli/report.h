#pragma once

// What `check` and `validate` found, and its five printed forms. The verdict and message of each
// JobSet (and each ReplicatedJobScaler) are the decision core's own (decide() and
// admission::rejection_message); the report only adds where each finding is written and, on
// UPDATE, the old value.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "manifests.h"
#include "jobset_webhook/field/error.h"

namespace jobset_webhook::cli {

enum class Format { kText, kJson, kJunit, kSarif, kGithub };

// "text", "json", "junit", "sarif", "github"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);

// The old side of an UPDATE finding, printed as the new value is (Go-quoted strings, bare numbers).
struct OldValue {
  bool set = false;     // false when the old JobSet leaves the field unset
  std::string printed;  // empty when not set
};

struct Finding {
  field::Error error;
  Location where;                     // the field in the new manifest (or its nearest ancestor)
  std::optional<OldValue> old_value;  // UPDATE findings that show a value
  // For a JobSet kustomize rendered (where is then in its kustomization): the line of a file of
  // the kustomization's tree that writes the field's value, when one is found.
  std::optional<Location> source;
};

enum class Change { kUpdate, kCreate, kDelete };

// "UPDATE", "CREATE", "DELETE".
std::string_view change_name(Change change);

// One judged object: a JobSet, or a ReplicatedJobScaler (kind says which).
struct JobSetResult {
  std::string_view kind = kJobSetKindName;
  Change change = Change::kUpdate;
  std::string namespace_name;
  std::string name;
  std::string generate_name;
  Location where;                 // the new manifest's object; the old one's for a deletion
  bool allowed = true;            // a deletion is always allowed: it is reported, not judged
  std::string message;            // the server's status.message for a denial; empty when allowed
  std::vector<Finding> findings;  // one per distinct error, in the decision's order
  std::vector<std::string> warnings;  // the decision's warnings (admission response.warnings)
  // Where each warning points (a scale warning: its ReplicatedJob's replicas); a warning past the
  // end of this list points at the object (where).
  std::vector<Location> warning_locations;
  // How the JobSet was paired when not by its file's path (cli/pairing.h); empty otherwise.
  std::string note;

  // Where warnings[i] points.
  Location warning_location(std::size_t i) const;

  std::string display_name() const;  // "namespace/name"
};

struct Report {
  std::string command;  // "check" or "validate"
  std::vector<JobSetResult> jobsets;
  std::vector<SkippedObject> skipped;
  std::vector<InputNote> notes;  // files left out of the input, and why

  // Of the objects of that kind.
  std::size_t count(Change change, std::string_view kind = kJobSetKindName) const;
  std::size_t denied(std::string_view kind) const;
  // Of every kind: what the exit code reads.
  std::size_t denied() const;
  // "check: 3 JobSets: 1 denied, 2 allowed (1 updated, 1 created); 1 deleted; 2 other objects
  // skipped" (validate leaves out the parenthesis and the deletions); when there are scalers,
  // "; 1 ReplicatedJobScaler: 0 denied, 1 allowed (...)" in the same form before the objects
  // skipped; then "; 1 file left out" when there are notes.
  std::string summary() const;
};

// The report in one format, ending in a newline:
// - text: `file:line:col: note: <note>` per file left out, then `file:line:col: <field>: <error>`
//   per finding (immutability findings end in
//   `(old value: ...)`), `file:line:col: warning: ...`, `file:line:col: note: ...` for a pairing
//   note and for deletions, then the summary line;
// - json: the documented schema (docs/ci-gating.md), schema "jobset-webhook/report/v1";
// - junit: one <testcase> per JobSet, a <failure> for a denial;
// - sarif: SARIF 2.1.0, one result per finding and warning;
// - github: workflow commands (::error, ::warning, ::notice) then the summary line.
std::string render(const Report& report, Format format);

}  // namespace jobset_webhook::cli

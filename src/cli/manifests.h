#pragma once

// Kubernetes manifests as `check`, `validate` and `default` read them: files, directories and
// stdin; multi-document YAML, JSON and Lists; every JobSet (and every ReplicatedJobScaler, this
// project's scaler of a JobSet's replicatedJob) with the place each of its fields is written, so
// that a finding can point at its line.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "documents.h"
#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// What stdin is called in messages and reports.
inline constexpr std::string_view kStdinName = "<stdin>";

// Where something is written: the file as the user named it, 1-based line and column.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
  // "file:line:column".
  std::string to_string() const;
};

// The kinds read as manifests to judge.
inline constexpr std::string_view kJobSetKindName = admission::kJobSetKind.kind;
inline constexpr std::string_view kScalerKindName = admission::kScalerKind.kind;

// A JobSet, or a ReplicatedJobScaler (kind says which): both are read, placed and paired alike.
struct JobSetManifest {
  std::string_view kind = kJobSetKindName;
  std::string namespace_name;  // metadata.namespace; "default" when unset, as kubectl applies it
  std::string name;            // metadata.name; empty for a JobSet that has only generateName
  std::string generate_name;   // metadata.generateName
  Json object;                 // as written
  std::string file;            // as reports name it
  // The file's place: its path below the directory argument it was found through ("a/train.yaml"
  // for `deploy/a/train.yaml` found through `deploy`), with no "." or ".." parts; for a file given
  // as an argument (or stdin), "argument N", N its 1-based position. What pairs it with the other
  // side's file at the same place (cli/pairing.h).
  std::string relative;
  std::map<std::string, Mark, std::less<>> marks;  // of object's values, by JSON pointer
  // For a JobSet that kustomize rendered (file is then its kustomization, and marks the entries
  // of that file that set a field): where a file of the kustomization's tree writes a field's
  // value, by JSON pointer. Empty for a JobSet read from a file as it is written.
  std::map<std::string, Location, std::less<>> sources;
  // For a JobSet that kustomize rendered: warnings about the render itself (a strategic-merge
  // patch that dropped what the base writes), each with where it points.
  std::vector<std::pair<std::string, Location>> render_warnings;

  // "namespace/name", or "namespace/<generateName>*" for a JobSet without a name.
  std::string display_name() const;
  // What tells two objects apart: display_name(), prefixed with "<kind> " for a scaler.
  std::string identity() const;
  // Where the object starts.
  Location where() const;
  // Where the field a field-error path names is written (spec.replicatedJobs[0].template...image,
  // metadata.labels[app]). When the manifest leaves that field out (a default fills it, or the
  // path names a list as a whole), the nearest ancestor it does write; "<nil>" is the object.
  Location locate(std::string_view field_path) const;
  // Where exactly that field is written; nullopt when the manifest leaves it out.
  std::optional<Location> mark_of(std::string_view field_path) const;
  // Where sources says that field is written; nullopt when it says nothing.
  std::optional<Location> source_of(std::string_view field_path) const;
};

// A document that is neither a jobset.x-k8s.io/v1alpha2 JobSet nor an
// elastic.jobset-webhook.io/v1alpha1 ReplicatedJobScaler: counted and listed, not checked.
struct SkippedObject {
  Location where;
  std::string api_version;
  std::string kind;
  std::string name;
};

// A file load_manifests left out, and why: "left out of the base: <file>:4:3: not valid YAML".
struct InputNote {
  Location where;
  std::string text;
};

struct Manifests {
  std::vector<JobSetManifest> jobsets;
  std::vector<SkippedObject> skipped;
  std::vector<InputNote> notes;
};

// The manifest files a path names, and the links among them that were left out, and why.
struct Expanded {
  std::vector<std::string> files;
  std::vector<InputNote> notes;
};

// Where load_manifests finds files: the file system (FileSystem), or a commit of a git repository
// (cli/git_source.h).
class FileSource {
 public:
  virtual ~FileSource() = default;
  // The manifest files a path names: a file, itself; a directory, its *.yaml, *.yml and *.json
  // files, recursively, in sorted order; "-", stdin. Symbolic links among them are read as git and
  // the working tree see them: a link to a file inside the boundary (the repository) is read as
  // that file, under the link's name, unless the file is found itself (then the link is left out:
  // one file, read once); a link that leads out of the boundary, to a directory, or nowhere is
  // left out with a note. Failure names the path.
  virtual Result<Expanded> expand(const std::string& path) const = 0;
  // The content of one of those files.
  virtual Result<std::string> read(const std::string& file) const = 0;
  // The name reports give the file.
  virtual std::string display_name(const std::string& file) const = 0;
};

// The working tree. Files found in a directory are named without "./" ("deploy/a.yaml" for
// `deploy/` or `./deploy`); stdin is "<stdin>". The boundary of links is the directory `boundary`
// names (for `check --base`, the repository's top level), or when it is empty each directory
// argument itself (a copy of the repository for --old and --new).
class FileSystem : public FileSource {
 public:
  explicit FileSystem(std::string boundary = "") : boundary_(std::move(boundary)) {}
  Result<Expanded> expand(const std::string& path) const override;
  Result<std::string> read(const std::string& file) const override;
  std::string display_name(const std::string& file) const override;

 private:
  std::string boundary_;
};

// True for the names a directory contributes: *.yaml, *.yml and *.json.
bool is_manifest_file_name(std::string_view name);

// A symbolic link (its name as reports give it) and the file it leads to, named so that two names
// of one file compare equal (a real path, or a path in a commit's tree).
struct LinkTarget {
  std::string name;
  std::string target;
};

// The names of the links to read, in order: those whose target is in neither read (the files
// found as themselves) nor an earlier link's, so that each file is read once.
std::vector<std::string> links_to_read(std::set<std::string> read,
                                       const std::vector<LinkTarget>& links);

// A note that the link `name` (leading to link_text) is left out, and why: "which leads nowhere",
// "which leads out of the repository", "not a file".
InputNote link_left_out(const std::string& name, const std::string& link_text,
                        std::string_view why);

// True when path, lexically, is inside root (and not root itself).
bool is_below(const std::string& path, const std::string& root);

// The path of file below root, with no "." or ".." parts; its name when file is root itself.
// relative_below("deploy/a/t.yaml", "./deploy/") is "a/t.yaml".
std::string relative_below(const std::string& file, const std::string& root);

// What load_manifests does with a file it cannot read or parse, or that holds one JobSet twice:
// fail, or (for the base of `check --base`, which a change must be able to repair) leave the file
// out with a note saying why.
enum class Unreadable { kFail, kNote };

// Every document of every path, in order: a file; a directory, recursively, its *.yaml, *.yml and
// *.json files in sorted order; or "-" for stdin. Lists (`kind: List`, or any kind ending in List
// with items, as `kubectl get -o yaml` prints) count as their items.
// Failure, naming file and line: an unreadable path, malformed YAML, a repeated key, a document
// that is not an object with apiVersion and kind, a JobSet whose metadata, name, spec or
// spec.replicatedJobs has the wrong type, or that has neither name nor generateName.
Result<Manifests> load_manifests(const std::vector<std::string>& paths);
// The same, reading through source.
Result<Manifests> load_manifests(const std::vector<std::string>& paths, const FileSource& source,
                                 Unreadable unreadable = Unreadable::kFail);

// One text, read as load_manifests reads a file called `file`.
Result<Manifests> parse_manifests(std::string_view text, const std::string& file);

// A Failure naming both places when two JobSets of one file share namespace and name: applying the
// file (kubectl apply -f) keeps only the last. side names the input in the message ("--new"). The
// same JobSet in two files is no failure: a repository holds one file per cluster or environment.
std::optional<Failure> find_duplicate(const Manifests& manifests, std::string_view side);

// The JSON pointer tokens of a field-error path: "spec.replicatedJobs[0].name" gives
// {"spec", "replicatedJobs", "0", "name"}; "metadata.labels[a.b/c]" gives {"metadata",
// "labels", "a.b/c"}; "<nil>" gives none.
std::vector<std::string> field_path_tokens(std::string_view field_path);

}  // namespace jobset_webhook::cli

#pragma once

// One side of `check` with its kustomizations rendered (docs/ci-gating.md, "Kustomize"): a
// directory that holds a kustomization is read the way it is applied (`kubectl apply -k`),
// through kustomize, and every file at or below it is kustomize's input, not a manifest of its
// own (kustomize reads no file outside a kustomization's directory, so these are all the files a
// kustomization can use; a base shared by overlays is below its own kustomization too).

#include <optional>
#include <string>
#include <vector>

#include "manifests.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// Where a side's files are on disk, for kustomize, which reads files itself.
struct SideOnDisk {
  // The directory that stands for the current directory: "" for the working tree, or where an
  // export of --base REF holds it; nullopt when the side has no copy on disk (a --base side
  // without kustomizations): then nothing is rendered.
  std::optional<std::string> root;
  // Put before a file's name (its path relative to the current directory) in reports: "REF:".
  std::string display_prefix;
};

// load_manifests(paths, source, unreadable), with every kustomization found among paths (a
// directory holding kustomization.yaml, .yml or Kustomization) rendered instead, unless its kind
// is Component. A file named as a relative PATH in a kustomization's directory, or below one,
// stands for that kustomization (a kustomization file, a patch, a base's manifest: what
// pre-commit passes when they change). The JobSets of a render are placed (for pairing) by their kustomization file's path below its PATH; their marks point into that file
// (kustomize_origin.h: the `images:` entry or patch that set a field, line 1 otherwise) and their
// sources at a file of the tree that writes a field. Other objects of a render are skipped, at
// the kustomization's first line.
// Failure: the tool not found (binary as --kustomize; kFailedPrecondition, saying how to install
// it); with kFail, a render that fails or prints what load_manifests would refuse (with kNote
// that is a note, as for an unreadable file).
Result<Manifests> load_with_kustomize(const std::vector<std::string>& paths,
                                      const FileSource& source, Unreadable unreadable,
                                      const SideOnDisk& disk, const std::string& binary);

// True when load_with_kustomize would render a kustomization for paths in the working tree.
bool holds_kustomization(const std::vector<std::string>& paths);

// A directory of its own under $TMPDIR (or /tmp), removed with everything in it when destroyed.
class TemporaryDirectory {
 public:
  static Result<TemporaryDirectory> create();
  TemporaryDirectory(TemporaryDirectory&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  TemporaryDirectory& operator=(TemporaryDirectory&&) = delete;
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory();
  const std::string& path() const { return path_; }

 private:
  explicit TemporaryDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace jobset_webhook::cli

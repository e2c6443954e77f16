#pragma once

// Where a field that kustomize rendered comes from, best effort, so that a finding on rendered
// output points at something the user can edit: the entry of the kustomization that set it (an
// `images:` entry, a patch), and the line of a file of the kustomization's tree that writes the
// value (a patch's `value:`, a base's field).

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "documents.h"
#include "manifests.h"

namespace jobset_webhook::cli {

struct Origins {
  // By JSON pointer of the rendered object: the entry of the kustomization file that set the field.
  std::map<std::string, Mark, std::less<>> in_kustomization;
  // By JSON pointer: where a file of the tree writes that value.
  std::map<std::string, Location, std::less<>> sources;
};

// What a strategic-merge patch dropped from a rendered JobSet's replicatedJob: kustomize merges the
// lists of a custom resource by no key, so a patch that writes spec.replicatedJobs replaces the
// list whole, and what the base writes in an entry and the patch leaves out (replicas...) is gone.
struct MergeDrop {
  std::string text;  // the warning, naming the rendered replicatedJob and what it lost
  Location where;    // the patch's entry in the kustomization
};

class KustomizationTree {
 public:
  // The kustomization of dir (on disk), its patches, and every manifest file that it and the
  // kustomizations it lists (resources, bases, components) can read: kustomize reads no file
  // outside a kustomization's directory. display names a file on disk as reports give it.
  KustomizationTree(const std::string& dir, std::function<std::string(const std::string&)> display);
  // Its patches point into its own files: not copied.
  KustomizationTree(const KustomizationTree&) = delete;
  KustomizationTree& operator=(const KustomizationTree&) = delete;

  // Where each scalar of rendered (an object of the render of dir) comes from:
  // - an image whose tag, digest or name an `images:` entry sets: that entry's newTag, digest or
  //   newName;
  // - a field a JSON 6902 patch op sets to the rendered value (its path is the field or above
  //   it): the patch's entry in the kustomization, and the op's value in the patch file;
  // - a field a strategic-merge patch writes with the rendered value (same key): the entry, and
  //   that line of the patch;
  //   a patch written in the kustomization (`patch:`, an entry of patchesStrategicMerge) is such a
  //   file inside it: its line there when the patch is a literal block (`|`), else the line where
  //   the patch is written (a folded or flow scalar's lines are not the patch's);
  //   of several patches that write it, the last kustomize applies;
  // - otherwise, a file of the tree that writes the same value at the same path: its line.
  Origins trace(const Json& rendered) const;
  // For each replicatedJob of rendered (a JobSet) that a strategic-merge patch of the tree wrote
  // as a whole list entry: what a base file of the tree writes in the same-named entry of a JobSet
  // of the patch's name and rendered lacks. A replicatedJob the patch leaves out entirely is
  // reported too.
  std::vector<MergeDrop> merge_drops(const Json& rendered) const;

 private:
  struct File {
    std::string display;
    std::vector<LocatedDocument> documents;
  };
  struct Patch {
    Mark entry;        // in the kustomization
    const File* file;  // null when it cannot be read
    // Per document of file that is a strategic-merge patch: by "<key>\n<value as JSON>", where
    // the document first writes that value under that key (in document order), built once, so
    // that tracing an object costs a look-up per scalar, not a walk of the patch per scalar.
    std::vector<std::map<std::string, Location>> merge_writes;
  };

  const File* file_at(const std::string& path) const;
  // The inline patch at pointer of the kustomization, read as a file of its own whose marks are
  // positions in the kustomization; null when it is not a string that reads as YAML.
  const File* inline_patch(const std::string& pointer, const std::string& display);

  std::string display_;                // of the kustomization file
  std::map<std::string, File> files_;  // by normalised path on disk
  std::deque<File> inline_patches_;    // a deque: Patch::file points into it
  LocatedDocument kustomization_;
  std::vector<Patch> patches_;
};

}  // namespace jobset_webhook::cli

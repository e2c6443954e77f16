#pragma once

// kustomize, as CI has it: finding the kustomizations of a tree and rendering them with the real
// tool (`kustomize build DIR`, or `kubectl kustomize DIR`). Nothing of kustomize is reimplemented
// here: the rendered text is what the tool prints.

#include <optional>
#include <string>
#include <vector>

#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// The file names kustomize reads as a directory's kustomization, in its order of preference
// (sigs.k8s.io/kustomize/api konfig.RecognizedKustomizationFileNames).
inline constexpr const char* kKustomizationFileNames[] = {"kustomization.yaml", "kustomization.yml",
                                                          "Kustomization"};

// The kustomization file of dir on disk ("dir/kustomization.yaml"); nullopt when it has none.
std::optional<std::string> kustomization_file(const std::string& dir);

// True when name (a path or a file name) is one of kKustomizationFileNames.
bool is_kustomization_file_name(const std::string& name);

// Every directory at or below path (on disk) that holds a kustomization, sorted; none when path
// is a file. Links to directories are not followed, as git keeps them as links.
std::vector<std::string> kustomization_dirs(const std::string& path);

// How to run kustomize: the program and the arguments before the directory.
struct Kustomize {
  std::vector<std::string> command;  // {"/usr/bin/kustomize", "build"} or {"kubectl", "kustomize"}
};

// The tool named by binary (--kustomize: a path or a name on PATH; kubectl, whatever its path
// ends in "kubectl", is run as `kubectl kustomize`, any other as `BIN build`), or when binary is
// empty the first of kustomize and kubectl found on PATH. Failure (kFailedPrecondition, exit 2):
// none found; the message says how to install one. what names the kustomization that needs it.
Result<Kustomize> find_kustomize(const std::string& binary, const std::string& what);

// True when the kustomization file's kind is Component (kustomize.config.k8s.io/v1alpha1): a
// component is rendered only as part of a kustomization that lists it, never alone.
bool is_component(const std::string& kustomization_text);

// The multi-document YAML the tool prints for dir. Failure, after what (the kustomization file as
// reports name it): the command, its exit code and the end of its stderr, on one line.
Result<std::string> render_kustomization(const Kustomize& tool, const std::string& dir,
                                         const std::string& what);

}  // namespace jobset_webhook::cli

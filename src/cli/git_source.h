#pragma once

// `check --base REF`: the manifests of a commit, read with git itself (git rev-parse, ls-tree,
// cat-file) from the repository the current directory is in. Nothing is checked out and no file
// is written: file contents come through pipes.

#include <memory>
#include <string>

#include "manifests.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// A FileSource over the tree of ref (a branch, tag, commit, "HEAD", "origin/main"...). Paths are
// relative to the current directory, as for the working tree; a path that does not exist at ref
// names no file (its JobSets are created). Reports name a file "<ref>:<path>".
// Failure, one clear line: git not found, not inside a git repository, or ref not a commit
// (unknown, or not fetched: a shallow CI clone needs the base fetched first).
// Links are read as that commit's working tree would read them (FileSource::expand), inside the
// repository.
Result<std::unique_ptr<FileSource>> git_source(const std::string& ref);

// The top level of the work tree of the current directory (git rev-parse --show-toplevel): where
// links of the working tree may lead with --base.
Result<std::string> git_top_level();

}  // namespace jobset_webhook::cli

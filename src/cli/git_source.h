#pragma once

// `check --base REF`: the manifests of a commit, read with git itself (git rev-parse, ls-tree,
// cat-file) from the repository the current directory is in. Nothing is checked out and no file
// is written: file contents come through pipes.

#include <memory>
#include <string>
#include <vector>

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

// The names (relative to the current directory) of every file of paths at ref, links and
// extensionless files included. Failure as for git_source.
Result<std::vector<std::string>> files_at(const std::string& ref,
                                          const std::vector<std::string>& paths);

// Writes the whole tree of ref into the empty directory dir (git archive, then tar: what a
// checkout of ref would hold, without touching the repository), for tools that read files
// themselves (kustomize). Returns where the current directory is in it (dir, or dir/deploy when
// run from deploy/). Failure: git or tar not found or failing, with their message.
Result<std::string> export_commit(const std::string& ref, const std::string& dir);

// The top level of the work tree of the current directory (git rev-parse --show-toplevel): where
// links of the working tree may lead with --base.
Result<std::string> git_top_level();

}  // namespace jobset_webhook::cli

#include "git_source.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "process.h"

namespace jobset_webhook::cli {
namespace {

// Runs `git args...` in the current directory. Failure only when git cannot be started.
Result<ProcessOutput> run_git(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto run = run_process(argv);
  if (!run.ok()) {
    return failed_precondition("--base needs git, which could not be started: " +
                               run.failure().message);
  }
  return run;
}

// git's own message, on one line.
std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return text.substr(0, end);
}

// One entry of `git ls-tree -z`: "<mode> <type> <object>\t<name>".
struct TreeEntry {
  std::string mode;
  std::string object;
  std::string name;
};

// git's mode of a symbolic link, whose blob is the link's text.
constexpr std::string_view kLinkMode = "120000";
// How many links in a row are followed, as Linux's MAXSYMLINKS.
constexpr int kMaxLinks = 40;

// Where a link leads: the path of a file (relative to the current directory) and its blob, or the
// note that leaves the link out.
struct LinkEnd {
  std::string path;
  std::string object;
  std::optional<InputNote> left_out;
};

std::vector<TreeEntry> tree_entries(const std::string& out) {
  std::vector<TreeEntry> entries;
  for (std::size_t start = 0; start < out.size();) {
    auto end = out.find('\0', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    start = end + 1;
    const auto tab = line.find('\t');
    const auto space1 = line.find(' ');
    const auto space2 = line.find(' ', space1 + 1);
    if (tab == std::string::npos || space2 == std::string::npos || space2 > tab) continue;
    entries.push_back(
        {line.substr(0, space1), line.substr(space2 + 1, tab - space2 - 1), line.substr(tab + 1)});
  }
  return entries;
}

class GitTree : public FileSource {
 public:
  GitTree(std::string ref, std::string commit, std::string prefix)
      : ref_(std::move(ref)), commit_(std::move(commit)), prefix_(std::move(prefix)) {}

  Result<Expanded> expand(const std::string& path) const override {
    if (path == "-") return invalid_argument("--base: - (stdin) has no version at " + ref_);
    // ls-tree takes the path relative to the current directory and prints the names that way.
    auto listed = run_git({"ls-tree", "-r", "-z", commit_, "--", path});
    if (!listed.ok()) return listed.failure();
    if (listed.value().exit_code != 0)
      return invalid_argument(path + " at " + ref_ + ": " + first_line(listed.value().err));
    const auto given = std::filesystem::path(path).lexically_normal();
    Expanded out;
    std::vector<LinkTarget> links;
    for (auto& entry : tree_entries(listed.value().out)) {
      // A file named on the command line is read whatever its extension, as in the working tree.
      if (!is_manifest_file_name(entry.name) && std::filesystem::path(entry.name) != given)
        continue;
      if (entry.mode != kLinkMode) {
        out.files.push_back(std::move(entry.name));
        continue;
      }
      auto target = follow_link(entry);
      if (!target.ok()) return target.failure();
      if (target.value().left_out) {
        out.notes.push_back(*target.value().left_out);
      } else {
        links.push_back({entry.name, target.value().path});
        link_objects_[entry.name] = target.value().object;
      }
    }
    const auto names = links_to_read({out.files.begin(), out.files.end()}, links);
    out.files.insert(out.files.end(), names.begin(), names.end());
    std::sort(out.files.begin(), out.files.end());
    return out;
  }

  Result<std::string> read(const std::string& file) const override {
    const auto link = link_objects_.find(file);
    // "<ref>:./<path>" is relative to the current directory, as ls-tree printed it.
    auto shown = run_git(
        {"cat-file", "blob", link != link_objects_.end() ? link->second : commit_ + ":./" + file});
    if (!shown.ok()) return shown.failure();
    if (shown.value().exit_code != 0)
      return invalid_argument(display_name(file) + ": " + first_line(shown.value().err));
    return std::move(shown.value().out);
  }

  std::string display_name(const std::string& file) const override { return ref_ + ":" + file; }

 private:
  // Where a link of the tree leads, as the working tree of that commit would see it: out of the
  // repository, to a directory, or nowhere is a note.
  Result<LinkEnd> follow_link(const TreeEntry& link) const {
    TreeEntry at = link;
    std::string first_text;
    for (int hop = 0; hop < kMaxLinks; ++hop) {
      auto text = run_git({"cat-file", "blob", at.object});
      if (!text.ok()) return text.failure();
      if (text.value().exit_code != 0)
        return invalid_argument(display_name(link.name) + ": " + first_line(text.value().err));
      const std::string& link_text = text.value().out;
      if (hop == 0) first_text = link_text;
      const auto note = [&](std::string_view why) {
        return LinkEnd{"", "", link_left_out(display_name(link.name), first_text, why)};
      };
      // The target, relative to the current directory; out of the repository when it climbs
      // above the top level (or is absolute: where the commit is checked out is unknown).
      const std::string target =
          (std::filesystem::path(at.name).parent_path() / link_text).lexically_normal().string();
      const auto from_top = std::filesystem::path(prefix_ + target).lexically_normal();
      if (std::filesystem::path(link_text).is_absolute() || from_top.empty() ||
          *from_top.begin() == "..") {
        return note("which leads out of the repository");
      }
      auto listed = run_git({"ls-tree", "-z", commit_, "--", target});
      if (!listed.ok()) return listed.failure();
      const auto entries = tree_entries(listed.value().out);
      if (listed.value().exit_code != 0 || entries.size() != 1 ||
          std::filesystem::path(entries.front().name).lexically_normal() !=
              std::filesystem::path(target)) {
        return entries.empty() ? note("which leads nowhere") : note("not a file");
      }
      at = entries.front();
      if (at.mode == kLinkMode) continue;
      if (at.mode == "040000" || at.mode == "160000") return note("not a file");
      return LinkEnd{at.name, at.object, std::nullopt};
    }
    return LinkEnd{"", "", link_left_out(display_name(link.name), first_text, "a loop of links")};
  }

  std::string ref_;
  std::string commit_;  // ref resolved once, so that every file comes from the same commit
  std::string prefix_;  // the current directory below the top level ("deploy/"), or ""
  // The blob each link found by expand is read from.
  mutable std::map<std::string, std::string> link_objects_;
};

}  // namespace

Result<std::unique_ptr<FileSource>> git_source(const std::string& ref) {
  auto inside = run_git({"rev-parse", "--is-inside-work-tree"});
  if (!inside.ok()) return inside.failure();
  if (inside.value().exit_code != 0 || first_line(inside.value().out) != "true") {
    return invalid_argument("--base " + ref +
                            ": not inside a git work tree (run check from the repository, or "
                            "use --old and --new)");
  }
  auto commit =
      run_git({"rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"});
  if (!commit.ok()) return commit.failure();
  if (commit.value().exit_code != 0) {
    return invalid_argument("--base " + ref +
                            ": unknown revision, not a commit of this repository (a shallow or "
                            "single-branch clone needs it fetched: git fetch origin <branch>)");
  }
  auto prefix = run_git({"rev-parse", "--show-prefix"});
  if (!prefix.ok()) return prefix.failure();
  return std::unique_ptr<FileSource>(std::make_unique<GitTree>(ref, first_line(commit.value().out),
                                                               first_line(prefix.value().out)));
}

Result<std::vector<std::string>> files_at(const std::string& ref,
                                          const std::vector<std::string>& paths) {
  std::vector<std::string> args = {"ls-tree", "-r", "-z", "--name-only", ref + "^{commit}", "--"};
  args.insert(args.end(), paths.begin(), paths.end());
  auto listed = run_git(args);
  if (!listed.ok()) return listed.failure();
  if (listed.value().exit_code != 0)
    return invalid_argument("--base " + ref + ": " + first_line(listed.value().err));
  std::vector<std::string> names;
  const std::string& out = listed.value().out;
  for (std::size_t start = 0; start < out.size();) {
    auto end = out.find('\0', start);
    if (end == std::string::npos) end = out.size();
    names.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

Result<std::string> export_commit(const std::string& ref, const std::string& dir) {
  auto top = git_top_level();
  if (!top.ok()) return top.failure();
  auto prefix = run_git({"rev-parse", "--show-prefix"});
  if (!prefix.ok()) return prefix.failure();
  // From the top level: run in a subdirectory, git archive would export that subdirectory only.
  const std::string tar_file = dir + "/.export.tar";
  auto archived =
      run_git({"-C", top.value(), "archive", "--format=tar", "-o", tar_file, ref + "^{commit}"});
  if (!archived.ok()) return archived.failure();
  if (archived.value().exit_code != 0)
    return invalid_argument("--base " + ref + ": git archive: " + first_line(archived.value().err));
  auto extracted = run_process({"tar", "-x", "-f", tar_file, "-C", dir});
  if (!extracted.ok())
    return failed_precondition("--base: tar could not be started: " + extracted.failure().message);
  std::error_code ec;
  std::filesystem::remove(tar_file, ec);
  if (extracted.value().exit_code != 0)
    return internal_error("--base " + ref + ": tar: " + first_line(extracted.value().err));
  return (std::filesystem::path(dir) / first_line(prefix.value().out)).lexically_normal().string();
}

Result<std::string> git_top_level() {
  auto top = run_git({"rev-parse", "--show-toplevel"});
  if (!top.ok()) return top.failure();
  if (top.value().exit_code != 0)
    return invalid_argument("not inside a git work tree: " + first_line(top.value().err));
  return first_line(top.value().out);
}

}  // namespace jobset_webhook::cli

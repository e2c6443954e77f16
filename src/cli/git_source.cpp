#include "git_source.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

extern char** environ;

namespace jobset_webhook::cli {
namespace {

struct Run {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `git args...` in the current directory, its output through pipes. Failure only when git
// cannot be started (not installed, not on PATH).
Result<Run> run_git(const std::vector<std::string>& args) {
  std::array<int, 2> out_pipe{-1, -1}, err_pipe{-1, -1};
  if (::pipe(out_pipe.data()) != 0)
    return internal_error(std::string("pipe: ") + std::strerror(errno));
  if (::pipe(err_pipe.data()) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return internal_error(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  for (const int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
    posix_spawn_file_actions_addclose(&actions, fd);
  std::vector<std::string> argv_strings = {"git"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (spawned != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return failed_precondition(std::string("--base needs git, which could not be started: ") +
                               std::strerror(spawned));
  }
  Run run;
  std::array<pollfd, 2> fds{pollfd{out_pipe[0], POLLIN, 0}, pollfd{err_pipe[0], POLLIN, 0}};
  std::array<std::string*, 2> sinks{&run.out, &run.err};
  std::size_t open = 2;
  char buffer[65536];
  while (open > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (const auto& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// git's own message, on one line.
std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return text.substr(0, end);
}

class GitTree : public FileSource {
 public:
  GitTree(std::string ref, std::string commit) : ref_(std::move(ref)), commit_(std::move(commit)) {}

  Result<std::vector<std::string>> expand(const std::string& path) const override {
    if (path == "-") return invalid_argument("--base: - (stdin) has no version at " + ref_);
    // ls-tree takes the path relative to the current directory and prints the names that way.
    auto listed = run_git({"ls-tree", "-r", "-z", "--name-only", commit_, "--", path});
    if (!listed.ok()) return listed.failure();
    if (listed.value().exit_code != 0)
      return invalid_argument(path + " at " + ref_ + ": " + first_line(listed.value().err));
    const std::string& out = listed.value().out;
    const auto given = std::filesystem::path(path).lexically_normal();
    std::vector<std::string> files;
    for (std::size_t start = 0; start < out.size();) {
      auto end = out.find('\0', start);
      if (end == std::string::npos) end = out.size();
      std::string name = out.substr(start, end - start);
      start = end + 1;
      // A file named on the command line is read whatever its extension, as in the working tree.
      if (is_manifest_file_name(name) || std::filesystem::path(name) == given)
        files.push_back(std::move(name));
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  Result<std::string> read(const std::string& file) const override {
    // "<ref>:./<path>" is relative to the current directory, as ls-tree printed it.
    auto shown = run_git({"cat-file", "blob", commit_ + ":./" + file});
    if (!shown.ok()) return shown.failure();
    if (shown.value().exit_code != 0)
      return invalid_argument(display_name(file) + ": " + first_line(shown.value().err));
    return std::move(shown.value().out);
  }

  std::string display_name(const std::string& file) const override { return ref_ + ":" + file; }

 private:
  std::string ref_;
  std::string commit_;  // ref resolved once, so that every file comes from the same commit
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
  return std::unique_ptr<FileSource>(
      std::make_unique<GitTree>(ref, first_line(commit.value().out)));
}

}  // namespace jobset_webhook::cli

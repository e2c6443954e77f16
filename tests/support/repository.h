#pragma once

// Test helpers for `check` on repositories: small JobSet manifests, the binary run in a directory
// through the shell, git repositories with everything committed, positions of text in a file.

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

#include "support/files.h"
#include "support/process.h"

namespace jobset_webhook::testing {

// A JobSet with one ReplicatedJob "workers"; replicas < 0 leaves replicas out.
inline std::string jobset_yaml(const std::string& name, const std::string& image, int replicas = -1,
                               const std::string& extra_spec = "") {
  return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " + name +
         "\nspec:\n" + extra_spec + "  replicatedJobs:\n  - name: workers\n" +
         (replicas >= 0 ? "    replicas: " + std::to_string(replicas) + "\n" : "") +
         "    template:\n      spec:\n        template:\n          spec:\n            containers:\n"
         "            - name: main\n              image: " +
         image + "\n";
}

// "line:column" (1-based) of offset at in text.
inline std::string position_at(const std::string& text, std::size_t at) {
  const auto newline = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  const auto line_start = newline == std::string::npos ? 0 : newline + 1;
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
  return std::to_string(line) + ":" + std::to_string(at - line_start + 1);
}

// "line:column" of the first needle in text; the test fails if there is none.
inline std::string position_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return position_at(text, at);
}

// Runs a shell command line; stdout and stderr captured.
inline ProcessResult shell(const std::string& command) {
  ScratchDir out;
  const std::string cmd =
      "(" + command + ") >" + out.path() + "/stdout 2>" + out.path() + "/stderr </dev/null";
  const int status = std::system(cmd.c_str());
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out.path() + "/stdout");
  r.err = slurp(out.path() + "/stderr");
  return r;
}

// jobset-webhook with args, run in dir (env: assignments put before it, e.g. "PATH=/none").
inline ProcessResult run_in(const std::string& dir, const std::string& args,
                            const std::string& env = "") {
  return shell("cd '" + dir + "' && " + env + (env.empty() ? "" : " ") + JOBSET_WEBHOOK_BINARY +
               " " + args);
}

inline bool have(const std::string& command) {
  return std::system(("command -v " + command + " >/dev/null 2>&1").c_str()) == 0;
}

// A git repository in dir with everything in it committed; git's identity and hooks are the
// test's own, so that a developer's configuration does not matter.
inline const std::string kGit =
    "git -c user.name=test -c user.email=test@example.com -c commit.gpgsign=false "
    "-c core.hooksPath=/dev/null";

inline void git_commit_all(const std::string& dir, const std::string& message) {
  const auto r = shell("cd '" + dir + "' && " + kGit + " add -A && " + kGit +
                       " commit -q --allow-empty -m '" + message + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

inline void git_init(const std::string& dir) {
  const auto r = shell("cd '" + dir + "' && git init -q -b main .");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  git_commit_all(dir, "initial");
}

inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace jobset_webhook::testing

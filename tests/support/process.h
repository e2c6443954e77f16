#pragma once

// Test helper: runs the jobset-webhook binary as a user would, with its stdin from a string,
// and captures stdout, stderr and the exit code.

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace jobset_webhook::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// args is appended to the binary's path as shell words; keep it to simple, quoted words.
inline ProcessResult run_cli(const std::string& args, const std::string& input = "") {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("jobset-webhook-test-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "stdin", std::ios::binary) << input;
  const std::string cmd = std::string(JOBSET_WEBHOOK_BINARY) + " " + args + " <" +
                          (dir / "stdin").string() + " >" + (dir / "stdout").string() + " 2>" +
                          (dir / "stderr").string();
  const int status = std::system(cmd.c_str());
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "stdout");
  r.err = slurp(dir / "stderr");
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace jobset_webhook::testing

#pragma once

// Test helper: `jobset-webhook serve` as a separate process, started as a user or a container
// runtime starts it (any command line that ends up running the binary, e.g. under chroot), its
// stderr (the JSON log) in a file, its ports read from its "serving" log line.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jobset_webhook/json.h"
#include "support/pki.h"
#include "support/process.h"

extern char** environ;

namespace jobset_webhook::testing {

class ServeProcess {
 public:
  // argv[0] is looked up in PATH when it has no slash.
  explicit ServeProcess(std::vector<std::string> argv)
      : log_file_((fresh_temp_dir("serve-log") / "stderr").string()) {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    // The test process may block signals in its threads; the server must start with a clean mask.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    // The environment as a container runtime gives it, without the MALLOC_PERTURB_ that `meson
    // test` sets for each test: glibc then fills every block it hands out, so each page of a
    // buffer serve allocates and never touches (simdjson sizes its tape and indexes for the whole
    // body) becomes resident. The memory tests measure serve as deployed: under it the storm's
    // peak was 131 MiB, as started by a runtime 42 MiB.
    std::vector<char*> env;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::strncmp(*e, "MALLOC_PERTURB_=", 16) != 0) env.push_back(*e);
    }
    env.push_back(nullptr);
    if (posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), env.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }

  // `jobset-webhook serve` of this build on 127.0.0.1, ephemeral ports, no metrics port (its
  // default is fixed), then extra_args.
  static std::vector<std::string> serve_args(const std::vector<std::string>& extra_args) {
    std::vector<std::string> argv = {
        JOBSET_WEBHOOK_BINARY, "serve", "--bind",         "127.0.0.1", "--port", "0",
        "--health-port",       "0",     "--metrics-port", "0"};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    return argv;
  }

  ~ServeProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log_file() const { return log_file_; }

  // The log so far, a JSON object per line.
  std::vector<Json> log_lines() const {
    std::vector<Json> out;
    std::istringstream in(slurp(log_file_));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(Json::parse(line));
    }
    return out;
  }

  // The "serving" log line, once written (waits at most 30 s); null if the process exited or
  // never wrote it.
  Json wait_serving() {
    for (int i = 0; i < 3000 && pid_ > 0; ++i) {
      for (const auto& line : log_lines()) {
        if (line.value("msg", "") == "serving") return line;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return nullptr;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return nullptr;
  }

  void signal(int sig) const { ::kill(pid_, sig); }

  // Waits (at most 30 s) for the exit status, or 128 + the signal; -1 (after SIGKILL) when the
  // process did not exit in time.
  int wait_exit() {
    for (int i = 0; i < 3000 && !exited_; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      exited_ = true;
    }
    return exit_code_;
  }

 private:
  std::string log_file_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_code_ = -1;
};

}  // namespace jobset_webhook::testing

#pragma once

// Test helpers: scratch directories and files, and the example JobSets.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace jobset_webhook::testing {

// A fresh directory under the system's temporary directory, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() /
        ("jobset-webhook-scratch-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes content to a path relative to the directory, creating parents; returns the full path.
  std::string write(const std::string& relative, const std::string& content) const {
    const auto full = path_ / relative;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary) << content;
    return full.string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// This project's example JobSets, written here (tests/data/jobsets).
inline const std::string kFixtureJobSets = JOBSET_TESTDATA_DIR "/jobsets";
// Upstream JobSet's examples: read only by tests tagged [upstream_examples], which `meson test`
// runs where the directory is present (tests/meson.build).
inline const std::string kUpstreamExamples = JOBSET_EXAMPLES_DIR;

// Every *.yaml under root, sorted.
inline std::vector<std::string> yaml_files(const std::string& root) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace jobset_webhook::testing

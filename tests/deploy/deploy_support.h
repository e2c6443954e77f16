#pragma once

// Test helpers for manifests/: a private copy of the tree to render (overlays may generate files
// into it), `kubectl kustomize` run on it, and lookups in the rendered objects.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli/documents.h"
#include "jobset_webhook/json.h"
#include "support/process.h"

namespace jobset_webhook::testing {

namespace fs = std::filesystem;

// Runs a shell command line; captures stdout, stderr and the exit code.
inline ProcessResult run_shell(const std::string& command) {
  const auto dir =
      fs::temp_directory_path() /
      ("jobset-webhook-shell-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  fs::create_directories(dir);
  const int status = std::system(
      ("(" + command + ") </dev/null >" + (dir / "out").string() + " 2>" + (dir / "err").string())
          .c_str());
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  fs::remove_all(dir);
  return r;
}

inline bool have_kubectl() { return run_shell("command -v kubectl").exit_code == 0; }

// A copy of the repository's manifests/ in a fresh directory, without anything an overlay
// generated in the source tree; removed with the object.
class ManifestsCopy {
 public:
  ManifestsCopy()
      : root_(fs::temp_directory_path() /
              ("jobset-webhook-manifests-" + std::to_string(::getpid()) + "-" +
               std::to_string(std::rand()))) {
    const fs::path source = fs::path(JOBSET_SOURCE_DIR) / "manifests";
    for (auto it = fs::recursive_directory_iterator(source);
         it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && it->path().filename() == "generated") {
        it.disable_recursion_pending();
        continue;
      }
      const auto target = root_ / fs::relative(it->path(), source);
      if (it->is_directory()) {
        fs::create_directories(target);
      } else {
        fs::copy_file(it->path(), target);
      }
    }
  }
  ~ManifestsCopy() { fs::remove_all(root_); }
  ManifestsCopy(const ManifestsCopy&) = delete;
  ManifestsCopy& operator=(const ManifestsCopy&) = delete;

  const fs::path& root() const { return root_; }
  fs::path overlay(const std::string& name) const { return root_ / "overlays" / name; }

  std::vector<std::string> overlays() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(root_ / "overlays")) {
      if (entry.is_directory()) names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path root_;
};

// Runs an overlay's set-ca-bundle with this build's binary.
inline ProcessResult set_ca_bundle(const fs::path& overlay, const std::string& args = "") {
  return run_shell("JOBSET_WEBHOOK='" + std::string(JOBSET_WEBHOOK_BINARY) + "' '" +
                   (overlay / "set-ca-bundle").string() + "' " + args);
}

// `kubectl kustomize DIR`, parsed; REQUIREs success.
inline std::vector<Json> render(const fs::path& dir) {
  const auto r = run_shell("kubectl kustomize '" + dir.string() + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto docs = cli::parse_yaml_documents(r.out, dir.string());
  INFO((docs.ok() ? "" : docs.failure().message));
  REQUIRE(docs.ok());
  return docs.value();
}

inline std::vector<Json> all_of_kind(const std::vector<Json>& objects, const std::string& kind) {
  std::vector<Json> out;
  for (const auto& o : objects) {
    if (o.value("kind", "") == kind) out.push_back(o);
  }
  return out;
}

// The one object of that kind (and name, if given); REQUIREs that there is exactly one.
inline Json one_of_kind(const std::vector<Json>& objects, const std::string& kind,
                        const std::string& name = "") {
  std::vector<Json> found;
  for (const auto& o : all_of_kind(objects, kind)) {
    if (name.empty() || o["metadata"].value("name", "") == name) found.push_back(o);
  }
  INFO(kind << " " << name);
  REQUIRE(found.size() == 1);
  return found.front();
}

}  // namespace jobset_webhook::testing

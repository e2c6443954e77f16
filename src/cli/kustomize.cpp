#include "kustomize.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "documents.h"
#include "process.h"

namespace jobset_webhook::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInstallHint =
    "install kustomize (https://kubectl.docs.kubernetes.io/installation/kustomize/) or kubectl "
    "(https://kubernetes.io/docs/tasks/tools/), or name the binary with --kustomize BIN";

// The end of a tool's stderr, on one line: enough to say what went wrong, never a page.
std::string tail_of(const std::string& err) {
  constexpr std::size_t kMaxBytes = 2000;
  std::string text = err.size() > kMaxBytes ? "..." + err.substr(err.size() - kMaxBytes) : err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // The CLI's errors are one line.
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at))
    text.replace(at, 1, "; ");
  return text;
}

}  // namespace

bool is_kustomization_file_name(const std::string& name) {
  const std::string base = fs::path(name).filename().string();
  return std::any_of(std::begin(kKustomizationFileNames), std::end(kKustomizationFileNames),
                     [&](const char* known) { return base == known; });
}

std::optional<std::string> kustomization_file(const std::string& dir) {
  for (const char* name : kKustomizationFileNames) {
    std::error_code ec;
    const fs::path file = fs::path(dir) / name;
    if (fs::is_regular_file(file, ec)) return file.lexically_normal().string();
  }
  return std::nullopt;
}

std::vector<std::string> kustomization_dirs(const std::string& path) {
  std::vector<std::string> dirs;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return dirs;
  if (kustomization_file(path)) dirs.push_back(fs::path(path).lexically_normal().string());
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_symlink(type_ec) || !it->is_directory(type_ec)) continue;
    if (kustomization_file(it->path().string()))
      dirs.push_back(it->path().lexically_normal().string());
  }
  for (auto& dir : dirs) {
    if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

Result<Kustomize> find_kustomize(const std::string& binary, const std::string& what) {
  const auto as_tool = [](const std::string& program) {
    const std::string name = fs::path(program).filename().string();
    const bool kubectl = name.size() >= 7 && name.compare(name.size() - 7, 7, "kubectl") == 0;
    return Kustomize{{program, kubectl ? "kustomize" : "build"}};
  };
  if (!binary.empty()) {
    if (auto found = find_on_path(binary)) return as_tool(*found);
    return failed_precondition(what + ": --kustomize " + binary +
                               ": no such executable (a path, or a program on PATH)");
  }
  for (const char* name : {"kustomize", "kubectl"}) {
    if (auto found = find_on_path(name)) return as_tool(*found);
  }
  return failed_precondition(what +
                             ": rendering a kustomization needs kustomize or kubectl, and neither "
                             "is on PATH: " +
                             kInstallHint);
}

bool is_component(const std::string& kustomization_text) {
  auto docs = parse_yaml_documents(kustomization_text, "kustomization");
  if (!docs.ok() || docs.value().empty() || !docs.value().front().is_object()) return false;
  const auto kind = docs.value().front().find("kind");
  return kind != docs.value().front().end() && *kind == "Component";
}

Result<std::string> render_kustomization(const Kustomize& tool, const std::string& dir,
                                         const std::string& what) {
  std::vector<std::string> argv = tool.command;
  argv.push_back(dir);
  auto run = run_process(argv);
  if (!run.ok()) {
    return failed_precondition(what + ": " + tool.command.front() +
                               " could not be started: " + run.failure().message);
  }
  if (run.value().exit_code != 0) {
    std::string command;
    for (const auto& arg : argv) command += (command.empty() ? "" : " ") + arg;
    return invalid_argument(what + ": `" + command + "` failed (exit " +
                            std::to_string(run.value().exit_code) +
                            "): " + tail_of(run.value().err));
  }
  return std::move(run.value().out);
}

}  // namespace jobset_webhook::cli

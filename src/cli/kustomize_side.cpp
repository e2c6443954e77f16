#include "kustomize_side.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>
#include <utility>

#include "kustomize.h"
#include "kustomize_origin.h"

namespace jobset_webhook::cli {
namespace {

namespace fs = std::filesystem;

std::string normal_dir(const fs::path& path) {
  std::string out = path.lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// source, without the files at or below the directories that kustomizations own.
class OutsideKustomizations : public FileSource {
 public:
  OutsideKustomizations(const FileSource& source, std::vector<std::string> owned)
      : source_(source), owned_(std::move(owned)) {}
  Result<Expanded> expand(const std::string& path) const override {
    auto expanded = source_.expand(path);
    if (!expanded.ok()) return expanded;
    auto& files = expanded.value().files;
    std::erase_if(files, [&](const std::string& file) {
      if (file == "-") return false;
      for (const auto& dir : owned_) {
        if (is_below(file, dir)) return true;
      }
      return false;
    });
    return expanded;
  }
  Result<std::string> read(const std::string& file) const override { return source_.read(file); }
  std::string display_name(const std::string& file) const override {
    return source_.display_name(file);
  }

 private:
  const FileSource& source_;
  std::vector<std::string> owned_;
};

// A kustomization to render: its directory on disk, its file as the current directory names it,
// and the PATH it was found through.
struct Found {
  std::string dir_on_disk;
  std::string file;  // relative to the current directory
  std::string path;
};

// For a file PATH given relative to the current directory (as pre-commit passes changed files):
// the nearest directory, its own or above it up to the current directory, that holds a
// kustomization, on disk; the file is that kustomization's input. nullopt otherwise, and for an
// absolute PATH (a render saved outside the tree, e.g. by the Helm recipe).
template <typename OnDisk>
std::optional<std::string> owner_of(const std::string& path, const OnDisk& on_disk) {
  const fs::path given(path);
  std::error_code ec;
  if (given.is_absolute() || !fs::is_regular_file(on_disk(path), ec)) return std::nullopt;
  for (fs::path dir = given.lexically_normal().parent_path();; dir = dir.parent_path()) {
    const std::string here = on_disk(dir.empty() ? std::string(".") : dir.string());
    if (kustomization_file(here)) return here;
    if (dir.empty()) return std::nullopt;
  }
}

// Reads one render as load_manifests reads a file, then places and locates its objects.
Result<Manifests> read_render(const std::string& text, const Found& found,
                              const std::string& display_file,
                              const std::function<std::string(const std::string&)>& display) {
  auto rendered = parse_manifests(text, "the render of " + display_file);
  if (!rendered.ok()) return rendered.failure();
  Manifests out = std::move(rendered).value();
  const Location first_line{display_file, 1, 1};
  const std::string relative = relative_below(found.file, found.path);
  std::optional<KustomizationTree> tree;
  for (auto& js : out.jobsets) {
    if (!tree) tree.emplace(found.dir_on_disk, display);
    auto origins = tree->trace(js.object);
    js.file = display_file;
    js.relative = relative;
    js.marks = std::move(origins.in_kustomization);
    js.marks.emplace("", Mark{1, 1});
    js.sources = std::move(origins.sources);
    for (auto& drop : tree->merge_drops(js.object)) {
      js.render_warnings.emplace_back(std::move(drop.text), std::move(drop.where));
    }
  }
  for (auto& skipped : out.skipped) skipped.where = first_line;
  return out;
}

}  // namespace

Result<Manifests> load_with_kustomize(const std::vector<std::string>& paths,
                                      const FileSource& source, Unreadable unreadable,
                                      const SideOnDisk& disk, const std::string& binary) {
  if (!disk.root) return load_manifests(paths, source, unreadable);
  const std::string& root = *disk.root;
  const auto on_disk = [&](const std::string& path) {
    return root.empty() ? path : normal_dir(fs::path(root) / path);
  };
  const auto from_disk = [&](const std::string& file) {
    return root.empty() ? normal_dir(file) : normal_dir(fs::path(file).lexically_relative(root));
  };
  const auto display = [&](const std::string& file_on_disk) {
    return disk.display_prefix + from_disk(file_on_disk);
  };

  std::vector<Found> found;
  std::vector<std::string> owned;
  std::map<std::string, bool> seen;
  for (const auto& path : paths) {
    if (path == "-") continue;
    std::vector<std::string> dirs = kustomization_dirs(on_disk(path));
    if (dirs.empty()) {
      if (auto owner = owner_of(path, on_disk)) dirs.push_back(*owner);
    }
    for (const auto& dir : dirs) {
      const std::string dir_here = from_disk(dir);
      owned.push_back(dir_here);
      if (seen[dir]) continue;
      seen[dir] = true;
      const auto file = kustomization_file(dir);
      if (file) found.push_back({dir, from_disk(*file), path});
    }
  }
  auto plain = load_manifests(paths, OutsideKustomizations(source, owned), unreadable);
  if (!plain.ok() || found.empty()) return plain;
  Manifests out = std::move(plain).value();

  std::optional<Kustomize> tool;
  for (const auto& kustomization : found) {
    const std::string display_file = disk.display_prefix + kustomization.file;
    auto text = read_input(on_disk(kustomization.file));
    if (text.ok() && is_component(text.value())) continue;
    if (!tool) {
      auto detected = find_kustomize(binary, display_file);
      if (!detected.ok()) return detected.failure();
      tool = std::move(detected).value();
    }
    auto rendered = render_kustomization(*tool, kustomization.dir_on_disk, display_file);
    Result<Manifests> read =
        rendered.ok() ? read_render(rendered.value(), kustomization, display_file, display)
                      : Result<Manifests>(rendered.failure());
    if (!read.ok()) {
      if (unreadable == Unreadable::kFail) return read.failure();
      InputNote note;
      note.where.file = display_file;
      note.where.line = 1;
      note.where.column = 1;
      note.text = "left out, it cannot be rendered: " + read.failure().message;
      out.notes.push_back(std::move(note));
      continue;
    }
    auto& more = read.value();
    for (auto& js : more.jobsets) out.jobsets.push_back(std::move(js));
    out.skipped.insert(out.skipped.end(), more.skipped.begin(), more.skipped.end());
  }
  return out;
}

bool holds_kustomization(const std::vector<std::string>& paths) {
  const auto here = [](const std::string& path) { return path; };
  return std::any_of(paths.begin(), paths.end(), [&](const std::string& path) {
    return path != "-" && (!kustomization_dirs(path).empty() || owner_of(path, here));
  });
}

Result<TemporaryDirectory> TemporaryDirectory::create() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/jobset-webhook-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    return internal_error("cannot create a temporary directory in " + pattern);
  return TemporaryDirectory(pattern);
}

TemporaryDirectory::~TemporaryDirectory() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace jobset_webhook::cli

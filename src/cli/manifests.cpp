#include "manifests.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json_pointer.h"

namespace jobset_webhook::cli {
namespace {

namespace fs = std::filesystem;

using Marks = std::map<std::string, Mark, std::less<>>;

const std::string* string_member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

Location location_of(const std::string& file, const Marks& marks, std::string_view pointer) {
  const auto it = marks.find(pointer);
  if (it == marks.end()) return {file, 1, 1};
  return {file, it->second.line, it->second.column};
}

Failure failure_at(const Location& where, std::string_view problem) {
  return invalid_argument(where.to_string() + ": " + std::string(problem));
}

// The marks below prefix, re-rooted there: an item of a List becomes a document of its own.
Marks marks_below(const Marks& marks, const std::string& prefix) {
  Marks out;
  for (auto it = marks.lower_bound(prefix); it != marks.end(); ++it) {
    const std::string& pointer = it->first;
    if (pointer.compare(0, prefix.size(), prefix) != 0) break;
    if (pointer.size() == prefix.size()) {
      out.emplace("", it->second);
    } else if (pointer[prefix.size()] == '/') {
      out.emplace(pointer.substr(prefix.size()), it->second);
    }
  }
  return out;
}

bool is_list(const Json& object) {
  const auto* kind = string_member(object, "kind");
  return kind != nullptr && kind->size() >= 4 && kind->compare(kind->size() - 4, 4, "List") == 0 &&
         object.contains("items");
}

// Checks the shapes that an object of kind (a JobSet, a scaler) needs before the rules can read
// it; handle_review refuses the same shapes with 400. A scaler's spec is the rules' to judge.
std::optional<Failure> misshapen(std::string_view kind, const Json& object, const std::string& file,
                                 const Marks& marks) {
  const auto at = [&](std::string_view pointer) { return location_of(file, marks, pointer); };
  const std::string name_of_kind(kind);
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object())
    return failure_at(at(""), name_of_kind + " has no metadata mapping");
  for (const char* key : {"name", "namespace", "generateName"}) {
    const auto it = metadata->find(key);
    if (it != metadata->end() && !it->is_string() && !it->is_null()) {
      return failure_at(at(std::string("/metadata/") + key),
                        name_of_kind + " metadata." + key + " must be a string");
    }
  }
  if (string_member(*metadata, "name") == nullptr &&
      string_member(*metadata, "generateName") == nullptr) {
    return failure_at(at("/metadata"),
                      name_of_kind + " has neither metadata.name nor metadata.generateName");
  }
  if (kind != kJobSetKindName) return std::nullopt;
  const auto spec = object.find("spec");
  if (spec == object.end() || spec->is_null()) return std::nullopt;
  if (!spec->is_object()) return failure_at(at("/spec"), "JobSet spec must be a mapping");
  const auto rjobs = spec->find("replicatedJobs");
  if (rjobs == spec->end() || rjobs->is_null()) return std::nullopt;
  if (!rjobs->is_array())
    return failure_at(at("/spec/replicatedJobs"), "JobSet spec.replicatedJobs must be a list");
  // The rules match entries by name; the API server's schema refuses an entry that is not an
  // object.
  for (std::size_t i = 0; i < rjobs->size(); ++i) {
    if (!(*rjobs)[i].is_object()) {
      return failure_at(at("/spec/replicatedJobs/" + std::to_string(i)),
                        "JobSet spec.replicatedJobs[" + std::to_string(i) + "] must be a mapping");
    }
  }
  return std::nullopt;
}

// kJobSetKindName or kScalerKindName for the objects check and validate judge; nullopt for the
// rest.
std::optional<std::string_view> kind_judged(std::string_view api_version, std::string_view kind) {
  for (const auto& judged : {admission::kJobSetKind, admission::kScalerKind}) {
    if (kind == judged.kind &&
        api_version == std::string(judged.group) + "/" + std::string(judged.version)) {
      return judged.kind;
    }
  }
  return std::nullopt;
}

class Reader {
 public:
  Manifests manifests;

  // One object of a file: a JobSet, a List of objects, or another kind.
  std::optional<Failure> add(Json object, const std::string& file, const std::string& relative,
                             Marks marks) {
    const Location where = location_of(file, marks, "");
    if (!object.is_object())
      return failure_at(where, "a document must be a Kubernetes object (a mapping), got " +
                                   std::string(object.type_name()));
    const auto* api_version = string_member(object, "apiVersion");
    const auto* kind = string_member(object, "kind");
    if (kind == nullptr)
      return failure_at(where, "not a Kubernetes object: kind is missing or not a string");
    if (api_version == nullptr)
      return failure_at(where, "not a Kubernetes object: apiVersion is missing or not a string");
    if (is_list(object)) return add_items(object, file, relative, marks);
    const auto judged_kind = kind_judged(*api_version, *kind);
    if (!judged_kind) {
      const auto metadata = object.find("metadata");
      const auto* name = metadata == object.end() ? nullptr : string_member(*metadata, "name");
      manifests.skipped.push_back({where, *api_version, *kind, name == nullptr ? "" : *name});
      return std::nullopt;
    }
    if (auto problem = misshapen(*judged_kind, object, file, marks)) return problem;
    JobSetManifest js;
    js.kind = *judged_kind;
    const Json& metadata = object["metadata"];
    const auto* ns = string_member(metadata, "namespace");
    js.namespace_name = ns == nullptr || ns->empty() ? "default" : *ns;
    if (const auto* name = string_member(metadata, "name")) js.name = *name;
    if (const auto* generate = string_member(metadata, "generateName"))
      js.generate_name = *generate;
    js.object = std::move(object);
    js.file = file;
    js.relative = relative;
    js.marks = std::move(marks);
    manifests.jobsets.push_back(std::move(js));
    return std::nullopt;
  }

  std::optional<Failure> add_text(std::string_view text, const std::string& file,
                                  const std::string& relative) {
    auto docs = parse_located_documents(text, file);
    if (!docs.ok()) return docs.failure();
    for (auto& doc : docs.value()) {
      if (auto problem = add(std::move(doc.value), file, relative, std::move(doc.marks)))
        return problem;
    }
    return std::nullopt;
  }

 private:
  std::optional<Failure> add_items(const Json& list, const std::string& file,
                                   const std::string& relative, const Marks& marks) {
    const Json& items = list["items"];
    if (items.is_null()) return std::nullopt;
    if (!items.is_array())
      return failure_at(location_of(file, marks, "/items"), "items of a List must be a list");
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string prefix = "/items/" + std::to_string(i);
      if (auto problem = add(items[i], file, relative, marks_below(marks, prefix))) return problem;
    }
    return std::nullopt;
  }
};

bool is_manifest_file(const fs::path& path) {
  const auto ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// The first JobSet of jobsets[from..] that shares file, namespace and name with an earlier one.
std::optional<Failure> duplicate_in(const std::vector<JobSetManifest>& jobsets, std::size_t from,
                                    std::string_view side) {
  std::map<std::pair<std::string, std::string>, const JobSetManifest*> seen;
  for (auto js_it = jobsets.begin() + static_cast<std::ptrdiff_t>(from); js_it != jobsets.end();
       ++js_it) {
    const JobSetManifest& js = *js_it;
    if (js.name.empty()) continue;
    const auto [it, inserted] = seen.emplace(std::pair{js.file, js.identity()}, &js);
    if (!inserted) {
      return invalid_argument(js.where().to_string() + ": " + std::string(side) + " holds " +
                              std::string(js.kind) + " " + js.display_name() +
                              " twice in one file (first at " + it->second->where().to_string() +
                              "); applying the file keeps only the last");
    }
  }
  return std::nullopt;
}

}  // namespace

bool is_manifest_file_name(std::string_view name) { return is_manifest_file(fs::path(name)); }

bool is_below(const std::string& path, const std::string& root) {
  const fs::path below =
      fs::path(path).lexically_normal().lexically_relative(fs::path(root).lexically_normal());
  return !below.empty() && *below.begin() != "..";
}

std::vector<std::string> links_to_read(std::set<std::string> read,
                                       const std::vector<LinkTarget>& links) {
  std::vector<std::string> names;
  for (const auto& link : links) {
    if (read.insert(link.target).second) names.push_back(link.name);
  }
  return names;
}

InputNote link_left_out(const std::string& name, const std::string& link_text,
                        std::string_view why) {
  return {{name, 1, 1}, "left out: a link to " + link_text + ", " + std::string(why)};
}

Result<Expanded> FileSystem::expand(const std::string& path) const {
  if (path == "-") return Expanded{{path}, {}};
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec) return invalid_argument(path + ": " + ec.message());
  if (!fs::is_directory(status)) return Expanded{{path}, {}};
  const std::string boundary = fs::canonical(boundary_.empty() ? path : boundary_, ec).string();
  if (ec) return invalid_argument(path + ": " + ec.message());
  const std::string out_of =
      "which leads out of " + (boundary_.empty() ? path : std::string("the repository"));
  Expanded out;
  std::vector<LinkTarget> links;
  fs::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!is_manifest_file(it->path())) continue;
    const std::string name = it->path().lexically_normal().string();
    if (!it->is_symlink(type_ec)) {
      if (it->is_regular_file(type_ec)) out.files.push_back(name);
      continue;
    }
    const std::string text = fs::read_symlink(it->path(), type_ec).string();
    const auto target = fs::canonical(it->path(), type_ec);
    if (type_ec) {
      out.notes.push_back(link_left_out(name, text, "which leads nowhere"));
    } else if (!is_below(target.string(), boundary)) {
      out.notes.push_back(link_left_out(name, text, out_of));
    } else if (!fs::is_regular_file(target, type_ec)) {
      out.notes.push_back(link_left_out(name, text, "not a file"));
    } else {
      links.push_back({name, target.string()});
    }
  }
  if (ec) return invalid_argument(path + ": " + ec.message());
  if (!links.empty()) {
    // Files are compared with links by their real paths.
    std::set<std::string> read;
    for (const auto& file : out.files) read.insert(fs::canonical(file, ec).string());
    const auto names = links_to_read(std::move(read), links);
    out.files.insert(out.files.end(), names.begin(), names.end());
  }
  std::sort(out.files.begin(), out.files.end());
  std::sort(out.notes.begin(), out.notes.end(),
            [](const InputNote& a, const InputNote& b) { return a.where.file < b.where.file; });
  return out;
}

Result<std::string> FileSystem::read(const std::string& file) const { return read_input(file); }

std::string FileSystem::display_name(const std::string& file) const {
  return file == "-" ? std::string(kStdinName) : file;
}

std::string relative_below(const std::string& file, const std::string& root) {
  if (file == "-") return std::string(kStdinName);
  const fs::path f = fs::path(file).lexically_normal();
  fs::path r = fs::path(root).lexically_normal();
  if (!r.empty() && !r.has_filename()) r = r.parent_path();
  if (f == r) return f.filename().string();
  const fs::path below = f.lexically_relative(r);
  if (below.empty() || *below.begin() == "..") return f.filename().string();
  return below.string();
}

std::string Location::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string JobSetManifest::display_name() const {
  return namespace_name + "/" + (name.empty() ? generate_name + "*" : name);
}

std::string JobSetManifest::identity() const {
  return kind == kJobSetKindName ? display_name() : std::string(kind) + " " + display_name();
}

Location JobSetManifest::where() const { return location_of(file, marks, ""); }

std::optional<Location> JobSetManifest::mark_of(std::string_view field_path) const {
  const auto it = marks.find(json_pointer(field_path_tokens(field_path)));
  if (it == marks.end()) return std::nullopt;
  return Location{file, it->second.line, it->second.column};
}

std::optional<Location> JobSetManifest::source_of(std::string_view field_path) const {
  const auto it = sources.find(json_pointer(field_path_tokens(field_path)));
  if (it == sources.end()) return std::nullopt;
  return it->second;
}

Location JobSetManifest::locate(std::string_view field_path) const {
  auto tokens = field_path_tokens(field_path);
  while (!tokens.empty()) {
    const auto it = marks.find(json_pointer(tokens));
    if (it != marks.end()) return {file, it->second.line, it->second.column};
    tokens.pop_back();
  }
  return where();
}

std::vector<std::string> field_path_tokens(std::string_view path) {
  std::vector<std::string> tokens;
  if (path == "<nil>") return tokens;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      // A key may hold '.' or ']': it ends at the ']' that ends the path or precedes '.' or '['.
      std::size_t close = i + 1;
      while (close < path.size()) {
        if (path[close] == ']' &&
            (close + 1 == path.size() || path[close + 1] == '.' || path[close + 1] == '[')) {
          break;
        }
        ++close;
      }
      tokens.emplace_back(path.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      const std::size_t end = path.find_first_of(".[", i);
      tokens.emplace_back(
          path.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
      i = end == std::string_view::npos ? path.size() : end;
    }
  }
  return tokens;
}

Result<Manifests> parse_manifests(std::string_view text, const std::string& file) {
  Reader reader;
  if (auto problem = reader.add_text(text, file, relative_below(file, file))) return *problem;
  return std::move(reader.manifests);
}

Result<Manifests> load_manifests(const std::vector<std::string>& paths) {
  return load_manifests(paths, FileSystem());
}

Result<Manifests> load_manifests(const std::vector<std::string>& paths, const FileSource& source,
                                 Unreadable unreadable) {
  Reader reader;
  Manifests& read = reader.manifests;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    auto files = source.expand(path);
    if (!files.ok()) return files.failure();
    read.notes.insert(read.notes.end(), files.value().notes.begin(), files.value().notes.end());
    for (const auto& file : files.value().files) {
      // A file named as an argument is placed by its argument's position, so that `--old a.yaml
      // --new b.yaml` (or a rendered `--new -`) compares the two as one file.
      const bool is_argument =
          file == "-" || fs::path(file).lexically_normal() == fs::path(path).lexically_normal();
      const std::string relative =
          is_argument ? "argument " + std::to_string(i + 1) : relative_below(file, path);
      const std::size_t jobsets_before = read.jobsets.size(), skipped_before = read.skipped.size();
      auto text = source.read(file);
      std::optional<Failure> problem;
      if (!text.ok()) {
        problem = text.failure();
      } else {
        problem = reader.add_text(text.value(), source.display_name(file), relative);
      }
      if (!problem && unreadable == Unreadable::kNote)
        problem = duplicate_in(read.jobsets, jobsets_before, "it");
      if (!problem) continue;
      if (unreadable == Unreadable::kFail) return *problem;
      read.jobsets.erase(read.jobsets.begin() + static_cast<std::ptrdiff_t>(jobsets_before),
                         read.jobsets.end());
      read.skipped.erase(read.skipped.begin() + static_cast<std::ptrdiff_t>(skipped_before),
                         read.skipped.end());
      // Member by member: the nested brace form makes GCC 12 at -O3 (scripts/dev bench) warn
      // -Wmaybe-uninitialized about the Location temporary, a false positive.
      InputNote note;
      note.where.file = source.display_name(file);
      note.where.line = 1;
      note.where.column = 1;
      note.text = "left out, it cannot be read: " + problem->message;
      read.notes.push_back(std::move(note));
    }
  }
  return std::move(reader.manifests);
}

std::optional<Failure> find_duplicate(const Manifests& manifests, std::string_view side) {
  return duplicate_in(manifests.jobsets, 0, side);
}

}  // namespace jobset_webhook::cli

#include "kustomize_origin.h"

#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "kustomize.h"
#include "jobset_webhook/field/path.h"
#include "jobset_webhook/json_access.h"
#include "jobset_webhook/json_pointer.h"

namespace jobset_webhook::cli {
namespace {

namespace fs = std::filesystem;

std::string normal_path(const fs::path& path) { return path.lexically_normal().string(); }

const Json* member_of(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The string entries of a kustomization's list `key`.
std::vector<std::string> string_entries(const Json& kustomization, const char* key) {
  std::vector<std::string> out;
  const Json* list = member_of(kustomization, key);
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& entry : *list) {
    if (entry.is_string()) out.push_back(entry.get<std::string>());
  }
  return out;
}

bool has_suffix(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// An image reference without its tag and digest: "reg:5000/a/b" for "reg:5000/a/b:1@sha256:...".
std::string image_name(const std::string& image) {
  std::string name = image.substr(0, image.find('@'));
  const auto colon = name.rfind(':');
  if (colon != std::string::npos && name.find('/', colon) == std::string::npos) name.erase(colon);
  return name;
}

Mark mark_or_start(const LocatedDocument& doc, const std::string& pointer) {
  const auto it = doc.marks.find(pointer);
  return it == doc.marks.end() ? Mark{1, 1} : it->second;
}

// Calls visit(tokens, value) for each scalar below value.
template <typename Visit>
void for_each_scalar(const Json& value, std::vector<std::string>& tokens, Visit&& visit) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      tokens.push_back(it.key());
      for_each_scalar(it.value(), tokens, visit);
      tokens.pop_back();
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      tokens.push_back(std::to_string(i));
      for_each_scalar(value[i], tokens, visit);
      tokens.pop_back();
    }
  } else {
    visit(tokens, value);
  }
}

// The field at tokens below value, as a field path relative to it: "template.spec.containers[0]".
std::string relative_field(const Json& value, const std::vector<std::string>& tokens) {
  field::Path path;
  const Json* at = &value;
  for (const auto& token : tokens) {
    if (at->is_array()) {
      const std::size_t i = std::stoul(token);
      path = path.index(i);
      at = &at->at(i);
    } else {
      path = path.child(token);
      at = &at->at(token);
    }
  }
  return path.to_string();
}

}  // namespace

KustomizationTree::KustomizationTree(const std::string& dir,
                                     std::function<std::string(const std::string&)> display) {
  // The directories of the tree: dir and, through resources, bases and components, every
  // kustomization it lists (a file entry is below its kustomization's directory already).
  std::vector<std::string> pending = {normal_path(dir)};
  std::set<std::string> dirs;
  while (!pending.empty()) {
    const std::string at = pending.back();
    pending.pop_back();
    if (!dirs.insert(at).second) continue;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(at, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      const std::string name = normal_path(it->path());
      if (files_.count(name) != 0 || !it->is_regular_file(type_ec)) continue;
      if (!is_manifest_file_name(name) && !is_kustomization_file_name(name)) continue;
      auto text = read_input(name);
      if (!text.ok()) continue;
      auto docs = parse_located_documents(text.value(), name);
      // A file kustomize reads whole (a config file for a generator) need not be YAML.
      if (!docs.ok()) continue;
      files_[name] = File{display(name), std::move(docs).value()};
    }
    const auto file = kustomization_file(at);
    const File* listed = file ? file_at(*file) : nullptr;
    if (listed == nullptr || listed->documents.empty()) continue;
    for (const char* key : {"resources", "bases", "components"}) {
      for (const auto& entry : string_entries(listed->documents.front().value, key)) {
        const std::string target = normal_path(fs::path(at) / entry);
        if (fs::is_directory(target, ec)) pending.push_back(target);
      }
    }
  }

  const auto top = kustomization_file(dir);
  const File* own = top ? file_at(*top) : nullptr;
  if (own == nullptr || own->documents.empty()) return;
  kustomization_ = own->documents.front();
  display_ = own->display;
  const Json& k = kustomization_.value;
  const auto add_patch = [&](const std::string& entry_pointer, const File* file) {
    Patch patch{mark_or_start(kustomization_, entry_pointer), file, {}};
    for (std::size_t d = 0; patch.file != nullptr && d < patch.file->documents.size(); ++d) {
      const auto& doc = patch.file->documents[d];
      auto& writes = patch.merge_writes.emplace_back();
      if (doc.value.is_array()) continue;  // a JSON 6902 patch: traced by its ops' paths
      std::vector<std::string> walk;
      for_each_scalar(doc.value, walk, [&](const std::vector<std::string>& in, const Json& v) {
        if (in.empty()) return;
        const auto mark = doc.marks.find(json_pointer(in));
        if (mark == doc.marks.end()) return;
        writes.try_emplace(in.back() + "\n" + v.dump(),
                           Location{patch.file->display, mark->second.line, mark->second.column});
      });
    }
    patches_.push_back(std::move(patch));
  };
  const auto file_named = [&](const std::string& path) {
    return file_at(normal_path(fs::path(dir) / path));
  };
  // In the order kustomize applies them, each list in its own order: patchesStrategicMerge, then
  // patches, then patchesJson6902 (kubectl v1.32's kustomize v5.5.0 renders a field that all three
  // write with patchesJson6902's value, and with patches' over patchesStrategicMerge's, wherever
  // they stand in the file), so that trace() can look from the last.
  // kustomize reads a patchesStrategicMerge entry as the patch itself when it parses as objects,
  // else as a file's name (loadFromPaths, api/internal/builtins/PatchStrategicMergeTransformer.go):
  // a file name never parses as an object, so an entry that names a file of the tree is that file.
  const auto merges = string_entries(k, "patchesStrategicMerge");
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const std::string entry = "/patchesStrategicMerge/" + std::to_string(i);
    const File* file = file_named(merges[i]);
    add_patch(entry, file != nullptr ? file : inline_patch(entry, own->display));
  }
  for (const char* key : {"patches", "patchesJson6902"}) {
    const Json* list = member_of(k, key);
    for (std::size_t i = 0; list != nullptr && list->is_array() && i < list->size(); ++i) {
      const std::string entry = "/" + std::string(key) + "/" + std::to_string(i);
      const std::string path = string_at(&(*list)[i], "path");
      add_patch(entry,
                path.empty() ? inline_patch(entry + "/patch", own->display) : file_named(path));
    }
  }
}

const KustomizationTree::File* KustomizationTree::inline_patch(const std::string& pointer,
                                                               const std::string& display) {
  const auto tokens = pointer_tokens(pointer);
  const Json* text = tokens ? find_path(kustomization_.value, *tokens) : nullptr;
  if (text == nullptr || !text->is_string()) return nullptr;
  auto docs = parse_located_documents(text->get_ref<const std::string&>(), display);
  if (!docs.ok()) return nullptr;
  // A literal block's lines are the patch's, behind its indentation; any other scalar folds or
  // unescapes its lines, so the patch's positions are where it is written.
  const auto block = kustomization_.literal_blocks.find(pointer);
  const Mark at = mark_or_start(kustomization_, pointer);
  for (auto& doc : docs.value()) {
    for (auto& [where, mark] : doc.marks) {
      mark = block == kustomization_.literal_blocks.end()
                 ? at
                 : Mark{block->second.line + mark.line - 1, block->second.column + mark.column - 1};
    }
  }
  return &inline_patches_.emplace_back(File{display, std::move(docs).value()});
}

const KustomizationTree::File* KustomizationTree::file_at(const std::string& path) const {
  const auto it = files_.find(normal_path(path));
  return it == files_.end() ? nullptr : &it->second;
}

Origins KustomizationTree::trace(const Json& rendered) const {
  Origins out;
  const Json* images = member_of(kustomization_.value, "images");
  const auto source_at = [](const File& file, const LocatedDocument& doc,
                            const std::string& pointer) -> std::optional<Location> {
    const auto it = doc.marks.find(pointer);
    if (it == doc.marks.end()) return std::nullopt;
    return Location{file.display, it->second.line, it->second.column};
  };

  std::vector<std::string> tokens;
  for_each_scalar(rendered, tokens, [&](const std::vector<std::string>& at, const Json& value) {
    const std::string pointer = json_pointer(at);
    const std::string key = at.empty() ? "" : at.back();
    // An images: entry that this image's name, tag or digest comes from.
    if (key == "image" && value.is_string() && images != nullptr && images->is_array()) {
      const std::string image = value.get<std::string>();
      for (std::size_t i = 0; i < images->size() && !out.in_kustomization.count(pointer); ++i) {
        const Json& entry = (*images)[i];
        const std::string base = "/images/" + std::to_string(i);
        // The entry's image: newName when it renames, else name; an image whose name is another
        // is not this entry's.
        std::string named = string_at(&entry, "newName");
        if (named.empty()) named = string_at(&entry, "name");
        if (named.empty() || image_name(image) != named) continue;
        for (const auto& [field, separator] : {std::pair{"newTag", ":"}, {"digest", "@"}}) {
          const std::string set = string_at(&entry, field);
          if (!set.empty() && has_suffix(image, separator + set)) {
            out.in_kustomization[pointer] = mark_or_start(kustomization_, base + "/" + field);
            break;
          }
        }
        if (!out.in_kustomization.count(pointer) && !string_at(&entry, "newName").empty())
          out.in_kustomization[pointer] = mark_or_start(kustomization_, base + "/newName");
      }
    }
    // A patch that writes it.
    const std::string key_and_value = key + "\n" + value.dump();
    // The last patch to write the field's rendered value: patches, their documents and a JSON
    // 6902 patch's operations are applied in order, so a later one that writes the field wins.
    for (auto patch = patches_.rbegin(); patch != patches_.rend(); ++patch) {
      if (patch->file == nullptr) continue;
      for (std::size_t d = patch->file->documents.size(); d-- > 0;) {
        const auto& doc = patch->file->documents[d];
        std::optional<Location> source;
        if (doc.value.is_array()) {
          for (std::size_t j = doc.value.size(); j-- > 0 && !source;) {
            const std::string op_path = string_at(&doc.value[j], "path");
            if (op_path.empty() || member_of(doc.value[j], "value") == nullptr) continue;
            if (pointer != op_path && pointer.rfind(op_path + "/", 0) != 0) continue;
            const std::string written =
                "/" + std::to_string(j) + "/value" + pointer.substr(op_path.size());
            const auto written_at = pointer_tokens(written);
            const Json* op_value = written_at ? find_path(doc.value, *written_at) : nullptr;
            if (op_value != nullptr && *op_value == value) {
              source = source_at(*patch->file, doc, written);
            }
          }
        } else if (const auto it = patch->merge_writes[d].find(key_and_value);
                   it != patch->merge_writes[d].end()) {
          source = it->second;
        }
        if (!source) continue;
        out.in_kustomization.emplace(pointer, patch->entry);
        out.sources.emplace(pointer, *source);
        break;
      }
      if (out.sources.count(pointer)) break;
    }
    // A file of the tree that writes the same value at the same place.
    for (auto it = files_.begin(); it != files_.end() && !out.sources.count(pointer); ++it) {
      for (const auto& doc : it->second.documents) {
        const Json* written = find_path(doc.value, at);
        if (written == nullptr || *written != value) continue;
        if (auto source = source_at(it->second, doc, pointer)) {
          out.sources.emplace(pointer, *source);
          break;
        }
      }
    }
  });
  return out;
}

std::vector<MergeDrop> KustomizationTree::merge_drops(const Json& rendered) const {
  std::vector<MergeDrop> out;
  const Json* rendered_jobs = find_path(rendered, {"spec", "replicatedJobs"});
  if (rendered_jobs == nullptr || !rendered_jobs->is_array()) return out;
  std::set<const File*> patch_files;
  for (const auto& patch : patches_) patch_files.insert(patch.file);
  const auto name_of = [](const Json& object) {
    return string_at(find_path(object, {"metadata"}), "name");
  };
  const auto jobs_of = [](const Json& object) -> const Json* {
    if (string_at(&object, "kind") != kJobSetKindName) return nullptr;
    const Json* jobs = find_path(object, {"spec", "replicatedJobs"});
    return jobs != nullptr && jobs->is_array() ? jobs : nullptr;
  };
  std::set<std::string> reported;  // rendered entries (or base entries left out), once each
  for (const auto& patch : patches_) {
    if (patch.file == nullptr) continue;
    for (const auto& patch_doc : patch.file->documents) {
      if (patch_doc.value.is_array() || jobs_of(patch_doc.value) == nullptr) continue;
      const std::string name = name_of(patch_doc.value);
      for (const auto& [path, file] : files_) {
        if (patch_files.count(&file) != 0) continue;
        for (const auto& base : file.documents) {
          const Json* base_jobs = jobs_of(base.value);
          if (base_jobs == nullptr || name_of(base.value) != name) continue;
          for (std::size_t b = 0; b < base_jobs->size(); ++b) {
            const std::string job_name = string_at(&(*base_jobs)[b], "name");
            const Mark entry = mark_or_start(base, "/spec/replicatedJobs/" + std::to_string(b));
            const std::string base_at =
                Location{file.display, entry.line, entry.column}.to_string();
            std::size_t r = 0;
            while (r < rendered_jobs->size() &&
                   string_at(&(*rendered_jobs)[r], "name") != job_name) {
              ++r;
            }
            const std::string where = r < rendered_jobs->size()
                                          ? "spec.replicatedJobs[" + std::to_string(r) + "]"
                                          : "spec.replicatedJobs";
            if (!reported.insert(where + "\n" + job_name).second) continue;
            std::string what;
            if (r == rendered_jobs->size()) {
              what = "the replicatedJob " + job_name + " that " + base_at + " writes";
            } else {
              std::vector<std::string> lost;
              std::vector<std::string> walk;
              const Json& base_job = (*base_jobs)[b];
              for_each_scalar(
                  base_job, walk, [&](const std::vector<std::string>& at, const Json& value) {
                    if (find_path((*rendered_jobs)[r], at) != nullptr) return;
                    lost.push_back(relative_field(base_job, at) + " (" + value.dump() + ")");
                  });
              if (lost.empty()) continue;
              constexpr std::size_t kNamed = 4;
              for (std::size_t i = 0; i < lost.size() && i < kNamed; ++i) {
                what += (i == 0 ? "" : ", ") + lost[i];
              }
              if (lost.size() > kNamed) {
                what += " and " + std::to_string(lost.size() - kNamed) + " more";
              }
              what += ", which " + base_at + " writes";
            }
            out.push_back({where +
                               ": a strategic-merge patch replaces spec.replicatedJobs whole "
                               "(kustomize merges no list of a custom resource by key), dropping " +
                               what +
                               ": write the change as a JSON 6902 patch, or restate the dropped "
                               "fields in the patch",
                           Location{display_, patch.entry.line, patch.entry.column}});
          }
        }
      }
    }
  }
  return out;
}

}  // namespace jobset_webhook::cli

#include "pairing.h"

#include <map>
#include <set>

namespace jobset_webhook::cli {
namespace {

using Group = std::vector<const JobSetManifest*>;

std::string places(const Group& group) {
  std::string out;
  for (const auto* js : group) out += (out.empty() ? "" : ", ") + js->where().to_string();
  return out;
}

bool holds_at(const Group& group, const std::string& relative) {
  for (const auto* js : group) {
    if (js->relative == relative) return true;
  }
  return false;
}

}  // namespace

std::vector<Pairing> pair_jobsets(const Manifests& old_side, const Manifests& new_side) {
  std::map<std::string, Group> old_by_id, new_by_id;
  for (const auto& js : old_side.jobsets) {
    if (!js.name.empty()) old_by_id[js.display_name()].push_back(&js);
  }
  for (const auto& js : new_side.jobsets) {
    if (!js.name.empty()) new_by_id[js.display_name()].push_back(&js);
  }

  // By path first; what stays unplaced is decided per identity below.
  std::map<const JobSetManifest*, Pairing> by_new;
  std::map<std::string, Group> unplaced;
  for (const auto& js : new_side.jobsets) {
    Pairing pairing{&js, nullptr, ""};
    if (js.name.empty()) {
      by_new[&js] = pairing;
      continue;
    }
    Group same;
    for (const auto* old_js : old_by_id[js.display_name()]) {
      if (old_js->relative == js.relative) same.push_back(old_js);
    }
    if (same.size() == 1) {
      pairing.old_js = same.front();
    } else if (same.size() > 1) {
      // Two roots of --old hold a file at this path: no way to tell which one this file was.
      pairing.note = "treated as created: --old holds JobSet " + js.display_name() + " in " +
                     std::to_string(same.size()) + " files at this path (" + places(same) + ")";
    } else {
      unplaced[js.display_name()].push_back(&js);
    }
    by_new[&js] = pairing;
  }

  // A move: the old JobSets whose path no longer holds them, against the new ones not placed.
  for (const auto& [id, new_group] : unplaced) {
    Group gone;
    for (const auto* old_js : old_by_id[id]) {
      if (!holds_at(new_by_id[id], old_js->relative)) gone.push_back(old_js);
    }
    if (gone.empty()) continue;
    for (const auto* js : new_group) {
      auto& pairing = by_new[js];
      if (gone.size() == 1 && new_group.size() == 1) {
        pairing.old_js = gone.front();
        pairing.note = "compared with JobSet " + id + " at " + gone.front()->where().to_string() +
                       " (the file moved)";
      } else if (gone.size() > 1) {
        pairing.note = "treated as created: --old holds JobSet " + id + " in " +
                       std::to_string(gone.size()) + " other files and none at this path (" +
                       places(gone) + ")";
      } else {
        pairing.note = "treated as created: --old holds JobSet " + id + " in another file (" +
                       places(gone) + "), and " + std::to_string(new_group.size()) +
                       " files of --new hold it at new paths";
      }
    }
  }

  std::vector<Pairing> out;
  std::set<const JobSetManifest*> paired;
  for (const auto& js : new_side.jobsets) {
    out.push_back(by_new[&js]);
    if (out.back().old_js != nullptr) paired.insert(out.back().old_js);
  }
  for (const auto& js : old_side.jobsets) {
    if (!js.name.empty() && paired.count(&js) == 0) out.push_back({nullptr, &js, ""});
  }
  return out;
}

}  // namespace jobset_webhook::cli

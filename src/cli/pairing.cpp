#include "pairing.h"

#include <map>
#include <set>
#include <utility>

namespace jobset_webhook::cli {
namespace {

using Group = std::vector<const JobSetManifest*>;
const Group kNone;
// An identity (JobSetManifest::identity) and a file's place (JobSetManifest::relative).
using Placed = std::pair<std::string, std::string>;

// A note names this many places at most: every JobSet of a group gets the same note, so naming
// them all would make the report grow as the square of the group.
constexpr std::size_t kPlacesNamed = 3;

std::string places(const Group& group) {
  std::string out;
  for (std::size_t i = 0; i < group.size() && i < kPlacesNamed; ++i)
    out += (i == 0 ? "" : ", ") + group[i]->where().to_string();
  if (group.size() > kPlacesNamed)
    out += " and " + std::to_string(group.size() - kPlacesNamed) + " more";
  return out;
}

// "JobSet namespace/name", "ReplicatedJobScaler namespace/name".
std::string described(const JobSetManifest& js) {
  return std::string(js.kind) + " " + js.display_name();
}

}  // namespace

std::vector<Pairing> pair_jobsets(const Manifests& old_side, const Manifests& new_side) {
  // Indexed once, so that pairing stays O(n log n) when thousands of files hold one identity.
  std::map<std::string, Group> old_by_id;
  std::map<Placed, Group> old_by_place;
  std::set<Placed> new_places;
  for (const auto& js : old_side.jobsets) {
    if (js.name.empty()) continue;
    old_by_id[js.identity()].push_back(&js);
    old_by_place[{js.identity(), js.relative}].push_back(&js);
  }
  for (const auto& js : new_side.jobsets) {
    if (!js.name.empty()) new_places.insert({js.identity(), js.relative});
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
    const auto at_place = old_by_place.find({js.identity(), js.relative});
    const Group& same = at_place == old_by_place.end() ? kNone : at_place->second;
    if (same.size() == 1) {
      pairing.old_js = same.front();
    } else if (same.size() > 1) {
      // Two roots of --old hold a file at this path: no way to tell which one this file was.
      pairing.note = "treated as created: --old holds " + described(js) + " in " +
                     std::to_string(same.size()) + " files at this path (" + places(same) + ")";
    } else {
      unplaced[js.identity()].push_back(&js);
    }
    by_new[&js] = pairing;
  }

  // A move: the old JobSets whose path no longer holds them, against the new ones not placed.
  for (const auto& [id, new_group] : unplaced) {
    const std::string what = described(*new_group.front());
    Group gone;
    for (const auto* old_js : old_by_id[id]) {
      if (new_places.count({id, old_js->relative}) == 0) gone.push_back(old_js);
    }
    if (gone.empty()) continue;
    for (const auto* js : new_group) {
      auto& pairing = by_new[js];
      if (gone.size() == 1 && new_group.size() == 1) {
        pairing.old_js = gone.front();
        pairing.note = "compared with " + what + " at " + gone.front()->where().to_string() +
                       " (the file moved)";
      } else if (gone.size() > 1) {
        pairing.note = "treated as created: --old holds " + what + " in " +
                       std::to_string(gone.size()) + " other files and none at this path (" +
                       places(gone) + ")";
      } else {
        pairing.note = "treated as created: --old holds " + what + " in another file (" +
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

#include "jobset_webhook/defaulting/defaults.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/validation/read.h"
#include "jobset_webhook/validation/update.h"

namespace jobset_webhook::defaulting {
namespace {

using simdjson::dom::element_type;
using validation::MaybeJson;
using validation::member;

using Tokens = std::vector<std::string>;

// Collects the operations of one patch. A value whose parent objects are missing becomes one "add"
// of the first missing object, and later values below that object are merged into it, so that
// e.g. a missing spec.network gets a single operation holding both of its defaults.
class PatchBuilder {
 public:
  explicit PatchBuilder(JsonView root) : root_(root) {}

  // The walk starts at `entry`, the node at path[0, depth): a list entry the caller already holds.
  // Walking from the root would look each entry up by index, a scan of the list each time.
  void set(const Tokens& path, Json value, std::size_t depth, JsonView entry) {
    JsonView node = entry;
    for (std::size_t k = depth; k < path.size(); ++k) {
      // A parent of the wrong type cannot take a default; the schema check reports it.
      if (node.type() != element_type::OBJECT && node.type() != element_type::ARRAY) return;
      JsonView child;
      const bool exists = lookup(node, path[k], child);
      const bool last = k + 1 == path.size();
      if (!exists || child.type() == element_type::NULL_VALUE) {
        if (node.type() == element_type::ARRAY) return;  // defaults never add list entries
        const Tokens parent(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        if (last) {
          ops_.push_back(operation(exists, json_pointer(parent), std::move(value)));
        } else {
          add_below_missing(parent,
                            Tokens(path.begin() + static_cast<std::ptrdiff_t>(k) + 1, path.end()),
                            std::move(value), exists);
        }
        return;
      }
      if (last) {
        ops_.push_back(operation(true, json_pointer(path), std::move(value)));
        return;
      }
      node = child;
    }
  }

  Json take() { return std::move(ops_); }

 private:
  // "add" for an absent member, "replace" for one that is there (null or ""), as a diff of the
  // object before and after defaulting would say.
  static Json operation(bool exists, std::string path, Json value) {
    return {
        {"op", exists ? "replace" : "add"}, {"path", std::move(path)}, {"value", std::move(value)}};
  }

  // The member or list entry named by token, null included. False when there is none.
  static bool lookup(JsonView node, const std::string& token, JsonView& child) {
    if (node.type() == element_type::OBJECT)
      return JsonObjectView(node).at_key(token).get(child) == simdjson::SUCCESS;
    std::size_t i = 0;
    for (const char c : token) i = i * 10 + static_cast<std::size_t>(c - '0');
    return JsonArrayView(node).at(i).get(child) == simdjson::SUCCESS;
  }

  void add_below_missing(const Tokens& missing, const Tokens& rest, Json value, bool exists) {
    const std::string ptr = json_pointer(missing);
    Json::json_pointer below(json_pointer(rest));
    if (const auto it = created_.find(ptr); it != created_.end()) {
      ops_[it->second]["value"][below] = std::move(value);
      return;
    }
    Json object = Json::object();
    object[below] = std::move(value);
    created_.emplace(ptr, ops_.size());
    ops_.push_back(operation(exists, ptr, std::move(object)));
  }

  JsonView root_;
  Json ops_ = Json::array();
  std::unordered_map<std::string, std::size_t> created_;  // pointer of a created object -> its op
};

bool absent(MaybeJson v) { return !v; }
// Absent or "": what Go's `== ""` and `len(x) == 0` see for a string field.
bool empty_string(MaybeJson v) { return !v || validation::string_of(v) == std::string_view(); }

Tokens rjob_path(std::size_t i, std::initializer_list<const char*> rest) {
  Tokens t{"spec", "replicatedJobs", std::to_string(i)};
  t.insert(t.end(), rest.begin(), rest.end());
  return t;
}

// Whether the default `value`, due at `path` of the new object, is what the stored object holds
// at the same place (replicatedJobs matched by name, the list's key; other list entries by index).
// The lists are indexed once, so that a JobSet of many replicatedJobs costs one pass, not one
// scan of the old list per default.
class StoredDefault {
 public:
  StoredDefault(JsonView old_js, JsonView new_js)
      : old_(old_js),
        old_rules_(
            validation::items_of(validation::at(old_js, {"spec", "failurePolicy", "rules"}))),
        old_policies_(
            validation::items_of(validation::at(old_js, {"spec", "volumeClaimPolicies"}))) {
    for (const JsonView rjob :
         validation::items_of(validation::at(old_js, {"spec", "replicatedJobs"}))) {
      if (const auto name = validation::string_of(member(rjob, "name")))
        old_rjobs_.emplace(*name, rjob);
    }
    for (const JsonView rjob :
         validation::items_of(validation::at(new_js, {"spec", "replicatedJobs"})))
      new_rjob_names_.push_back(validation::string_of(member(rjob, "name")));
  }

  bool holds(const Tokens& path, const Json& value) const {
    MaybeJson node = old_;
    std::size_t k = 0;
    if (path.size() > 3 && path[1] == "replicatedJobs") {
      node = old_rjob(std::stoul(path[2]));
      k = 3;
    } else if (path.size() > 4 && path[1] == "failurePolicy") {
      node = entry(old_rules_, path[3]);
      k = 4;
    } else if (path.size() > 3 && path[1] == "volumeClaimPolicies") {
      node = entry(old_policies_, path[2]);
      k = 3;
    }
    for (; k < path.size() && node; ++k) node = member(node, path[k]);  // objects below entries
    return node && simdjson::minify(*node) == value.dump();
  }

 private:
  MaybeJson old_rjob(std::size_t new_index) const {
    if (new_index >= new_rjob_names_.size() || !new_rjob_names_[new_index]) return std::nullopt;
    const auto it = old_rjobs_.find(*new_rjob_names_[new_index]);
    if (it == old_rjobs_.end()) return std::nullopt;
    return it->second;
  }

  static MaybeJson entry(const std::vector<JsonView>& items, const std::string& index) {
    const std::size_t i = std::stoul(index);
    if (i >= items.size()) return std::nullopt;
    return items[i];
  }

  JsonView old_;
  std::vector<JsonView> old_rules_;
  std::vector<JsonView> old_policies_;
  std::unordered_map<std::string_view, JsonView> old_rjobs_;  // the first of each name
  std::vector<std::optional<std::string_view>> new_rjob_names_;
};

Json default_retention_policy() { return {{"whenDeleted", "Delete"}}; }

// Upstream's Default(), in its order; `wanted` decides, default by default, which go into the
// patch.
template <typename Wanted>
Json defaults(JsonView js, const Wanted& wanted) {
  PatchBuilder b(js);
  const auto set_in = [&](JsonView entry, std::size_t depth, const Tokens& path, Json value) {
    if (wanted(path, value)) b.set(path, std::move(value), depth, entry);
  };
  const auto set = [&](const Tokens& path, Json value) { set_in(js, 0, path, std::move(value)); };
  const MaybeJson spec = member(js, "spec");
  if (spec && spec->type() != element_type::OBJECT) return Json::array();
  if (absent(member(spec, "successPolicy"))) set({"spec", "successPolicy"}, {{"operator", "All"}});
  if (absent(member(spec, "startupPolicy")))
    set({"spec", "startupPolicy"}, {{"startupPolicyOrder", "AnyOrder"}});

  const auto rjobs = validation::items_of(member(spec, "replicatedJobs"));
  for (std::size_t i = 0; i < rjobs.size(); ++i) {
    if (rjobs[i].type() != element_type::OBJECT) continue;
    const MaybeJson job_spec = validation::at(rjobs[i], {"template", "spec"});
    if (absent(member(job_spec, "completionMode")))
      set_in(rjobs[i], 3, rjob_path(i, {"template", "spec", "completionMode"}), "Indexed");
    const MaybeJson restart = validation::at(job_spec, {"template", "spec", "restartPolicy"});
    if (empty_string(restart)) {
      set_in(rjobs[i], 3, rjob_path(i, {"template", "spec", "template", "spec", "restartPolicy"}),
             "OnFailure");
    }
  }

  // Upstream sets network to {} first; the two fields below create it when it is missing.
  const MaybeJson network = member(spec, "network");
  if (absent(member(network, "enableDNSHostnames")))
    set({"spec", "network", "enableDNSHostnames"}, true);
  if (absent(member(network, "publishNotReadyAddresses")))
    set({"spec", "network", "publishNotReadyAddresses"}, true);

  const MaybeJson failure_policy = member(spec, "failurePolicy");
  if (validation::is_object(failure_policy)) {
    const auto rules = validation::items_of(member(failure_policy, "rules"));
    for (std::size_t i = 0; i < rules.size(); ++i) {
      if (rules[i].type() != element_type::OBJECT || !empty_string(member(rules[i], "name")))
        continue;
      set_in(rules[i], 4, {"spec", "failurePolicy", "rules", std::to_string(i), "name"},
             "failurePolicyRule" + std::to_string(i));
    }
  }

  const auto policies = validation::items_of(member(spec, "volumeClaimPolicies"));
  for (std::size_t i = 0; i < policies.size(); ++i) {
    if (policies[i].type() != element_type::OBJECT ||
        !absent(member(policies[i], "retentionPolicy")))
      continue;
    set_in(policies[i], 3, {"spec", "volumeClaimPolicies", std::to_string(i), "retentionPolicy"},
           default_retention_policy());
  }
  return b.take();
}

// How an update's entry of spec.volumeClaimPolicies stands to the stored entry at its index, once
// defaults() has given back a retentionPolicy the update dropped.
enum class Likeness { kIdentical, kEquivalent, kDifferent };

Likeness compare_policy(JsonView stored, JsonView sent) {
  if (stored.type() != element_type::OBJECT || sent.type() != element_type::OBJECT)
    return validation::json_equal(stored, sent) ? Likeness::kIdentical : Likeness::kDifferent;
  const auto others_equal = [](JsonView a, JsonView b) {
    for (const auto [key, value] : JsonObjectView(a)) {
      if (key != "templates" && key != "retentionPolicy" &&
          !validation::json_equal(value, member(b, key)))
        return false;
    }
    return true;
  };
  const MaybeJson kept = member(stored, "retentionPolicy"), given = member(sent, "retentionPolicy");
  // What StoredDefault::holds finds for the default, and defaults() then gives back.
  const bool restored =
      !given && kept && simdjson::minify(*kept) == default_retention_policy().dump();
  if (!others_equal(stored, sent) || !others_equal(sent, stored) ||
      !(restored || validation::json_equal(kept, given)))
    return Likeness::kDifferent;
  const MaybeJson kept_claims = member(stored, "templates"),
                  given_claims = member(sent, "templates");
  if (validation::json_equal(kept_claims, given_claims)) return Likeness::kIdentical;
  return validation::claim_templates_equal(kept_claims, given_claims) ? Likeness::kEquivalent
                                                                      : Likeness::kDifferent;
}

// The CRD guards spec.volumeClaimPolicies with the CEL rule `self == oldSelf`, which compares the
// values as stored, not as Go decodes them. A JobSet written by a typed client holds in each claim
// template what Go's encoder writes for a struct it leaves empty, `status: {}`: upstream's
// defaulting webhook (mjobset.kb.io, CREATE) answers with a patch to the object it re-encoded, and
// so does any controller that updates a JobSet through its Go type. A manifest holds no such
// thing, and `kubectl apply` of the unchanged manifest replaces the list whole (a JSON merge patch
// replaces lists), so the API server would refuse it: "spec.volumeClaimPolicies: Invalid value:
// Value is immutable". Where the update's list decodes to the stored one's Go value, the stored
// list is given back whole; where it differs, nothing is, and the rule judges the update as sent.
void keep_stored_claim_policies(JsonView old_js, JsonView new_js, Json& ops) {
  const MaybeJson stored = member(member(old_js, "spec"), "volumeClaimPolicies");
  const MaybeJson sent = member(member(new_js, "spec"), "volumeClaimPolicies");
  if (!stored || !sent || stored->type() != element_type::ARRAY ||
      sent->type() != element_type::ARRAY)
    return;
  const auto kept = validation::items_of(stored), given = validation::items_of(sent);
  if (kept.size() != given.size()) return;
  bool identical = true;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const Likeness likeness = compare_policy(kept[i], given[i]);
    if (likeness == Likeness::kDifferent) return;
    identical &= likeness == Likeness::kIdentical;
  }
  if (identical) return;  // the retentionPolicy defaults already given back are all it lacks
  auto value = patch::to_json(*stored);
  if (!value.ok()) return;
  constexpr std::string_view kBelow = "/spec/volumeClaimPolicies/";
  Json kept_ops = Json::array();
  for (auto& op : ops) {
    if (!op["path"].get_ref<const std::string&>().starts_with(kBelow))
      kept_ops.push_back(std::move(op));
  }
  kept_ops.push_back({{"op", "replace"},
                      {"path", "/spec/volumeClaimPolicies"},
                      {"value", std::move(value.value())}});
  ops = std::move(kept_ops);
}

}  // namespace

Json defaults_patch(JsonView js) {
  return defaults(js, [](const Tokens&, const Json&) { return true; });
}

Json restored_defaults_patch(JsonView old_js, JsonView new_js) {
  const StoredDefault stored(old_js, new_js);
  Json ops = defaults(
      new_js, [&](const Tokens& path, const Json& value) { return stored.holds(path, value); });
  keep_stored_claim_policies(old_js, new_js, ops);
  return ops;
}

}  // namespace jobset_webhook::defaulting

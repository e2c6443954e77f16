#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/kube/api.h"
#include "plan_scale_down.h"
#include "plan_scaler.h"

namespace jobset_webhook::controller {

// metadata.<key> of a Kubernetes object, or "".
std::string meta_string(const Json& obj, const char* key);
// metadata.labels[key], or "".
std::string label(const Json& obj, const char* key);
// "namespace/name", the key of the work queue and the cache.
std::string key_of(const std::string& ns, const std::string& name);

// What the cache keeps of a watched object: everything but metadata.managedFields,
// metadata.annotations other than the notice's (plan_notice.h) and the pod templates (a Job's spec.template, a JobSet's
// spec.replicatedJobs[].template), which no plan reads and which are most of an object's size,
// as client-go's informers drop managedFields with a transform. Never throws.
Json trim_for_cache(Json object);

// What the watches have seen: JobSets, Jobs and ReplicatedJobScalers by namespace/name. Every
// event is queued under the key of the JobSet it concerns.
class Cache {
 public:
  using Map = std::map<std::string, Json>;

  void replace(Map& target, const std::vector<Json>& items, std::set<std::string>& touched) {
    std::lock_guard lock(mu_);
    for (const auto& [k, v] : target) touched.insert(owner_key(&target, v));
    target.clear();
    for (const auto& item : items) {
      target[key_of(meta_string(item, "namespace"), meta_string(item, "name"))] =
          trim_for_cache(item);
      touched.insert(owner_key(&target, item));
    }
  }

  // Applies an event; the JobSet key it concerns.
  std::string apply(Map& target, const kube::WatchEvent& e) {
    std::lock_guard lock(mu_);
    const std::string k = key_of(meta_string(e.object, "namespace"), meta_string(e.object, "name"));
    if (e.type == "DELETED") {
      target.erase(k);
    } else {
      target[k] = trim_for_cache(e.object);
    }
    return owner_key(&target, e.object);
  }

  // The JobSet and its Jobs (by the jobset-name label), copied under the lock.
  std::optional<std::pair<Json, std::vector<Json>>> snapshot(const std::string& key) {
    std::lock_guard lock(mu_);
    const auto it = jobsets.find(key);
    if (it == jobsets.end()) return std::nullopt;
    const std::string ns = meta_string(it->second, "namespace");
    const std::string name = meta_string(it->second, "name");
    std::vector<Json> children;
    for (const auto& [k, job] : jobs) {
      if (meta_string(job, "namespace") == ns && label(job, kJobSetNameKey) == name)
        children.push_back(job);
    }
    return std::make_pair(it->second, std::move(children));
  }

  // The ReplicatedJobScalers that name the JobSet of `key`, copied under the lock.
  std::vector<Json> scalers_of(const std::string& key) {
    std::lock_guard lock(mu_);
    std::vector<Json> out;
    for (const auto& [k, scaler] : scalers) {
      if (owner_key(&scalers, scaler) == key) out.push_back(scaler);
    }
    return out;
  }

  // The keys of every JobSet seen, and of every JobSet a scaler names.
  std::vector<std::string> jobset_keys() {
    std::lock_guard lock(mu_);
    std::set<std::string> keys;
    for (const auto& [k, v] : jobsets) keys.insert(k);
    for (const auto& [k, v] : scalers) keys.insert(owner_key(&scalers, v));
    return {keys.begin(), keys.end()};
  }

  Map jobsets;
  Map jobs;
  Map scalers;  // ReplicatedJobScalers (plan_scaler.h), under the key of the JobSet they name

 private:
  std::string owner_key(const Map* target, const Json& obj) const {
    const std::string ns = meta_string(obj, "namespace");
    if (target == &jobsets) return key_of(ns, meta_string(obj, "name"));
    if (target == &scalers) return key_of(ns, scaler_jobset(obj));
    return key_of(ns, label(obj, kJobSetNameKey));
  }

  std::mutex mu_;
};

}  // namespace jobset_webhook::controller

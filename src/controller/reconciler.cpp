#include "reconciler.h"

#include <algorithm>

#include "jobset_webhook/runtime/time.h"
#include "jobset_webhook/json_access.h"

namespace jobset_webhook::controller {
namespace {

// A Job the cache still shows after our DELETE is not deleted twice for this long.
constexpr std::chrono::minutes kDeletedMemory{1};

// spec.replicatedJobs[name].replicas, for messages (the API server defaults it to 1).
std::int64_t replicas_of(const Json& js, const std::string& rjob) {
  const Json* rjobs = member(member(&js, "spec"), "replicatedJobs");
  if (rjobs == nullptr || !rjobs->is_array()) return 0;
  for (const auto& r : *rjobs) {
    if (string_at(&r, "name") == rjob) return integer_at(&r, "replicas").value_or(1);
  }
  return 0;
}

std::string deleted_message(const Deletion& d, std::int64_t replicas) {
  return "Deleted Job " + d.name + " (index " + std::to_string(d.index) + " of replicatedJob " +
         d.replicated_job + ", replicas " + std::to_string(replicas) + ", " +
         to_string(d.propagation) + " propagation" + (d.completed ? ", had completed" : "") + ")";
}

}  // namespace

Outcome Reconciler::reconcile(const std::string& key) {
  const auto cached = env_.cache.snapshot(key);
  if (!cached) {
    // The JobSet is gone: its Jobs go with it (garbage collector).
    stop_waiting(key);
    return Outcome::kDone;
  }
  const std::string ns = meta_string(cached->first, "namespace");
  const std::string path =
      kube::group_path(kJobSetGroupVersion, ns, "jobsets", meta_string(cached->first, "name"));
  std::set<std::string> handled;  // Jobs this pass deleted or found gone
  for (;;) {
    auto read = env_.api.get(path);
    if (!read.ok()) {
      if (read.failure().code == StatusCode::kNotFound) {
        stop_waiting(key);
        return Outcome::kDone;
      }
      env_.log.warn("get jobset", {{"jobset", key}, {"error", read.failure().message}});
      return Outcome::kRetry;
    }
    const Json& jobset = read.value();
    const auto jobs = env_.cache.snapshot(key);
    const ScaleDownPlan plan = plan_scale_down(jobset, jobs ? jobs->second : std::vector<Json>{});
    if (plan.waiting != WaitReason::kNone) {
      wait(key, jobset, plan.waiting, plan.skipped);
      return plan.waiting == WaitReason::kNewerAttempt ? Outcome::kRecheck : Outcome::kDone;
    }
    const auto next = std::find_if(
        plan.deletions.begin(), plan.deletions.end(),
        [&](const Deletion& d) { return handled.count(d.uid) == 0 && !recently_deleted(d.uid); });
    if (next == plan.deletions.end()) {
      stop_waiting(key);
      return Outcome::kDone;
    }
    // A follower, or a leader that was paused past its renew deadline: the holder of the Lease
    // looks at every JobSet again when it starts leading.
    if (!env_.leading()) return Outcome::kDone;
    handled.insert(next->uid);
    if (const Outcome o = delete_job(key, jobset, *next); o != Outcome::kDone) return o;
  }
}

Outcome Reconciler::delete_job(const std::string& key, const Json& jobset, const Deletion& d) {
  const std::string ns = meta_string(jobset, "namespace");
  auto res = env_.api.remove(kube::group_path("batch/v1", ns, "jobs", d.name),
                             kube::DeleteOptions{to_string(d.propagation), d.uid});
  if (!res.ok()) {
    const StatusCode code = res.failure().code;
    // Not found: already gone; aborted (409): the precondition failed, the name now holds a newer
    // Job (the plan sees it on its own event).
    if (code == StatusCode::kNotFound || code == StatusCode::kAborted) {
      env_.log.info("job already gone or replaced",
                    {{"job", ns + "/" + d.name}, {"error", res.failure().message}});
      return Outcome::kDone;
    }
    env_.log.error("delete job", {{"job", ns + "/" + d.name}, {"error", res.failure().message}});
    wait(key, jobset,
         code == StatusCode::kPermissionDenied ? WaitReason::kForbidden : WaitReason::kDeleteFailed,
         "cannot delete Job " + d.name + ": " + res.failure().message);
    return Outcome::kRetry;  // keep the order: no lower index before this one is gone
  }
  deleted_[d.uid] = env_.now();
  ++env_.metrics.jobs_deleted;
  const std::string message = deleted_message(d, replicas_of(jobset, d.replicated_job));
  env_.log.info(message, {{"jobset", key}});
  record_event(jobset, "Normal", "ScaleDownDeletedJob", message);
  return Outcome::kDone;
}

void Reconciler::wait(const std::string& key, const Json& jobset, WaitReason reason,
                      const std::string& why) {
  const auto it = waiting_.find(key);
  if (it == waiting_.end() || it->second != reason) {
    if (it != waiting_.end()) --env_.metrics.waiting[static_cast<int>(it->second)];
    waiting_[key] = reason;
    ++env_.metrics.waiting[static_cast<int>(reason)];
  }
  // A newer attempt passes with the next read: counted, not announced.
  if (reason == WaitReason::kNewerAttempt) return;
  const auto now = env_.now();
  const auto [last, first] = warned_.try_emplace({key, reason}, now);
  if (!first && now - last->second < kWarningInterval) return;
  last->second = now;
  env_.log.warn("Jobs above replicas are not deleted",
                {{"jobset", key}, {"reason", to_string(reason)}, {"why", why}});
  record_event(
      jobset, "Warning", "ScaleDownBlocked",
      "Jobs above replicas are not deleted (" + std::string(to_string(reason)) + "): " + why);
}

void Reconciler::stop_waiting(const std::string& key) {
  const auto it = waiting_.find(key);
  if (it == waiting_.end()) return;
  --env_.metrics.waiting[static_cast<int>(it->second)];
  waiting_.erase(it);
  for (auto w = warned_.begin(); w != warned_.end();) {
    w = w->first.first == key ? warned_.erase(w) : std::next(w);
  }
}

bool Reconciler::recently_deleted(const std::string& uid) {
  const auto now = env_.now();
  for (auto it = deleted_.begin(); it != deleted_.end();) {
    it = now - it->second > kDeletedMemory ? deleted_.erase(it) : std::next(it);
  }
  return deleted_.count(uid) > 0;
}

void Reconciler::record_event(const Json& jobset, const char* type, const std::string& reason,
                              const std::string& message) {
  const std::string ns = meta_string(jobset, "namespace");
  const std::string name = meta_string(jobset, "name");
  const std::string now = runtime::rfc3339(std::chrono::system_clock::now());
  const Json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"generateName", name + "."}, {"namespace", ns}}},
      {"involvedObject",
       {{"apiVersion", kJobSetGroupVersion},
        {"kind", "JobSet"},
        {"name", name},
        {"namespace", ns},
        {"uid", meta_string(jobset, "uid")},
        {"resourceVersion", meta_string(jobset, "resourceVersion")}}},
      {"reason", reason},
      {"message", message},
      {"type", type},
      {"source", {{"component", kComponent}}},
      {"firstTimestamp", now},
      {"lastTimestamp", now},
      {"count", 1},
      {"reportingComponent", kComponent},
      {"reportingInstance", env_.identity},
  };
  auto res = env_.api.create(kube::core_path(ns, "events"), event);
  if (!res.ok()) {
    env_.log.warn("event", {{"jobset", ns + "/" + name}, {"error", res.failure().message}});
  }
}

}  // namespace jobset_webhook::controller

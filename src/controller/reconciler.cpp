#include "reconciler.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "events.h"
#include "jobset_webhook/runtime/time.h"
#include "jobset_webhook/json_access.h"

namespace jobset_webhook::controller {
namespace {

// A Job the cache still shows after our DELETE is not deleted twice for this long.
constexpr std::chrono::minutes kDeletedMemory{1};
// A notice's JobSet is looked at again at its deadline, and at least this often (a wall clock
// that jumps).
constexpr std::int64_t kNoticeRecheckMax = 300'000;  // milliseconds

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

void Reconciler::forget(const std::string& key) {
  stop_waiting(key);
  env_.metrics.set_notices(key, 0, 0, std::nullopt);
}

Outcome Reconciler::reconcile(const std::string& key) {
  const auto cached = env_.cache.snapshot(key);
  if (!cached) {
    // The JobSet is gone: its Jobs go with it (garbage collector).
    forget(key);
    return Outcome::kDone;
  }
  const std::string ns = meta_string(cached->first, "namespace");
  const std::string path =
      kube::group_path(kJobSetGroupVersion, ns, "jobsets", meta_string(cached->first, "name"));
  std::set<std::string> handled;          // Jobs this pass deleted or found gone
  std::optional<std::vector<Json>> pods;  // listed once a pass, when a notice needs them
  bool notice_failed = false;
  for (;;) {
    auto read = env_.api.get(path);
    if (!read.ok()) {
      if (read.failure().code == StatusCode::kNotFound) {
        forget(key);
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
    std::optional<NoticePlan> notice;
    if (notice_wanted(jobset, plan, env_.default_notice_seconds)) {
      if (!pods) {
        auto listed = env_.api.list(kube::core_path(ns, "pods"), std::string(kJobSetNameKey) + "=" +
                                                                     meta_string(jobset, "name"));
        if (!listed.ok()) {
          env_.log.warn("list pods", {{"jobset", key}, {"error", listed.failure().message}});
          return Outcome::kRetry;
        }
        pods = std::move(listed).value().items;
      }
      notice = plan_notice(jobset, jobs ? jobs->second : std::vector<Json>{}, *pods, plan,
                           env_.default_notice_seconds, env_.wall_now());
      if (!env_.leading()) return Outcome::kDone;
      const Written w = write_notice(key, jobset, *notice, *pods);
      if (w == Written::kReread) continue;
      notice_failed = notice_failed || w == Written::kFailed;
      env_.metrics.set_notices(key, notice->in_progress, notice->past_deadline,
                               notice->next_deadline);
    } else {
      env_.metrics.set_notices(key, 0, 0, std::nullopt);
    }
    const auto next =
        std::find_if(plan.deletions.begin(), plan.deletions.end(), [&](const Deletion& d) {
          // A leaving Job that completed goes at once: waiting helps no one, and while it stays
          // upstream counts it towards successPolicy.
          const bool due = !notice || notice->due.count(d.replicated_job) > 0 || d.completed;
          return due && handled.count(d.uid) == 0 && !recently_deleted(d.uid);
        });
    if (next == plan.deletions.end()) {
      stop_waiting(key);
      // A Job or Pod not told yet is tried again with back-off, not only at the deadline.
      if (notice && notice->next_deadline && !notice_failed) {
        // A little past the deadline, so that the pass finds it reached.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            *notice->next_deadline - env_.wall_now());
        notice_recheck_ =
            std::clamp(left + std::chrono::milliseconds(100), std::chrono::milliseconds(100),
                       std::chrono::milliseconds(kNoticeRecheckMax));
        return Outcome::kNotice;
      }
      return notice_failed ? Outcome::kRetry : Outcome::kDone;
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

Reconciler::Written Reconciler::write_notice(const std::string& key, const Json& jobset,
                                             const NoticePlan& plan, std::vector<Json>& pods) {
  const std::string ns = meta_string(jobset, "namespace");
  if (plan.state) {
    // At the version read: the notice is written for exactly the replicas it was planned on.
    const Json patch = {{"metadata",
                         {{"resourceVersion", meta_string(jobset, "resourceVersion")},
                          {"annotations", {{kNoticeStateKey, *plan.state}}}}}};
    auto res = env_.api.patch(
        kube::group_path(kJobSetGroupVersion, ns, "jobsets", meta_string(jobset, "name")), patch);
    if (!res.ok()) {
      if (res.failure().code == StatusCode::kAborted) return Written::kReread;
      env_.log.warn("write notice state", {{"jobset", key}, {"error", res.failure().message}});
      return Written::kFailed;
    }
    for (const auto& e : plan.events) {
      env_.log.info(e.message, {{"jobset", key}, {"reason", to_string(e.kind)}});
      record_event(jobset, "Normal", to_string(e.kind), e.message);
    }
  }
  bool failed = false;
  for (const auto& p : plan.patches) {
    const std::string path = p.resource == "pods"
                                 ? kube::core_path(ns, "pods", p.name)
                                 : kube::group_path("batch/v1", ns, "jobs", p.name);
    auto res = env_.api.patch(path, Json{{"metadata", {{"annotations", p.annotations}}}});
    if (!res.ok()) {
      if (res.failure().code == StatusCode::kNotFound) continue;  // gone: nothing to tell
      env_.log.warn("write notice annotations", {{"object", p.resource + "/" + ns + "/" + p.name},
                                                 {"error", res.failure().message}});
      failed = true;
      continue;
    }
    if (p.resource == "jobs") {
      env_.cache.apply(env_.cache.jobs, kube::WatchEvent{"MODIFIED", res.value()});
    } else {
      for (auto& pod : pods) {
        if (meta_string(pod, "name") == p.name) pod = res.value();
      }
    }
  }
  return failed ? Written::kFailed : Written::kDone;
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
  EventRecorder{env_.api, env_.log, env_.identity}.record(jobset, kJobSetGroupVersion, "JobSet",
                                                          type, reason, message);
}

}  // namespace jobset_webhook::controller

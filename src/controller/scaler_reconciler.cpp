#include "scaler_reconciler.h"

#include <optional>

#include "events.h"
#include "jobset_webhook/json_access.h"
#include "jobset_webhook/runtime/time.h"

namespace jobset_webhook::controller {
namespace {

std::string scaler_path(const Json& scaler) {
  return kube::group_path(kScalerGroupVersion, meta_string(scaler, "namespace"), kScalerResource,
                          meta_string(scaler, "name"));
}

std::string jobset_path(const std::string& ns, const std::string& name) {
  return kube::group_path(kJobSetGroupVersion, ns, "jobsets", name);
}

Outcome worse(Outcome a, Outcome b) { return a == Outcome::kRetry ? a : b; }

}  // namespace

Outcome ScalerReconciler::reconcile(const std::string& key) {
  if (synced_ && !synced_()) return Outcome::kDone;
  std::vector<Json> scalers = env_.cache.scalers_of(key);
  const auto cached = env_.cache.snapshot(key);
  const Json* jobset = cached ? &cached->first : nullptr;
  const std::vector<Json> no_jobs;
  const std::vector<Json>& jobs = cached ? cached->second : no_jobs;
  Outcome out = Outcome::kDone;
  if (jobset != nullptr) {
    for (const auto& scaler : scalers_to_create(*jobset, scalers)) {
      if (!env_.leading()) return Outcome::kDone;
      const std::string ns = meta_string(scaler, "namespace");
      auto res =
          env_.api.create(kube::group_path(kScalerGroupVersion, ns, kScalerResource), scaler);
      if (!res.ok()) {
        // Already there (a watch not caught up, or a name another scaler holds): nothing to add.
        if (res.failure().code == StatusCode::kAborted) continue;
        env_.log.warn("create scaler", {{"jobset", key},
                                        {"scaler", meta_string(scaler, "name")},
                                        {"error", res.failure().message}});
        out = Outcome::kRetry;
        continue;
      }
      ++env_.metrics.scalers_created;
      record(res.value(), "Normal", "ScalerCreated",
             "Created for replicatedJob " + scaler_replicated_job(scaler) + " of JobSet " +
                 meta_string(*jobset, "name") + ", which asks for scalers with " +
                 kAutoScalersAnnotation);
    }
  }
  for (auto& scaler : scalers) {
    if (!env_.leading()) return Outcome::kDone;
    out = worse(out, reconcile_scaler(std::move(scaler), jobset, jobs));
  }
  return out;
}

Outcome ScalerReconciler::reconcile_scaler(Json scaler, const Json* cached_jobset,
                                           const std::vector<Json>& jobs) {
  const std::string path = scaler_path(scaler);
  if (cached_jobset != nullptr) {
    if (const auto owner = owner_patch(scaler, *cached_jobset)) {
      auto res = env_.api.patch(path, *owner);
      if (!res.ok()) {
        if (res.failure().code == StatusCode::kNotFound) return Outcome::kDone;
        // 409: the scaler changed since the cache saw it; its event brings it back.
        if (res.failure().code == StatusCode::kAborted) return Outcome::kDone;
        env_.log.warn("own scaler", {{"scaler", path}, {"error", res.failure().message}});
        return Outcome::kRetry;
      }
      scaler = std::move(res).value();
    }
  }
  std::optional<Json> jobset;
  if (cached_jobset != nullptr) jobset = *cached_jobset;
  ScalerPlan plan = plan_scaler(scaler, cached_jobset);
  ScaleResult result;
  if (plan.jobset_patch) {
    if (const Outcome o = scale(scaler, plan, *jobset, result); o != Outcome::kDone) return o;
  }
  const Json status = scaler_status(scaler, jobset ? &*jobset : nullptr, jobs, plan, result,
                                    runtime::rfc3339(env_.wall_now()));
  const Json* old = member(&scaler, "status");
  if (old != nullptr && *old == status) return Outcome::kDone;
  auto written = env_.api.patch(path + "/status", Json{{"status", status}});
  if (!written.ok()) {
    if (written.failure().code == StatusCode::kNotFound) return Outcome::kDone;
    env_.log.warn("write scaler status", {{"scaler", path}, {"error", written.failure().message}});
    return Outcome::kRetry;
  }
  return Outcome::kDone;
}

Outcome ScalerReconciler::scale(const Json& scaler, ScalerPlan& plan, Json& jobset,
                                ScaleResult& result) {
  const std::string path =
      jobset_path(meta_string(jobset, "namespace"), meta_string(jobset, "name"));
  // A quorum read: the cache may not show the scale of the last pass yet.
  auto read = env_.api.get(path);
  if (!read.ok()) {
    if (read.failure().code == StatusCode::kNotFound) return Outcome::kDone;  // its event follows
    env_.log.warn("get jobset", {{"jobset", path}, {"error", read.failure().message}});
    return Outcome::kRetry;
  }
  jobset = std::move(read).value();
  plan = plan_scaler(scaler, &jobset);
  if (!plan.jobset_patch || !env_.leading()) return Outcome::kDone;
  const std::string what = "replicatedJob " + scaler_replicated_job(scaler) + " of JobSet " +
                           meta_string(jobset, "name") + " from " + std::to_string(*plan.current) +
                           " to " + std::to_string(plan.wanted);
  std::vector<std::string> warnings;
  auto patched = env_.api.json_patch(path, *plan.jobset_patch, &warnings);
  if (patched.ok()) {
    jobset = std::move(patched).value();
    result.kind = ScaleResult::Kind::kApplied;
    ++env_.metrics.scales_applied;
    env_.log.info("scaled " + what, {{"scaler", scaler_path(scaler)}});
    record(scaler, "Normal", "Scaled", "Scaled " + what);
    // What the webhooks said of the scale (which Jobs go, labels that stay stale, a Kueue
    // restart) reached the controller only: the scaler's Events are where its user looks.
    for (const auto& warning : warnings) record(scaler, "Warning", "ScaleWarning", warning);
    return Outcome::kDone;
  }
  const Failure& failure = patched.failure();
  if (failure.code != StatusCode::kInvalidArgument &&
      failure.code != StatusCode::kPermissionDenied) {
    env_.log.warn("scale jobset", {{"jobset", path}, {"error", failure.message}});
    return Outcome::kRetry;
  }
  // A 4xx is a refusal, or the test of a replicas that changed since the read: read again to
  // tell which.
  auto again = env_.api.get(path);
  if (!again.ok()) return Outcome::kRetry;
  if (plan_scaler(scaler, &again.value()).current != plan.current) {
    ++env_.metrics.scales_conflicted;
    return Outcome::kRetry;
  }
  result.kind = ScaleResult::Kind::kRefused;
  result.message = failure.message;
  ++env_.metrics.scales_refused;
  env_.log.warn("scale refused", {{"scaler", scaler_path(scaler)}, {"error", failure.message}});
  record(scaler, "Warning", "ScaleRefused", "Cannot scale " + what + ": " + failure.message);
  return Outcome::kDone;
}

void ScalerReconciler::record(const Json& scaler, const char* type, const std::string& reason,
                              const std::string& message) {
  EventRecorder{env_.api, env_.log, env_.identity}.record(scaler, kScalerGroupVersion, kScalerKind,
                                                          type, reason, message);
}

}  // namespace jobset_webhook::controller

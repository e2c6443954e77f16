#pragma once

// The ReplicatedJobScaler decision (docs/elastic.md, "A /scale for every replicatedJob"): what a
// scaler asks of its JobSet, and the status it should show. A pure function of observed state,
// like plan_scale_down: no API calls, clocks or logs.
//
// Who owns `replicas`: the scaler. While a scaler names a replicatedJob, its spec.replicas is
// what that replicatedJob's `replicas` is made to be, as a HorizontalPodAutoscaler's answer is
// what a Deployment's `replicas` is made to be: an edit of the JobSet's `replicas` by other means
// is changed back at the next pass. One writer per number, so an autoscaler and a person never
// take turns. To scale by hand, `kubectl scale` the scaler; to give `replicas` back to the
// JobSet, delete the scaler.
//
// A scale is a JSON patch of the JobSet with a `test` of the replicas it was planned from, so a
// concurrent change is never overwritten blindly: it fails the patch, and the next pass plans
// from the new value. The patch goes through the admission webhooks like any edit; a refusal is
// kept in the scaler's ScalingLimited condition (with the scaler's generation) and the scale is
// not tried again until the scaler's spec changes: nothing loops.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook::controller {

inline constexpr const char* kScalerGroupVersion = "elastic.jobset-webhook.io/v1alpha1";
inline constexpr const char* kScalerKind = "ReplicatedJobScaler";
inline constexpr const char* kScalerResource = "replicatedjobscalers";
// A JobSet with this annotation set to "true" gets a scaler for each replicatedJob that has
// none, named <jobset>-<replicatedJob>, created with the replicatedJob's current replicas.
inline constexpr const char* kAutoScalersAnnotation = "elastic.jobset-webhook.io/scalers";
// The Pods label of an Indexed Job's completion index (k8s.io/api batch/v1
// JobCompletionIndexAnnotation, also set as a label since Kubernetes 1.28).
inline constexpr const char* kCompletionIndexLabel = "batch.kubernetes.io/job-completion-index";

// spec.jobSetName and spec.replicatedJobName of a scaler ("" when absent).
std::string scaler_jobset(const Json& scaler);
std::string scaler_replicated_job(const Json& scaler);

struct ScalerPlan {
  // The JobSet's replicas for the scaler's replicatedJob (nullopt: the JobSet or the
  // replicatedJob does not exist), and what the scaler wants.
  std::optional<std::int64_t> current;
  std::int64_t wanted = 0;
  // The JSON patch (RFC 6902) that scales the JobSet: a test of `current`, then a replace;
  // absent when nothing is to be patched now.
  std::optional<Json> jobset_patch;
  // Why no patch although current != wanted: the refusal kept from an earlier pass, the JobSet
  // being deleted. Empty otherwise.
  std::string held;
};

// What `scaler` asks of `jobset` (null: not found). Never throws.
[[nodiscard]] ScalerPlan plan_scaler(const Json& scaler, const Json* jobset);

// What happened to this pass's scale, for the status.
struct ScaleResult {
  enum class Kind { kNone, kApplied, kRefused } kind = Kind::kNone;
  std::string message;  // the API server's answer to a refused patch
};

// The status the scaler should have after this pass: replicas (the Jobs of the JobSet's current
// restart attempt, controlled by it, for the replicatedJob, with a job index below the JobSet's
// replicas), selector (the Pods of completion index 0 of that replicatedJob's Jobs: one Pod per
// Job, so an autoscaler that averages a per-Pod metric counts Jobs), observedGeneration, and the
// conditions Ready and ScalingLimited. A condition keeps its lastTransitionTime while its status
// does not change; `now` (RFC 3339) stamps those that do. `jobset` may be null (not found).
[[nodiscard]] Json scaler_status(const Json& scaler, const Json* jobset,
                                 const std::vector<Json>& jobs, const ScalerPlan& plan,
                                 const ScaleResult& result, const std::string& now);

// The merge patch that makes the JobSet an owner of the scaler, so that the garbage collector
// deletes the scaler with its JobSet; nullopt when it is one already. Carries the scaler's
// resourceVersion, so that it applies to the ownerReferences it was computed from.
[[nodiscard]] std::optional<Json> owner_patch(const Json& scaler, const Json& jobset);

// The scalers to create for a JobSet that opts in with kAutoScalersAnnotation: one for each
// replicatedJob that no scaler in `scalers` names. Empty when it does not opt in or is being
// deleted.
[[nodiscard]] std::vector<Json> scalers_to_create(const Json& jobset,
                                                  const std::vector<Json>& scalers);

}  // namespace jobset_webhook::controller

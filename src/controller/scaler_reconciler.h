#pragma once

// One pass over the ReplicatedJobScalers of one JobSet (plan_scaler.h says what a scaler asks
// and who owns `replicas`): create the scalers of a JobSet that opts in, make the JobSet an owner
// of each scaler (so the garbage collector deletes them with it), apply each scaler's replicas to
// the JobSet, and write each scaler's status. Before a scale the JobSet is read with a quorum GET,
// so a scale is never planned on a cache that does not show the last one yet; the patch tests the
// replicas read. A refused patch is kept in the scaler's status and recorded as a Warning Event
// on the scaler; an applied one as a Normal Event, followed by a Warning Event (ScaleWarning) for
// each warning the API server answered the patch with.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "jobset_webhook/json.h"
#include "plan_scaler.h"
#include "reconciler.h"

namespace jobset_webhook::controller {

class ScalerReconciler {
 public:
  // `synced`: the scalers' watch has listed them once; before that a pass does nothing (it would
  // take missing scalers for ones to create).
  ScalerReconciler(ReconcilerEnv env, std::function<bool()> synced)
      : env_(std::move(env)), synced_(std::move(synced)) {}

  // The pass over the scalers that name the JobSet of `key` ("namespace/name"). kRetry when an
  // API call failed in a way worth trying again. Called from one thread at a time.
  Outcome reconcile(const std::string& key);

 private:
  Outcome reconcile_scaler(Json scaler, const Json* jobset, const std::vector<Json>& jobs);
  // Scales the JobSet as plan asks; `jobset` becomes what the API server answered.
  Outcome scale(const Json& scaler, ScalerPlan& plan, Json& jobset, ScaleResult& result);
  void record(const Json& scaler, const char* type, const std::string& reason,
              const std::string& message);

  ReconcilerEnv env_;
  std::function<bool()> synced_;
};

}  // namespace jobset_webhook::controller

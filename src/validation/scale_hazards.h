#pragma once

// What upstream's JobSet controller (v0.12.0) derives from replicas besides the number of Jobs,
// and which an allowed scale changes under a JobSet that already has Jobs: the global indices of
// the replicatedJobs after the scaled one, the replica counts in the labels of the Jobs that
// exist, the per-Job restart lists of the RestartJob gate, the count the success policy waits for, the counts dependsOn and the InOrder startup
// policy compare with, and Kueue's admission. Each is a warning that names the Jobs, labels and
// status fields concerned, in the order of `scaled`, of one class that the policy may refuse
// instead (scaleHazards.deny).

#include <string>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/validation/scale_warnings.h"

namespace jobset_webhook::validation {

struct Hazard {
  ScaleHazard kind;
  const ReplicasChange* change;  // the scale it is about, an element of `scaled`
  std::string detail;            // what follows scale_warning_head(*change)
  // Past what a response's warnings can hold (kMaxWarningsBytes) a warning is counted, not
  // kept: `detail` is then empty. A class the policy refuses is always kept whole.
  bool elided = false;
  // The warning: `replicatedJob "a" scaled up from 1 to 2: <detail>`, about the replicas of
  // the scale (replicas_path).
  field::Warning warning() const {
    return field::warning(replicas_path(*change), scale_warning_head(*change) + detail);
  }
};

// `old_js` carries the status the cluster holds (absent offline: those warnings that read it are
// then left out); `new_js` the spec after the UPDATE. Call only when the UPDATE has no error, so
// that both specs list the same replicatedJobs in the same order.
// `policy` says whether upstream runs with the RestartJob gate, who deletes the Jobs above a
// lowered count, and which classes are refused (those are never elided).
std::vector<Hazard> scale_hazards(JsonView old_js, JsonView new_js,
                                  const std::vector<ReplicasChange>& scaled, const Policy& policy);

}  // namespace jobset_webhook::validation

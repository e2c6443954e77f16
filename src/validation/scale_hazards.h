#pragma once

// What upstream's JobSet controller (v0.12.0) derives from replicas besides the number of Jobs,
// and which an allowed scale changes under a JobSet that already has Jobs: the global indices of
// the replicatedJobs after the scaled one, the count the success policy waits for, the counts
// dependsOn and the InOrder startup policy compare with, and Kueue's admission. Each is a warning
// that names the Jobs, labels and status fields concerned, in the order of `scaled`; each starts
// with scale_warning_prefix(), so that `check` can place it at the replicas it is about.

#include <string>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/validation/scale_warnings.h"

namespace jobset_webhook::validation {

// `old_js` carries the status the cluster holds (absent offline: those warnings that read it are
// then left out); `new_js` the spec after the UPDATE. Call only when the UPDATE has no error, so
// that both specs list the same replicatedJobs in the same order.
std::vector<std::string> scale_hazards(JsonView old_js, JsonView new_js,
                                       const std::vector<ReplicasChange>& scaled);

}  // namespace jobset_webhook::validation

#pragma once

// Feature switches of the decision core. They arrive here and nowhere else: the core reads no
// files or environment. The policy file (YAML or JSON) looks like
//   elastic:
//     replicas: true      # replicatedJobs[*].replicas may change (default true)
//     parallelism: false  # upstream's ElasticJobSet rules for parallelism/completions (default false)
//     scaleDown: manual   # who deletes the Jobs above a lowered replicas: "manual" (the user;
//                         # default) or "controller" (the scale-down controller is installed)
//     scaleDownNoticeSeconds: 0  # the scale-down notice of JobSets without their own annotation
//                                # (scale_down_notice.h); 0, the default: none
//   featureGates:         # upstream JobSet's alpha feature gates that change CREATE validation
//     InPlaceRestart: false  # allow failurePolicy.restartStrategy InPlaceRestart (default false)
//     RestartJob: false      # allow failure-policy actions RestartJob[AndIgnoreMaxRestarts] (default false)

#include <cstdint>

#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook {

struct Policy {
  // Who retires the Jobs above a lowered replicas; it only changes the scale-down warning.
  enum class ScaleDown { kManual, kController };
  struct Elastic {
    bool replicas = true;
    bool parallelism = false;
    ScaleDown scale_down = ScaleDown::kManual;
    std::int64_t scale_down_notice_seconds = 0;
  };
  // Upstream's feature gates, with upstream v0.12.0's defaults (both alpha, off).
  struct FeatureGates {
    bool in_place_restart = false;
    bool restart_job = false;
  };
  Elastic elastic;
  FeatureGates feature_gates;
};

// Reads a policy document already converted to JSON. Missing keys keep their defaults; an unknown
// key or a wrong type is a Failure whose message names the key, e.g.
//   policy: elastic.replicas: must be a boolean, got "yes"
// Never throws.
Result<Policy> parse_policy(const Json& document);

}  // namespace jobset_webhook

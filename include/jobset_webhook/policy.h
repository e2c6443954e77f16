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
//   scaleHazards:
//     deny: [successPolicy, kueue]  # classes of scale warnings refused instead (default: none)

#include <string_view>
#include <vector>

#include <cstdint>

#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook {

// The classes of the warnings about what an allowed scale changes besides the number of Jobs
// (src/validation/scale_hazards.h); the policy may refuse each instead. In the policy file by
// scale_hazard_name().
enum class ScaleHazard {
  kGlobalIndex,         // a new Job's job-global-index collides, or later Jobs keep old ones
  kStaleReplicaCounts,  // the Jobs that exist keep the *-replicas labels of the old counts
  kSuccessPolicy,       // successPolicy All completes the JobSet (or waits for 0 Jobs)
  kDependsOn,           // a dependant's missing Jobs wait until the Jobs above the count go
  kStartupPolicy,       // startupPolicy InOrder is in progress again
  kKueue,               // Kueue suspends and requeues a running JobSet
  kRestartJobIndex,     // RestartJob gate: Jobs above a lowered count fail every reconcile
};
inline constexpr ScaleHazard kScaleHazards[] = {
    ScaleHazard::kGlobalIndex,    ScaleHazard::kStaleReplicaCounts, ScaleHazard::kSuccessPolicy,
    ScaleHazard::kDependsOn,      ScaleHazard::kStartupPolicy,      ScaleHazard::kKueue,
    ScaleHazard::kRestartJobIndex};
// Its name in the policy file.
constexpr std::string_view scale_hazard_name(ScaleHazard hazard) {
  switch (hazard) {
    case ScaleHazard::kGlobalIndex: return "globalIndex";
    case ScaleHazard::kStaleReplicaCounts: return "staleReplicaCounts";
    case ScaleHazard::kSuccessPolicy: return "successPolicy";
    case ScaleHazard::kDependsOn: return "dependsOn";
    case ScaleHazard::kStartupPolicy: return "startupPolicy";
    case ScaleHazard::kKueue: return "kueue";
    case ScaleHazard::kRestartJobIndex: return "restartJobIndex";
  }
  return "";
}

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
  // The scale hazards refused rather than warned (default none: see docs/policy.md).
  std::vector<ScaleHazard> deny_scale_hazards;
  bool denies(ScaleHazard hazard) const {
    for (const ScaleHazard h : deny_scale_hazards) {
      if (h == hazard) return true;
    }
    return false;
  }
};

// Reads a policy document already converted to JSON. Missing keys keep their defaults; an unknown
// key or a wrong type is a Failure whose message names the key, e.g.
//   policy: elastic.replicas: must be a boolean, got "yes"
// Never throws.
Result<Policy> parse_policy(const Json& document);

}  // namespace jobset_webhook

#pragma once

// The warnings that tell a user what a replicas change does to a ReplicatedJob's child Jobs.
// Upstream's JobSet controller (v0.12.0) creates every missing Job index below `replicas`, and
// deletes nothing on a scale-down: Jobs at indices >= the new count keep running until the
// JobSet finishes or restarts. The warnings say so, name the Jobs, and stay short.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/field/warning.h"

namespace jobset_webhook::validation {

// Upper bounds for response.warnings, so that a JobSet with many ReplicatedJobs cannot produce
// an unreadable or oversized answer.
inline constexpr std::size_t kMaxWarningsBytes = 4096;

struct ReplicasChange {
  std::string replicated_job;
  std::int64_t old_replicas = 0;
  std::int64_t new_replicas = 0;
  std::size_t index = 0;  // of the ReplicatedJob in the new spec.replicatedJobs
};

// Child Job name, as upstream's placement.GenJobName: "<jobset>-<replicatedJob>-<index>".
std::string child_job_name(std::string_view jobset, std::string_view replicated_job,
                           std::int64_t index);

// The Jobs of indices [first, last]: "Job js-w-2", "Jobs js-w-2, js-w-3", or past three
// "Jobs js-w-2 ... js-w-9 (8 Jobs)".
std::string job_run(std::string_view jobset, std::string_view replicated_job, std::int64_t first,
                    std::int64_t last);

// What each warning about one ReplicatedJob starts with: `replicatedJob "workers" scaled `.
std::string scale_warning_prefix(std::string_view replicated_job);
// Where a warning about c points: spec.replicatedJobs[c.index].replicas.
field::Path replicas_path(const ReplicasChange& c);
// The prefix and the change: `replicatedJob "workers" scaled down from 4 to 2: `.
std::string scale_warning_head(const ReplicasChange& c);

// One warning per change, e.g.
//   replicatedJob "workers" scaled down from 4 to 2: Jobs js-workers-2, js-workers-3 keep running
//   (the JobSet controller deletes none); delete them to release their resources
// With the scale-down controller installed (policy elastic.scaleDown: controller) a scale-down
// says instead
//   replicatedJob "workers" scaled down from 4 to 2: the scale-down controller will delete Jobs
//   js-workers-2, js-workers-3, highest index first
// and when the JobSet asks for a scale-down notice (`notice_seconds` > 0: its annotation, or the
// policy's default; scale_down_notice.h) it ends
//   ..., highest index first, after a notice of 5m to the Jobs and Pods of "workers"
// When spec.managedBy names another controller (`managed_by` not empty), neither upstream's JobSet
// controller nor the scale-down controller acts, and the warning promises nothing:
//   replicatedJob "workers" scaled up from 2 to 4: "kueue.x-k8s.io/multikueue" manages this JobSet
//   (spec.managedBy): the JobSet controller creates no Job; Jobs js-workers-2, js-workers-3 are
//   for it to create
// Runs of more than three Jobs are summarised ("js-workers-2 ... js-workers-9, 8 Jobs"). The
// `hazards` (what else the scale changes, see src/validation/scale_hazards.h) follow, then
// `hazards_elided` more counted but not written: they are elided only once the kept ones exceed
// the budget, so the count of those left out includes them. The total stays under
// kMaxWarningsBytes, ending in a count of the warnings left out.
// Each warning about a change is about its ReplicatedJob's replicas
// (spec.replicatedJobs[index].replicas); a hazard keeps its own field; a count of those left out
// is about the whole object.
field::WarningList scale_warnings(std::string_view jobset,
                                  const std::vector<ReplicasChange>& changes,
                                  bool scale_down_controller = false,
                                  std::string_view managed_by = {},
                                  const field::WarningList& hazards = {},
                                  std::size_t hazards_elided = 0, std::int64_t notice_seconds = 0);

}  // namespace jobset_webhook::validation

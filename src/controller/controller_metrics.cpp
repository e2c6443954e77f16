#include "controller_metrics.h"

#include <algorithm>

#include "jobset_webhook/metrics/exposition.h"
#include "jobset_webhook/metrics/process.h"

namespace jobset_webhook::controller {

void ControllerMetrics::set_notices(const std::string& key, int in_progress, int past_deadline,
                                    std::optional<std::chrono::system_clock::time_point> deadline) {
  std::lock_guard lock(notices_mu_);
  if (in_progress == 0) {
    notices_.erase(key);
  } else {
    notices_[key] = {in_progress, past_deadline, deadline};
  }
}

std::string ControllerMetrics::text(std::uint64_t jobset_lists, std::uint64_t job_lists,
                                    std::uint64_t scaler_lists) const {
  metrics::Exposition out;
  out.family("jobset_scale_down_jobs_deleted_total", "counter",
             "Child Jobs deleted because their index is at or above their ReplicatedJob's "
             "replicas");
  out.sample("jobset_scale_down_jobs_deleted_total", {}, jobs_deleted.load());
  out.family("jobset_scale_down_reconcile_errors_total", "counter",
             "Reconciles of a JobSet that failed and were retried");
  out.sample("jobset_scale_down_reconcile_errors_total", {}, reconcile_errors.load());
  out.family("jobset_scale_down_reconcile_total", "counter", "Reconciles of a JobSet");
  out.sample("jobset_scale_down_reconcile_total", {}, reconciles.load());
  out.family("jobset_scale_down_reconcile_duration_seconds", "histogram",
             "Time to reconcile one JobSet, its deletions and Events included");
  out.histogram("jobset_scale_down_reconcile_duration_seconds", {}, reconcile_duration.snapshot());
  out.family("jobset_scale_down_queue_depth", "gauge", "JobSets waiting in the work queue");
  out.sample("jobset_scale_down_queue_depth", {}, queue_depth.load());
  out.family("jobset_scale_down_leader", "gauge", "1 while this replica holds the Lease");
  out.sample("jobset_scale_down_leader", {}, static_cast<std::int64_t>(leader.load()));
  // What the leader acts on: a replica without the Lease acts on nothing and reports none, not
  // the counts it had when it last led.
  const bool leading = leader.load() == 1;
  out.family("jobset_scale_down_waiting_jobsets", "gauge",
             "JobSets with Jobs above replicas that the controller leaves in place, by reason: "
             "newer_attempt (the JobSet read is older than its Jobs), managed_elsewhere "
             "(spec.managedBy), forbidden (DELETE refused by RBAC), delete_failed; 0 on a "
             "replica without the Lease");
  for (int r = 1; r < kWaitReasons; ++r) {
    out.sample("jobset_scale_down_waiting_jobsets",
               {{"reason", to_string(static_cast<WaitReason>(r))}},
               leading ? waiting[r].load() : 0);
  }
  {
    std::lock_guard lock(notices_mu_);
    std::int64_t in_progress = 0;
    std::int64_t past_deadline = 0;
    std::optional<std::chrono::system_clock::time_point> next;
    for (const auto& [key, n] : notices_) {
      if (!leading) break;
      in_progress += n.in_progress;
      past_deadline += n.past_deadline;
      if (n.deadline && (!next || *n.deadline < *next)) next = n.deadline;
    }
    out.family("jobset_scale_down_notices", "gauge",
               "ReplicatedJobs with a scale-down notice in progress (announced, Jobs not yet "
               "deleted); 0 on a replica without the Lease");
    out.sample("jobset_scale_down_notices", {}, in_progress);
    out.family("jobset_scale_down_notices_past_deadline", "gauge",
               "Of the ReplicatedJobs with a scale-down notice in progress, those past their "
               "deadline: their Jobs are being deleted, and the notice ends once they are gone; "
               "0 on a replica without the Lease");
    out.sample("jobset_scale_down_notices_past_deadline", {}, past_deadline);
    out.family("jobset_scale_down_notice_deadline_seconds", "gauge",
               "Seconds until the earliest scale-down notice deadline still ahead; absent when "
               "none is");
    if (next) {
      const auto left = std::chrono::duration_cast<std::chrono::seconds>(
          *next - std::chrono::system_clock::now());
      out.sample("jobset_scale_down_notice_deadline_seconds", {},
                 static_cast<std::int64_t>(std::max<std::int64_t>(left.count(), 0)));
    }
  }
  out.family("jobset_scale_down_lists_total", "counter",
             "Full lists of a watched collection (start, and relists after 410 Gone)");
  out.sample("jobset_scale_down_lists_total", {{"resource", "jobsets"}}, jobset_lists);
  out.sample("jobset_scale_down_lists_total", {{"resource", "jobs"}}, job_lists);
  out.sample("jobset_scale_down_lists_total", {{"resource", "replicatedjobscalers"}}, scaler_lists);
  out.family("jobset_scaler_scales_total", "counter",
             "Scales of a ReplicatedJobScaler patched into its JobSet, by the API server's answer: "
             "applied, refused (by a webhook or the API server: kept in the scaler's "
             "ScalingLimited condition), conflict (the JobSet's replicas had changed)");
  out.sample("jobset_scaler_scales_total", {{"result", "applied"}}, scales_applied.load());
  out.sample("jobset_scaler_scales_total", {{"result", "refused"}}, scales_refused.load());
  out.sample("jobset_scaler_scales_total", {{"result", "conflict"}}, scales_conflicted.load());
  out.family("jobset_scaler_created_total", "counter",
             "ReplicatedJobScalers created for JobSets that opt in with the annotation "
             "elastic.jobset-webhook.io/scalers");
  out.sample("jobset_scaler_created_total", {}, scalers_created.load());
  metrics::write_process_metrics(out, metrics::read_process_stats());
  return out.text();
}

}  // namespace jobset_webhook::controller

#pragma once

// The scale-down controller's metrics: counters and gauges its loop updates without a lock.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "jobset_webhook/metrics/histogram.h"
#include "plan_scale_down.h"

namespace jobset_webhook::controller {

struct ControllerMetrics {
  std::atomic<std::uint64_t> jobs_deleted{0};
  std::atomic<std::uint64_t> reconcile_errors{0};
  std::atomic<std::uint64_t> reconciles{0};
  std::atomic<std::uint64_t> relists{0};
  // ReplicatedJobScalers: scales patched into a JobSet, by what the API server answered, and
  // scalers created for JobSets that opt in.
  std::atomic<std::uint64_t> scales_applied{0};
  std::atomic<std::uint64_t> scales_refused{0};
  std::atomic<std::uint64_t> scales_conflicted{0};
  std::atomic<std::uint64_t> scalers_created{0};
  std::atomic<std::int64_t> queue_depth{0};
  std::atomic<int> leader{0};
  // JobSets with Jobs above replicas left in place, by WaitReason (kNone unused).
  std::array<std::atomic<std::int64_t>, kWaitReasons> waiting{};
  metrics::Histogram reconcile_duration{metrics::fine_buckets()};

  // The scale-down notices of the JobSet of `key`: how many of its ReplicatedJobs have one, how
  // many of those are past their deadline, and the earliest deadline still ahead. 0 forgets the
  // JobSet.
  void set_notices(const std::string& key, int in_progress, int past_deadline,
                   std::optional<std::chrono::system_clock::time_point> deadline);

  // The exposition of /metrics: these, the lists of each watch, and the process's own.
  std::string text(std::uint64_t jobset_lists, std::uint64_t job_lists,
                   std::uint64_t scaler_lists) const;

 private:
  struct Notices {
    int in_progress = 0;
    int past_deadline = 0;
    std::optional<std::chrono::system_clock::time_point> deadline;
  };
  mutable std::mutex notices_mu_;
  std::map<std::string, Notices> notices_;  // JobSet key -> its notices; under notices_mu_
};

}  // namespace jobset_webhook::controller

#pragma once

// A histogram of durations that any number of threads observe at once without a lock: one atomic
// counter per bucket and an atomic sum in nanoseconds (exact, no floating-point CAS loop). A
// scrape reads the buckets and derives the count from them, so the +Inf bucket always equals
// _count even while observations land; _sum may be one observation ahead or behind.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "jobset_webhook/metrics/exposition.h"

namespace jobset_webhook::metrics {

class Histogram {
 public:
  // bounds_seconds: the upper bounds of the buckets, ascending, without +Inf.
  explicit Histogram(std::vector<double> bounds_seconds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Counts d in the first bucket whose bound is >= d (negative durations count as zero).
  void observe(std::chrono::nanoseconds d);
  HistogramSnapshot snapshot() const;

 private:
  std::vector<double> bounds_;
  std::vector<std::int64_t> bounds_ns_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // per bucket, not cumulative; last: +Inf
  std::atomic<std::uint64_t> sum_ns_{0};
};

// Prometheus' default buckets, which controller-runtime's webhook latency histogram uses.
std::vector<double> default_buckets();  // 0.005 ... 10 s
// Buckets for sub-millisecond work: 10 µs to 5 s in 1-2.5-5 steps.
std::vector<double> fine_buckets();

}  // namespace jobset_webhook::metrics

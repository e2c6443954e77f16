#include "jobset_webhook/metrics/histogram.h"

#include <algorithm>
#include <cmath>

namespace jobset_webhook::metrics {

Histogram::Histogram(std::vector<double> bounds_seconds)
    : bounds_(std::move(bounds_seconds)),
      counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {
  for (const double b : bounds_) bounds_ns_.push_back(std::llround(b * 1e9));
  for (std::size_t i = 0; i <= bounds_.size(); ++i) counts_[i] = 0;
}

void Histogram::observe(std::chrono::nanoseconds d) {
  const std::int64_t ns = std::max<std::int64_t>(d.count(), 0);
  const auto bucket = static_cast<std::size_t>(
      std::lower_bound(bounds_ns_.begin(), bounds_ns_.end(), ns) - bounds_ns_.begin());
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
}

HistogramSnapshot Histogram::snapshot() const {
  HistogramSnapshot s;
  s.bounds = bounds_;
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    s.buckets.push_back(running);
  }
  s.sum = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
  return s;
}

std::vector<double> default_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> fine_buckets() {
  return {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
          0.01,    0.025,    0.05,    0.1,    0.25,    0.5,    1,     2.5,    5};
}

}  // namespace jobset_webhook::metrics

#pragma once

// The metrics of `serve`, as GET /metrics shows them (docs/observability.md lists each one):
//   controller-runtime's names, so that existing dashboards and alerts work unchanged:
//     controller_runtime_webhook_requests_total{webhook,code}      counter
//     controller_runtime_webhook_latency_seconds{webhook}          histogram, default buckets
//     controller_runtime_webhook_requests_in_flight{webhook}       gauge
//     controller_runtime_webhook_panics_total                      counter
//     certwatcher_read_certificate_total, certwatcher_read_certificate_errors_total
//   our own, finer:
//     jobset_webhook_admission_decisions_total{webhook,operation,allowed,dry_run}
//     jobset_webhook_review_duration_seconds{webhook,operation}    histogram, 10 µs to 5 s
//     jobset_webhook_denied_fields_total{path}                     list indices and map keys as [*]
//     jobset_webhook_certificate_expiry_timestamp_seconds{file}
//     jobset_webhook_client_certificate_name_refusals_total        counter
//     jobset_webhook_request_bytes_in_flight, jobset_webhook_request_bytes_budget   gauges
//     jobset_webhook_request_memory_waits_total                    counter
//     jobset_webhook_request_memory_refusals_total{reason}         counter
//     jobset_webhook_memory_limit_bytes                            gauge, the cgroup's limit
//     jobset_webhook_build_info{version}
//   and the process_* metrics (metrics/process.h).
// `webhook` is the route path. Every update on the request path is an atomic add: series for the
// two routes, the status codes and the operations exist from the start in fixed arrays, and
// denied field paths go to a lock-free bounded table (metrics/bounded_counters.h).

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/metrics/bounded_counters.h"
#include "jobset_webhook/metrics/exposition.h"
#include "jobset_webhook/metrics/histogram.h"
#include "memory_budget.h"

namespace jobset_webhook::server {

// Distinct denied field paths with a series of their own; the rest count as path="other".
inline constexpr std::size_t kMaxDeniedFieldPaths = 200;
inline constexpr std::string_view kOtherDeniedFieldPath = "other";
// Longer generalised paths are cut here (and end in "..."), so no request can make a label large.
inline constexpr std::size_t kMaxDeniedFieldPathBytes = 256;

// A printed field path with every bracketed segment (list index or map key, both chosen by the
// client) replaced by [*]:
//   spec.replicatedJobs[1].template.spec.template.spec.containers[0].image
//   -> spec.replicatedJobs[*].template.spec.template.spec.containers[*].image
std::string generalize_field_path(std::string_view printed);

class ServerMetrics {
 public:
  static constexpr std::size_t kRoutes = 3;  // kValidatePath, kMutatePath, kValidateScalerPath

  ServerMetrics();
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  // The route index of a request path; nullopt for any other path (not counted).
  static std::optional<std::size_t> route_of(std::string_view path);

  // Counts a request into controller_runtime_webhook_requests_in_flight for its lifetime.
  class InFlight {
   public:
    explicit InFlight(std::atomic<std::int64_t>& gauge) : gauge_(gauge) { ++gauge_; }
    ~InFlight() { --gauge_; }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;

   private:
    std::atomic<std::int64_t>& gauge_;
  };
  [[nodiscard]] InFlight in_flight(std::size_t route) { return InFlight(in_flight_[route]); }

  // One answered request: its HTTP status and its latency from the first byte to the response.
  void count_request(std::size_t route, int code, std::chrono::nanoseconds latency);
  // One review judged (any response.status.code), the time the decision took, and for a denial
  // the fields it names.
  void count_review(std::size_t route, const admission::ReviewSummary& review,
                    std::chrono::nanoseconds duration);
  // An internal failure caught in a handler and answered 500.
  void count_panic() { panics_.fetch_add(1, std::memory_order_relaxed); }

  // One read of the TLS files (initial load or reload), and whether it was usable.
  void count_certificate_read(bool ok);
  // A client certificate that chained to the client CA but carried none of --client-name.
  void count_client_name_refusal() {
    client_name_refusals_.fetch_add(1, std::memory_order_relaxed);
  }
  // The notAfter of the certificate(s) in file, seconds since the epoch.
  void set_certificate_expiry(const std::string& file, std::int64_t not_after);
  // Scrapes read the budget's figures from now on; it must outlive this object's scrapes. Without
  // one, those families have no samples.
  void watch_memory_budget(const MemoryBudget& budget) { budget_ = &budget; }

  // The whole exposition text, process metrics included.
  std::string scrape() const;

 private:
  void write_memory_metrics(metrics::Exposition& out) const;

  static constexpr int kMinCode = 100, kMaxCode = 599;
  static constexpr std::size_t kCodes = kMaxCode - kMinCode + 1;
  static constexpr std::size_t kOperations = 5;  // CREATE UPDATE DELETE CONNECT, anything else

  std::array<std::array<std::atomic<std::uint64_t>, kCodes>, kRoutes> requests_{};
  std::array<std::unique_ptr<metrics::Histogram>, kRoutes> latency_;
  std::array<std::atomic<std::int64_t>, kRoutes> in_flight_{};
  std::atomic<std::uint64_t> panics_{0};
  std::atomic<std::uint64_t> certificate_reads_{0};
  std::atomic<std::uint64_t> certificate_read_errors_{0};
  std::atomic<std::uint64_t> client_name_refusals_{0};
  // [route][operation][allowed][dry_run]
  std::array<std::array<std::array<std::array<std::atomic<std::uint64_t>, 2>, 2>, kOperations>,
             kRoutes>
      decisions_{};
  std::array<std::array<std::unique_ptr<metrics::Histogram>, kOperations>, kRoutes>
      review_duration_;
  metrics::BoundedCounters denied_fields_;
  // Written by the certificate reloader's thread only, read by scrapes: off the request path.
  mutable std::mutex expiry_mutex_;
  std::map<std::string, std::int64_t> expiry_;
  const MemoryBudget* budget_ = nullptr;  // set before serving
};

}  // namespace jobset_webhook::server

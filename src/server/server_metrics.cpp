#include "server_metrics.h"

#include "jobset_webhook/metrics/exposition.h"
#include "jobset_webhook/metrics/process.h"
#include "jobset_webhook/server/endpoints.h"

#ifndef JOBSET_WEBHOOK_VERSION
#define JOBSET_WEBHOOK_VERSION "unknown"
#endif

namespace jobset_webhook::server {
namespace {

using metrics::Exposition;
using metrics::Labels;

constexpr std::array<std::string_view, ServerMetrics::kRoutes> kRoutePaths = {
    kValidatePath, kMutatePath, kValidateScalerPath};
constexpr std::array<std::string_view, 5> kOperationNames = {"CREATE", "UPDATE", "DELETE",
                                                             "CONNECT", "other"};

std::size_t operation_index(std::string_view operation) {
  for (std::size_t i = 0; i + 1 < kOperationNames.size(); ++i) {
    if (operation == kOperationNames[i]) return i;
  }
  return kOperationNames.size() - 1;
}

std::string webhook(std::size_t route) { return std::string(kRoutePaths[route]); }

}  // namespace

std::string generalize_field_path(std::string_view printed) {
  std::string out;
  out.reserve(printed.size());
  for (std::size_t i = 0; i < printed.size(); ++i) {
    if (printed[i] == '[') {
      const auto close = printed.find(']', i);
      if (close != std::string_view::npos) {
        out += "[*]";
        i = close;
        continue;
      }
    }
    out += printed[i];
    if (out.size() > kMaxDeniedFieldPathBytes) break;
  }
  if (out.size() > kMaxDeniedFieldPathBytes) {
    out.resize(kMaxDeniedFieldPathBytes - 3);
    out += "...";
  }
  return out;
}

ServerMetrics::ServerMetrics()
    : denied_fields_(kMaxDeniedFieldPaths, std::string(kOtherDeniedFieldPath)) {
  for (std::size_t r = 0; r < kRoutes; ++r) {
    latency_[r] = std::make_unique<metrics::Histogram>(metrics::default_buckets());
    for (auto& h : review_duration_[r]) {
      h = std::make_unique<metrics::Histogram>(metrics::fine_buckets());
    }
  }
}

std::optional<std::size_t> ServerMetrics::route_of(std::string_view path) {
  for (std::size_t r = 0; r < kRoutes; ++r) {
    if (path == kRoutePaths[r]) return r;
  }
  return std::nullopt;
}

void ServerMetrics::count_request(std::size_t route, int code, std::chrono::nanoseconds latency) {
  if (code >= kMinCode && code <= kMaxCode) {
    requests_[route][static_cast<std::size_t>(code - kMinCode)].fetch_add(
        1, std::memory_order_relaxed);
  }
  latency_[route]->observe(latency);
}

void ServerMetrics::count_review(std::size_t route, const admission::ReviewSummary& review,
                                 std::chrono::nanoseconds duration) {
  const std::size_t op = operation_index(review.operation);
  decisions_[route][op][review.allowed ? 1 : 0][review.dry_run ? 1 : 0].fetch_add(
      1, std::memory_order_relaxed);
  review_duration_[route][op]->observe(duration);
  for (const auto& field : review.denied_fields) {
    denied_fields_.increment(generalize_field_path(field));
  }
}

void ServerMetrics::count_certificate_read(bool ok) {
  certificate_reads_.fetch_add(1, std::memory_order_relaxed);
  if (!ok) certificate_read_errors_.fetch_add(1, std::memory_order_relaxed);
}

void ServerMetrics::set_certificate_expiry(const std::string& file, std::int64_t not_after) {
  std::lock_guard lock(expiry_mutex_);
  expiry_[file] = not_after;
}

void ServerMetrics::write_memory_metrics(metrics::Exposition& out) const {
  out.family("jobset_webhook_request_bytes_in_flight", "gauge",
             "Bytes of request bodies reserved in the memory budget now: being read, judged or "
             "answered.");
  if (budget_ != nullptr)
    out.sample("jobset_webhook_request_bytes_in_flight", {}, std::uint64_t{budget_->in_use()});
  out.family("jobset_webhook_request_bytes_budget", "gauge",
             "The memory budget for request bodies held at once (--max-inflight-bytes).");
  if (budget_ != nullptr)
    out.sample("jobset_webhook_request_bytes_budget", {}, std::uint64_t{budget_->limit()});
  out.family("jobset_webhook_request_memory_waits_total", "counter",
             "Requests whose body did not fit in the memory budget at once and waited for room.");
  if (budget_ != nullptr)
    out.sample("jobset_webhook_request_memory_waits_total", {}, budget_->waited());
  out.family("jobset_webhook_request_memory_refusals_total", "counter",
             "Requests refused for memory: reason=\"larger_than_budget\" (413), or "
             "reason=\"deadline\" (504: no room before the request's deadline).");
  if (budget_ != nullptr) {
    out.sample("jobset_webhook_request_memory_refusals_total",
               Labels{{"reason", "larger_than_budget"}}, budget_->too_large());
    out.sample("jobset_webhook_request_memory_refusals_total", Labels{{"reason", "deadline"}},
               budget_->timed_out());
  }
  out.family("jobset_webhook_memory_limit_bytes", "gauge",
             "The memory limit of the server's cgroup (in Kubernetes, the container's limit); "
             "absent when there is none.");
  if (const auto limit = metrics::read_cgroup_memory_limit()) {
    out.sample("jobset_webhook_memory_limit_bytes", {}, *limit);
  }
}

std::string ServerMetrics::scrape() const {
  Exposition out;
  const auto load = [](const std::atomic<std::uint64_t>& a) {
    return a.load(std::memory_order_relaxed);
  };

  out.family("controller_runtime_webhook_requests_total", "counter",
             "Total number of admission requests by HTTP status code.");
  for (std::size_t r = 0; r < kRoutes; ++r) {
    for (std::size_t c = 0; c < kCodes; ++c) {
      const int code = kMinCode + static_cast<int>(c);
      const auto n = load(requests_[r][c]);
      // 200 and 500 always, as controller-runtime initialises them, so that rate() sees the
      // first error.
      if (n == 0 && code != 200 && code != 500) continue;
      out.sample("controller_runtime_webhook_requests_total",
                 Labels{{"webhook", webhook(r)}, {"code", std::to_string(code)}}, n);
    }
  }
  out.family("controller_runtime_webhook_latency_seconds", "histogram",
             "Histogram of the latency of processing admission requests");
  for (std::size_t r = 0; r < kRoutes; ++r) {
    out.histogram("controller_runtime_webhook_latency_seconds", Labels{{"webhook", webhook(r)}},
                  latency_[r]->snapshot());
  }
  out.family("controller_runtime_webhook_requests_in_flight", "gauge",
             "Current number of admission requests being served.");
  for (std::size_t r = 0; r < kRoutes; ++r) {
    out.sample("controller_runtime_webhook_requests_in_flight", Labels{{"webhook", webhook(r)}},
               std::int64_t{in_flight_[r].load(std::memory_order_relaxed)});
  }
  out.family("controller_runtime_webhook_panics_total", "counter",
             "Total number of webhook panics");
  out.sample("controller_runtime_webhook_panics_total", {}, load(panics_));
  out.family("certwatcher_read_certificate_total", "counter", "Total number of certificate reads");
  out.sample("certwatcher_read_certificate_total", {}, load(certificate_reads_));
  out.family("certwatcher_read_certificate_errors_total", "counter",
             "Total number of certificate read errors");
  out.sample("certwatcher_read_certificate_errors_total", {}, load(certificate_read_errors_));
  out.family("jobset_webhook_client_certificate_name_refusals_total", "counter",
             "Client certificates signed by the client CA but refused in the handshake because "
             "neither their subject CN nor a DNS SAN is one of --client-name.");
  out.sample("jobset_webhook_client_certificate_name_refusals_total", {},
             load(client_name_refusals_));

  out.family("jobset_webhook_admission_decisions_total", "counter",
             "AdmissionReviews judged, by webhook, operation, decision and dry run. A review that "
             "is not usable (status.code 400) counts as allowed=\"false\".");
  for (std::size_t r = 0; r < kRoutes; ++r) {
    for (std::size_t op = 0; op < kOperationNames.size(); ++op) {
      for (int allowed = 0; allowed < 2; ++allowed) {
        for (int dry_run = 0; dry_run < 2; ++dry_run) {
          const auto n = load(decisions_[r][op][allowed][dry_run]);
          if (n == 0) continue;
          out.sample("jobset_webhook_admission_decisions_total",
                     Labels{{"webhook", webhook(r)},
                            {"operation", std::string(kOperationNames[op])},
                            {"allowed", allowed != 0 ? "true" : "false"},
                            {"dry_run", dry_run != 0 ? "true" : "false"}},
                     n);
        }
      }
    }
  }
  out.family("jobset_webhook_review_duration_seconds", "histogram",
             "Time to decode, judge and encode one AdmissionReview, without network and TLS.");
  for (std::size_t r = 0; r < kRoutes; ++r) {
    for (std::size_t op = 0; op < kOperationNames.size(); ++op) {
      auto snapshot = review_duration_[r][op]->snapshot();
      if (snapshot.count() == 0) continue;
      out.histogram(
          "jobset_webhook_review_duration_seconds",
          Labels{{"webhook", webhook(r)}, {"operation", std::string(kOperationNames[op])}},
          snapshot);
    }
  }
  out.family("jobset_webhook_denied_fields_total", "counter",
             "Field errors in denials, by field path with list indices and map keys as [*]. At "
             "most 200 paths; the rest count as path=\"other\".");
  for (const auto& [path, n] : denied_fields_.snapshot()) {
    out.sample("jobset_webhook_denied_fields_total", Labels{{"path", path}}, n);
  }
  out.family("jobset_webhook_certificate_expiry_timestamp_seconds", "gauge",
             "When the certificate in the file expires (notAfter; for a CA bundle, the earliest), "
             "in seconds since the Unix epoch.");
  {
    std::lock_guard lock(expiry_mutex_);
    for (const auto& [file, t] : expiry_) {
      out.sample("jobset_webhook_certificate_expiry_timestamp_seconds", Labels{{"file", file}}, t);
    }
  }
  write_memory_metrics(out);
  out.family("jobset_webhook_build_info", "gauge", "The version of jobset-webhook; always 1.");
  out.sample("jobset_webhook_build_info", Labels{{"version", JOBSET_WEBHOOK_VERSION}},
             std::uint64_t{1});
  metrics::write_process_metrics(out, metrics::read_process_stats());
  return out.text();
}

}  // namespace jobset_webhook::server

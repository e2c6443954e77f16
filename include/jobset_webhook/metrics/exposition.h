#pragma once

// The Prometheus text exposition format, version 0.0.4, written one family at a time:
//   # HELP certwatcher_read_certificate_total Total number of certificate reads
//   # TYPE certwatcher_read_certificate_total counter
//   certwatcher_read_certificate_total 3
//   jobset_webhook_denied_fields_total{path="spec.replicatedJobs[*].replicas"} 1
// Label values escape backslash, double quote and newline; HELP text escapes backslash and
// newline. Values are integers as integers, other numbers in their shortest round-trip form,
// and +Inf, -Inf, NaN as the format spells them.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jobset_webhook::metrics {

inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

// name="value" pairs, in the order written.
using Labels = std::vector<std::pair<std::string_view, std::string>>;

// What a histogram holds at one moment: cumulative counts per upper bound, then the +Inf bucket
// (which equals count), and the sum of the observed values.
struct HistogramSnapshot {
  std::vector<double> bounds;          // ascending
  std::vector<std::uint64_t> buckets;  // cumulative, bounds.size() + 1 entries, last is +Inf
  double sum = 0;
  std::uint64_t count() const { return buckets.empty() ? 0 : buckets.back(); }
};

std::string escape_label_value(std::string_view value);  // \ " newline -> \\ \" \n
std::string escape_help(std::string_view help);          // \ newline -> \\ \n
std::string format_value(double value);                  // 3, 0.005, +Inf, NaN
std::string format_value(std::uint64_t value);

class Exposition {
 public:
  // The # HELP and # TYPE lines that start a family; type is counter, gauge or histogram.
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, const Labels& labels, double value);
  void sample(std::string_view name, const Labels& labels, std::uint64_t value);
  void sample(std::string_view name, const Labels& labels, std::int64_t value);
  // name_bucket{...,le="<bound>"} for every bound and +Inf, then name_sum and name_count.
  void histogram(std::string_view name, const Labels& labels, const HistogramSnapshot& h);

  const std::string& text() const { return text_; }

 private:
  void line(std::string_view name, const Labels& labels, std::string_view value);
  std::string text_;
};

}  // namespace jobset_webhook::metrics

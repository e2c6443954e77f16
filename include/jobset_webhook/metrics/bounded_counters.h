#pragma once

// Counters keyed by one label value, for values that come from requests (the fields a denial
// names), updated from many threads without a lock. At most `capacity` distinct values get a
// series of their own; every other value counts under `overflow_value`, so a client sending
// endless distinct values cannot grow the table or the scrape.
//
// Why lock-free: the counters are bumped on the request path, and a mutex there would make every
// denial wait for every other one and for the scrape. The table is open addressing over twice
// `capacity` slots; a slot, once claimed by a value, keeps it for the life of the process (no
// removal, so no ABA), and its value is published with a release store that readers acquire.
// Claiming takes only a compare-and-swap; a thread that finds a slot being claimed waits for the
// copy of one string to finish.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jobset_webhook::metrics {

class BoundedCounters {
 public:
  BoundedCounters(std::size_t capacity, std::string overflow_value);
  BoundedCounters(const BoundedCounters&) = delete;
  BoundedCounters& operator=(const BoundedCounters&) = delete;

  void increment(std::string_view value);

  // Every value with its count, sorted by value; the overflow value last, when it counted any.
  std::vector<std::pair<std::string, std::uint64_t>> snapshot() const;

 private:
  enum State : int { kEmpty, kClaiming, kPublished, kUnusable };
  struct Slot {
    std::atomic<int> state{kEmpty};
    std::string value;  // written once, before state becomes kPublished
    std::atomic<std::uint64_t> count{0};
  };

  const std::size_t capacity_;
  const std::size_t slots_size_;
  const std::string overflow_value_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<std::size_t> used_{0};
  std::atomic<std::uint64_t> overflow_{0};
};

}  // namespace jobset_webhook::metrics

#include "jobset_webhook/metrics/bounded_counters.h"

#include <algorithm>
#include <functional>
#include <thread>

namespace jobset_webhook::metrics {

BoundedCounters::BoundedCounters(std::size_t capacity, std::string overflow_value)
    : capacity_(capacity),
      slots_size_(2 * capacity + 1),
      overflow_value_(std::move(overflow_value)),
      slots_(std::make_unique<Slot[]>(slots_size_)) {}

void BoundedCounters::increment(std::string_view value) {
  const std::size_t start = std::hash<std::string_view>{}(value) % slots_size_;
  for (std::size_t probe = 0; probe < slots_size_; ++probe) {
    Slot& slot = slots_[(start + probe) % slots_size_];
    int state = slot.state.load(std::memory_order_acquire);
    if (state == kEmpty) {
      // Linear probing without removal: an empty slot ends the search, so the value is new.
      if (used_.fetch_add(1, std::memory_order_relaxed) >= capacity_) {
        used_.fetch_sub(1, std::memory_order_relaxed);
        break;
      }
      if (slot.state.compare_exchange_strong(state, kClaiming, std::memory_order_acquire)) {
        try {
          slot.value.assign(value);
        } catch (...) {
          slot.state.store(kUnusable, std::memory_order_release);
          break;
        }
        slot.count.fetch_add(1, std::memory_order_relaxed);
        slot.state.store(kPublished, std::memory_order_release);
        return;
      }
      used_.fetch_sub(1, std::memory_order_relaxed);
      // Another thread claimed this slot first, perhaps for the same value: look again.
    }
    while (state == kClaiming) {
      std::this_thread::yield();
      state = slot.state.load(std::memory_order_acquire);
    }
    if (state == kPublished && slot.value == value) {
      slot.count.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  overflow_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::pair<std::string, std::uint64_t>> BoundedCounters::snapshot() const {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (std::size_t i = 0; i < slots_size_; ++i) {
    const Slot& slot = slots_[i];
    if (slot.state.load(std::memory_order_acquire) != kPublished) continue;
    out.emplace_back(slot.value, slot.count.load(std::memory_order_relaxed));
  }
  std::sort(out.begin(), out.end());
  if (const auto n = overflow_.load(std::memory_order_relaxed); n > 0)
    out.emplace_back(overflow_value_, n);
  return out;
}

}  // namespace jobset_webhook::metrics

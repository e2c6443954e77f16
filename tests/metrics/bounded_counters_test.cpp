#include "jobset_webhook/metrics/bounded_counters.h"

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

namespace m = jobset_webhook::metrics;
using Counts = std::vector<std::pair<std::string, std::uint64_t>>;

TEST_CASE("Bounded counters count each value, sorted, up to their capacity",
          "[metrics][bounded_counters]") {
  m::BoundedCounters counters(3, "other");
  CHECK(counters.snapshot().empty());
  for (const char* v : {"b", "a", "b", "c", "d", "e", "a", "d"}) counters.increment(v);
  CHECK(counters.snapshot() == Counts{{"a", 2}, {"b", 2}, {"c", 1}, {"other", 3}});
}

TEST_CASE("Bounded counters stay bounded and exact under concurrent distinct values",
          "[metrics][bounded_counters][concurrency]") {
  constexpr std::size_t kThreads = 8, kPerThread = 2000, kCapacity = 50;
  m::BoundedCounters counters(kCapacity, "other");
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&counters, t] {
      for (std::size_t i = 0; i < kPerThread; ++i) {
        // Half shared values (all threads race to create them), half distinct per thread.
        counters.increment(i % 2 == 0 ? "shared-" + std::to_string(i % 20)
                                      : "t" + std::to_string(t) + "-" + std::to_string(i));
      }
    });
  }
  for (auto& th : threads) th.join();
  const auto snapshot = counters.snapshot();
  CHECK(snapshot.size() <= kCapacity + 1);
  std::uint64_t total = 0;
  for (const auto& [value, n] : snapshot) total += n;
  CHECK(total == kThreads * kPerThread);
  for (std::size_t i = 0; i + 1 < snapshot.size(); ++i)
    CHECK(snapshot[i].first != snapshot[i + 1].first);
}

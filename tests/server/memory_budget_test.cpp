#include "server/memory_budget.h"

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

using jobset_webhook::server::MemoryBudget;
using Outcome = MemoryBudget::Outcome;
using namespace std::chrono_literals;

namespace {

MemoryBudget::Clock::time_point in(std::chrono::milliseconds d) {
  return MemoryBudget::Clock::now() + d;
}

}  // namespace

TEST_CASE("Bytes are reserved while they fit and given back when the reservation ends",
          "[server][memory_budget]") {
  MemoryBudget budget(100);
  {
    auto a = budget.reserve(60, in(0ms));
    CHECK(a.ok());
    CHECK(budget.in_use() == 60);
    auto b = budget.reserve(40, in(0ms));
    CHECK(b.ok());
    CHECK(budget.in_use() == 100);
    auto moved = std::move(b);
    CHECK(budget.in_use() == 100);
    moved.release();
    CHECK(budget.in_use() == 60);
    auto empty = budget.reserve(0, in(0ms));
    CHECK(empty.ok());
  }
  CHECK(budget.in_use() == 0);
  CHECK(budget.waited() == 0);
}

TEST_CASE("A body larger than the whole budget is refused at once, without waiting",
          "[server][memory_budget]") {
  MemoryBudget budget(100);
  const auto started = MemoryBudget::Clock::now();
  auto r = budget.reserve(101, in(10s));
  CHECK(r.outcome() == Outcome::kTooLarge);
  CHECK(MemoryBudget::Clock::now() - started < 5s);
  CHECK(budget.in_use() == 0);
  CHECK(budget.too_large() == 1);
  CHECK(budget.waited() == 0);
}

TEST_CASE("A reservation without room waits until its deadline, then gives up holding nothing",
          "[server][memory_budget]") {
  MemoryBudget budget(100);
  auto held = budget.reserve(80, in(0ms));
  REQUIRE(held.ok());
  const auto started = MemoryBudget::Clock::now();
  auto r = budget.reserve(30, in(50ms));
  CHECK(r.outcome() == Outcome::kTimedOut);
  CHECK(MemoryBudget::Clock::now() - started >= 50ms);
  CHECK(budget.in_use() == 80);
  CHECK(budget.waited() == 1);
  CHECK(budget.timed_out() == 1);
}

TEST_CASE("A waiting reservation gets its bytes as soon as a release makes room",
          "[server][memory_budget][concurrency]") {
  MemoryBudget budget(100);
  auto held = budget.reserve(80, in(0ms));
  REQUIRE(held.ok());
  auto waiter = std::async(std::launch::async, [&] { return budget.reserve(30, in(30s)); });
  while (budget.waited() == 0) std::this_thread::sleep_for(1ms);
  held.release();
  auto r = waiter.get();
  CHECK(r.ok());
  CHECK(budget.in_use() == 30);
  CHECK(budget.timed_out() == 0);
}

TEST_CASE("Many threads reserving and releasing never exceed the budget nor lose a byte",
          "[server][memory_budget][concurrency]") {
  constexpr std::size_t kLimit = 1000;
  MemoryBudget budget(kLimit);
  std::atomic<std::size_t> held{0}, most{0};
  std::atomic<int> reserved{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::size_t bytes = 100 + static_cast<std::size_t>((t * 37 + i * 11) % 300);
        auto r = budget.reserve(bytes, in(30s));
        if (!r.ok()) continue;
        ++reserved;
        const std::size_t now = held += bytes;
        for (std::size_t m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
        }
        held -= bytes;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(reserved == 8 * 2000);
  CHECK(most.load() <= kLimit);
  CHECK(budget.in_use() == 0);
  CHECK(budget.timed_out() == 0);
}

TEST_CASE("The last eighth of the budget is kept for small bodies", "[server][memory_budget]") {
  constexpr std::size_t kMiB = 1 << 20;
  MemoryBudget budget(8 * kMiB);
  CHECK(budget.ceiling(MemoryBudget::kSmallBodyBytes) == 8 * kMiB);
  CHECK(budget.ceiling(MemoryBudget::kSmallBodyBytes + 1) == 7 * kMiB);
  CHECK(budget.reserve(7 * kMiB + 1, in(10s)).outcome() == Outcome::kTooLarge);
  auto large = budget.reserve(7 * kMiB, in(0ms));
  REQUIRE(large.ok());
  CHECK(budget.reserve(MemoryBudget::kSmallBodyBytes + 1, in(10ms)).outcome() ==
        Outcome::kTimedOut);
  std::vector<MemoryBudget::Reservation> small;
  for (int i = 0; i < 16; ++i) {
    small.push_back(budget.reserve(MemoryBudget::kSmallBodyBytes, in(0ms)));
    CHECK(small.back().ok());
  }
  CHECK(budget.in_use() == 8 * kMiB);
  CHECK(budget.reserve(1, in(10ms)).outcome() == Outcome::kTimedOut);
}

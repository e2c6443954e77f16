#include "controller/work_queue.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

using namespace jobset_webhook::controller;
using namespace std::chrono_literals;

TEST_CASE("A key waits once however often it is added, in the order first added",
          "[controller][work_queue]") {
  std::atomic<std::int64_t> depth{0};
  WorkQueue q(depth);
  q.add("ns/a");
  q.add("ns/b");
  q.add("ns/a");
  CHECK(depth == 2);
  CHECK(q.get() == std::optional<std::string>("ns/a"));
  CHECK(q.get() == std::optional<std::string>("ns/b"));
  CHECK(depth == 0);
}

TEST_CASE("A key added while it is worked on comes back after done(), never to two workers",
          "[controller][work_queue]") {
  std::atomic<std::int64_t> depth{0};
  WorkQueue q(depth);
  q.add("ns/a");
  REQUIRE(q.get() == std::optional<std::string>("ns/a"));
  q.add("ns/a");  // an event during the reconcile
  q.add("ns/b");
  CHECK(q.get() == std::optional<std::string>("ns/b"));  // not ns/a: it is being worked on
  q.done("ns/b");
  q.done("ns/a");
  CHECK(q.get() == std::optional<std::string>("ns/a"));
}

TEST_CASE("A key added after a delay is handed out once the delay has passed",
          "[controller][work_queue]") {
  std::atomic<std::int64_t> depth{0};
  WorkQueue q(depth);
  const auto start = std::chrono::steady_clock::now();
  q.add_after("ns/a", 30ms);
  q.add("ns/b");
  CHECK(q.get() == std::optional<std::string>("ns/b"));
  CHECK(q.get() == std::optional<std::string>("ns/a"));
  CHECK(std::chrono::steady_clock::now() - start >= 30ms);
}

TEST_CASE("shut_down wakes a waiting worker with nothing", "[controller][work_queue]") {
  std::atomic<std::int64_t> depth{0};
  WorkQueue q(depth);
  std::optional<std::string> got = "unset";
  std::thread worker([&] { got = q.get(); });
  std::this_thread::sleep_for(10ms);
  q.shut_down();
  worker.join();
  CHECK_FALSE(got.has_value());
}

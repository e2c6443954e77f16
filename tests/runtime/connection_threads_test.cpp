#include "jobset_webhook/runtime/connection_threads.h"

#include <atomic>
#include <future>

#include <catch2/catch.hpp>

using jobset_webhook::runtime::ConnectionThreads;
using namespace std::chrono_literals;

TEST_CASE("A task runs while many earlier tasks hold their threads",
          "[server][connection_threads][concurrency]") {
  ConnectionThreads threads(200);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> started{0};
  for (int i = 0; i < 100; ++i) {
    threads.enqueue([&, released] {
      ++started;
      released.wait();  // an idle keep-alive connection, holding its thread
    });
  }
  std::promise<void> ran;
  threads.enqueue([&] { ran.set_value(); });
  // Only guards against a hang: the task needs no earlier one to finish.
  CHECK(ran.get_future().wait_for(30s) == std::future_status::ready);
  CHECK(threads.threads() == 101);
  release.set_value();
  threads.shutdown();
  CHECK(started == 100);
}

TEST_CASE("Past the thread limit tasks wait for a free thread, and shutdown runs them all",
          "[server][connection_threads][concurrency]") {
  ConnectionThreads threads(2);
  std::atomic<int> done{0};
  for (int i = 0; i < 20; ++i) {
    threads.enqueue([&] {
      std::this_thread::sleep_for(1ms);
      ++done;
    });
  }
  CHECK(threads.threads() <= 2);
  threads.shutdown();
  CHECK(done == 20);
}

TEST_CASE("Threads idle past the retirement time exit, down to a few kept warm",
          "[server][connection_threads][concurrency]") {
  ConnectionThreads threads(50, 20ms);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  for (int i = 0; i < 10; ++i) threads.enqueue([released] { released.wait(); });
  CHECK(threads.threads() == 10);
  release.set_value();
  for (int i = 0; i < 1000 && threads.threads() > 4; ++i) std::this_thread::sleep_for(5ms);
  CHECK(threads.threads() == 4);
  std::promise<void> ran;
  threads.enqueue([&] { ran.set_value(); });
  CHECK(ran.get_future().wait_for(30s) == std::future_status::ready);
}

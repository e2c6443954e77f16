#pragma once

// List-and-watch of one collection, kept going: list, then watch from the list's
// resourceVersion (with bookmarks), watch again from the last resourceVersion seen when the
// server ends the stream, list again after 410 Gone, and back off (doubling, with jitter, up to
// a ceiling) after any other failure. It hands what it sees to the caller; it keeps no cache and
// has no reconcile logic.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "jobset_webhook/kube/api.h"

namespace jobset_webhook::kube {

struct Backoff {
  std::chrono::milliseconds initial{200};
  std::chrono::milliseconds max{30000};
  // The n-th consecutive failure (from 0) waits initial * 2^n, capped at max, then scaled by a
  // factor in [0.75, 1.25) drawn from `jitter` (0..1).
  std::chrono::milliseconds delay(int failures, double jitter) const;
};

struct ReflectorHandlers {
  // Called after every successful (re)list with every item: the caller replaces its cache.
  std::function<void(const std::vector<Json>& items)> replace;
  // ADDED, MODIFIED and DELETED events, in order (bookmarks only move the resourceVersion).
  std::function<void(const WatchEvent& event)> event;
  // Any failure, for logs and metrics; the reflector itself goes on.
  std::function<void(const std::string& what, const Failure& failure)> error;
};

class Reflector {
 public:
  // path: a collection, e.g. "/apis/batch/v1/jobs" or "/apis/batch/v1/namespaces/ns/jobs".
  Reflector(Api& client, std::string path, std::string label_selector, ReflectorHandlers handlers,
            Backoff backoff = {}, int watch_timeout_seconds = 300);

  // Lists and watches until stop() (from another thread). Blocks.
  void run();
  // Ends run(): wakes a back-off and, through Client::cancel(), a watch in flight.
  void stop();

  // For tests and metrics.
  std::uint64_t lists() const { return lists_; }
  std::uint64_t watches() const { return watches_; }
  bool synced() const { return lists_ > 0; }

 private:
  // Sleeps d unless stop() comes first; false when stopped.
  bool wait(std::chrono::milliseconds d);

  Api& client_;
  const std::string path_;
  const std::string label_selector_;
  const ReflectorHandlers handlers_;
  const Backoff backoff_;
  const int watch_timeout_seconds_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> lists_{0};
  std::atomic<std::uint64_t> watches_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace jobset_webhook::kube

#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace jobset_webhook::controller {

// A work queue of JobSet keys, as client-go's: a key waits once however often it is added, and
// a key added while it is being worked on is handed out again after done(), never to two
// workers at once. Keys may also come back after a delay.
class WorkQueue {
 public:
  explicit WorkQueue(std::atomic<std::int64_t>& depth) : depth_(depth) {}

  void add(const std::string& key) {
    {
      std::lock_guard lock(mu_);
      add_locked(key);
    }
    cv_.notify_all();
  }

  void add_after(const std::string& key, std::chrono::milliseconds delay) {
    {
      std::lock_guard lock(mu_);
      delayed_.emplace(std::chrono::steady_clock::now() + delay, key);
    }
    cv_.notify_all();
  }

  // The next key, or nullopt once shut down.
  std::optional<std::string> get() {
    std::unique_lock lock(mu_);
    for (;;) {
      if (shutdown_) return std::nullopt;
      const auto now = std::chrono::steady_clock::now();
      while (!delayed_.empty() && delayed_.begin()->first <= now) {
        add_locked(delayed_.begin()->second);
        delayed_.erase(delayed_.begin());
      }
      if (!queue_.empty()) {
        std::string key = std::move(queue_.front());
        queue_.pop_front();
        queued_.erase(key);
        processing_.insert(key);
        depth_ = static_cast<std::int64_t>(queue_.size());
        return key;
      }
      if (delayed_.empty()) {
        cv_.wait(lock);
      } else {
        cv_.wait_until(lock, delayed_.begin()->first);
      }
    }
  }

  void done(const std::string& key) {
    {
      std::lock_guard lock(mu_);
      processing_.erase(key);
      if (dirty_.erase(key) > 0) add_locked(key);
    }
    cv_.notify_all();
  }

  void shut_down() {
    {
      std::lock_guard lock(mu_);
      shutdown_ = true;
    }
    cv_.notify_all();
  }

 private:
  void add_locked(const std::string& key) {
    if (processing_.count(key) > 0) {
      dirty_.insert(key);
      return;
    }
    if (queued_.insert(key).second) queue_.push_back(key);
    depth_ = static_cast<std::int64_t>(queue_.size());
  }

  std::atomic<std::int64_t>& depth_;  // the queue_depth gauge
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::set<std::string> queued_;
  std::set<std::string> processing_;
  std::set<std::string> dirty_;
  std::multimap<std::chrono::steady_clock::time_point, std::string> delayed_;
  bool shutdown_ = false;
};

}  // namespace jobset_webhook::controller

#pragma once

// cpp-httplib's task queue with one thread per open connection. httplib serves a connection on one
// thread for its whole life, idle keep-alive time included, so a fixed pool of N threads lets N
// idle connections (the kube-apiserver keeps up to 25 per server) starve every new one. Here a
// connection that finds no idle thread starts one, up to max_threads; threads idle longer than
// retire_after exit, down to a few kept warm. With max_threads busy, a new connection waits, and
// on_full is called (on the enqueueing thread, without the lock), so that the server can close an
// idle connection to make room.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace jobset_webhook::runtime {

class ConnectionThreads final : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(std::size_t max_threads,
                             std::chrono::milliseconds retire_after = std::chrono::seconds(60),
                             std::function<void()> on_full = {});
  ~ConnectionThreads() override;

  // Runs fn on an idle thread, a new one, or (with max_threads busy) the first that frees up.
  void enqueue(std::function<void()> fn) override;
  // Runs every task already queued, then joins all threads. enqueue must not be called after.
  void shutdown() override;

  std::size_t threads() const;  // alive now
  std::size_t waiting() const;  // tasks queued that no thread is free for

 private:
  void work();
  void join_retired(std::unique_lock<std::mutex>& lock);

  const std::size_t max_threads_;
  const std::chrono::milliseconds retire_after_;
  const std::function<void()> on_full_;
  mutable std::mutex mutex_;
  std::condition_variable task_ready_;
  std::deque<std::function<void()>> tasks_;
  std::map<std::thread::id, std::thread> threads_;
  std::vector<std::thread> retired_;  // exited on their own, not yet joined
  std::size_t idle_ = 0;
  bool shutting_down_ = false;
};

}  // namespace jobset_webhook::runtime

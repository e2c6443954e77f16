#include "jobset_webhook/runtime/connection_threads.h"

#include <algorithm>

namespace jobset_webhook::runtime {
namespace {

// Threads kept alive however long they idle, so a quiet server answers without starting one.
constexpr std::size_t kWarmThreads = 4;

}  // namespace

ConnectionThreads::ConnectionThreads(std::size_t max_threads,
                                     std::chrono::milliseconds retire_after,
                                     std::function<void()> on_full)
    : max_threads_(std::max<std::size_t>(max_threads, 1)),
      retire_after_(retire_after),
      on_full_(std::move(on_full)) {}

ConnectionThreads::~ConnectionThreads() { shutdown(); }

void ConnectionThreads::enqueue(std::function<void()> fn) {
  std::unique_lock lock(mutex_);
  join_retired(lock);
  tasks_.push_back(std::move(fn));
  // Every queued task needs its own idle thread; idle ones already woken for earlier tasks do not
  // count twice.
  bool full = false;
  if (tasks_.size() > idle_ && threads_.size() < max_threads_) {
    std::thread t([this] { work(); });
    const auto id = t.get_id();
    threads_.emplace(id, std::move(t));
  } else {
    task_ready_.notify_one();
    full = tasks_.size() > idle_;
  }
  lock.unlock();
  if (full && on_full_) on_full_();
}

std::size_t ConnectionThreads::waiting() const {
  std::lock_guard lock(mutex_);
  return tasks_.size() > idle_ ? tasks_.size() - idle_ : 0;
}

void ConnectionThreads::shutdown() {
  std::vector<std::thread> all;
  {
    std::unique_lock lock(mutex_);
    shutting_down_ = true;
    task_ready_.notify_all();
    for (auto& [id, t] : threads_) all.push_back(std::move(t));
    threads_.clear();
    for (auto& t : retired_) all.push_back(std::move(t));
    retired_.clear();
  }
  for (auto& t : all) {
    if (t.joinable()) t.join();
  }
}

std::size_t ConnectionThreads::threads() const {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

void ConnectionThreads::join_retired(std::unique_lock<std::mutex>& lock) {
  if (retired_.empty()) return;
  auto done = std::move(retired_);
  retired_.clear();
  // A retired thread has left work() and touches nothing of ours any more: joining it without the
  // lock only waits for its exit.
  lock.unlock();
  for (auto& t : done) t.join();
  lock.lock();
}

void ConnectionThreads::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    const bool woken = task_ready_.wait_for(lock, retire_after_,
                                            [this] { return !tasks_.empty() || shutting_down_; });
    --idle_;
    if (!tasks_.empty()) {
      auto task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
      continue;
    }
    if (shutting_down_) return;  // shutdown() joins this thread
    if (!woken && threads_.size() > kWarmThreads) {
      const auto self = threads_.find(std::this_thread::get_id());
      if (self != threads_.end()) {
        retired_.push_back(std::move(self->second));
        threads_.erase(self);
        return;
      }
    }
  }
}

}  // namespace jobset_webhook::runtime

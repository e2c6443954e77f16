#include "memory_budget.h"

#include <utility>

namespace jobset_webhook::server {

MemoryBudget::Reservation::Reservation(Reservation&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      outcome_(other.outcome_) {}

MemoryBudget::Reservation& MemoryBudget::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    outcome_ = other.outcome_;
  }
  return *this;
}

void MemoryBudget::Reservation::release() {
  if (budget_ != nullptr) std::exchange(budget_, nullptr)->give_back(bytes_);
}

// Sequentially consistent, like waiters_ below: a waiter counts itself, then looks for room; a
// releaser gives room back, then looks for waiters. In the single order of these four operations
// at least one of the two sees the other, so a waiter never sleeps through the release it needed.
bool MemoryBudget::try_take(std::size_t bytes) {
  const std::size_t ceiling = this->ceiling(bytes);
  std::size_t used = in_use_.load();
  while (used <= ceiling && bytes <= ceiling - used) {
    if (in_use_.compare_exchange_weak(used, used + bytes)) return true;
  }
  return false;
}

void MemoryBudget::give_back(std::size_t bytes) {
  in_use_.fetch_sub(bytes);
  if (waiters_.load() == 0) return;
  // Taken so that a waiter between its last look for room and its sleep cannot miss the wake-up.
  std::lock_guard lock(mutex_);
  room_.notify_all();
}

bool MemoryBudget::could_fit(std::size_t bytes) {
  if (bytes <= ceiling(bytes)) return true;
  too_large_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

MemoryBudget::Reservation MemoryBudget::reserve(std::size_t bytes, Clock::time_point deadline) {
  if (bytes == 0) return Reservation(nullptr, 0, Outcome::kReserved);
  if (bytes > ceiling(bytes)) {
    too_large_.fetch_add(1, std::memory_order_relaxed);
    return Reservation(nullptr, 0, Outcome::kTooLarge);
  }
  if (try_take(bytes)) return Reservation(this, bytes, Outcome::kReserved);
  waited_.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock lock(mutex_);
  waiters_.fetch_add(1);
  const bool room = room_.wait_until(lock, deadline, [&] { return try_take(bytes); });
  waiters_.fetch_sub(1);
  if (!room) {
    timed_out_.fetch_add(1, std::memory_order_relaxed);
    return Reservation(nullptr, 0, Outcome::kTimedOut);
  }
  return Reservation(this, bytes, Outcome::kReserved);
}

}  // namespace jobset_webhook::server

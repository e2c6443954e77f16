#pragma once

// A budget for request bodies held in memory at once, so that the memory of `serve` is bounded by
// design rather than by the number of clients: every body the server reads is first reserved
// here, by its announced Content-Length, and the reservation is held until its response has been
// written and the request's buffers freed. docs/operations.md ("Memory") sizes the budget against
// the Pod's memory limit.
//
//   MemoryBudget budget(24 << 20);
//   auto r = budget.reserve(content_length, deadline);   // waits for room, up to deadline
//   if (r.outcome() == MemoryBudget::Outcome::kTooLarge) ...   // 413: never fits
//   if (r.outcome() == MemoryBudget::Outcome::kTimedOut) ...   // no room in time
//   ... read and judge the body; r's destructor gives the bytes back.
//
// Small bodies (kSmallBodyBytes and less: ordinary reviews) may use the whole budget; larger ones
// all but its last eighth, which is kept for the small ones: a burst of large bodies filling the
// budget cannot make an ordinary review wait behind it. A larger body that could never fit (more
// than seven eighths of the budget) is refused at once.
//
// When there is room, reserve() is one compare-and-swap on an atomic: no lock. Only a request that
// finds no room takes the mutex, to wait on a condition variable; a release wakes the waiters
// only when there are some. Waiters are not queued in order: each retries when bytes come back,
// and a large body can wait behind smaller ones that keep fitting, never past its deadline.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace jobset_webhook::server {

class MemoryBudget {
 public:
  using Clock = std::chrono::steady_clock;

  static constexpr std::size_t kSmallBodyBytes = 64 << 10;

  explicit MemoryBudget(std::size_t limit_bytes)
      : limit_(limit_bytes), large_limit_(limit_bytes - limit_bytes / 8) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  enum class Outcome { kReserved, kTooLarge, kTimedOut };

  // Holds reserved bytes until destroyed (or release()d); holds none unless outcome() is
  // kReserved. Movable, so that a connection can keep it past the handler that reserved it.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept;
    Reservation& operator=(Reservation&& other) noexcept;
    ~Reservation() { release(); }

    Outcome outcome() const { return outcome_; }
    bool ok() const { return outcome_ == Outcome::kReserved; }
    std::size_t bytes() const { return bytes_; }
    void release();

   private:
    friend class MemoryBudget;
    Reservation(MemoryBudget* budget, std::size_t bytes, Outcome outcome)
        : budget_(budget), bytes_(bytes), outcome_(outcome) {}
    MemoryBudget* budget_ = nullptr;  // non-null while bytes are held
    std::size_t bytes_ = 0;
    Outcome outcome_ = Outcome::kTimedOut;
  };

  // bytes more than ceiling(bytes): kTooLarge at once. Otherwise reserved as soon as the bytes in
  // use leave room for them under that ceiling, or kTimedOut once deadline passes without room.
  // Zero bytes always fit.
  [[nodiscard]] Reservation reserve(std::size_t bytes, Clock::time_point deadline);
  // False, counted as too_large(), when bytes could never be reserved: for a refusal from a
  // request's head, before its body is waited for.
  bool could_fit(std::size_t bytes);

  std::size_t limit() const { return limit_; }
  // What the bytes in use may reach with a body of this size reserved: limit() for a small body,
  // seven eighths of it for a larger one.
  std::size_t ceiling(std::size_t bytes) const {
    return bytes <= kSmallBodyBytes ? limit_ : large_limit_;
  }
  std::size_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  // Counts since start: reservations that had to wait (whatever their outcome), refusals because a
  // body is larger than the whole budget, and waits that reached their deadline.
  std::uint64_t waited() const { return waited_.load(std::memory_order_relaxed); }
  std::uint64_t too_large() const { return too_large_.load(std::memory_order_relaxed); }
  std::uint64_t timed_out() const { return timed_out_.load(std::memory_order_relaxed); }

 private:
  bool try_take(std::size_t bytes);
  void give_back(std::size_t bytes);

  const std::size_t limit_;
  const std::size_t large_limit_;
  std::atomic<std::size_t> in_use_{0};
  std::atomic<std::size_t> waiters_{0};
  std::mutex mutex_;
  std::condition_variable room_;
  std::atomic<std::uint64_t> waited_{0};
  std::atomic<std::uint64_t> too_large_{0};
  std::atomic<std::uint64_t> timed_out_{0};
};

}  // namespace jobset_webhook::server

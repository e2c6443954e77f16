#include "parser_pool.h"

#include <algorithm>
#include <thread>

namespace jobset_webhook::admission {

void ParserPool::keep_large(std::size_t count, std::size_t max_capacity) {
  std::vector<std::unique_ptr<simdjson::dom::parser>> dropped;  // freed after the lock
  const std::lock_guard lock(mutex_);
  large_limit_ = count;
  large_max_capacity_ = max_capacity;
  dropped.swap(idle_large_);
}

ParserPool::Lease ParserPool::borrow(std::size_t body_size) {
  const bool large = body_size > kLargeBodyBytes;
  std::unique_lock lock(mutex_);
  const bool turn = large && large_limit_ > 0;
  if (turn) {
    const std::size_t turns = std::max(cores_, large_limit_);
    large_turn_free_.wait(lock, [&] { return large_turns_taken_ < turns; });
    ++large_turns_taken_;
  }
  auto& idle = large ? idle_large_ : idle_;
  if (!idle.empty()) {
    auto parser = std::move(idle.back());
    idle.pop_back();
    return Lease(*this, std::move(parser), turn);
  }
  lock.unlock();
  return Lease(*this, std::make_unique<simdjson::dom::parser>(), turn);
}

void ParserPool::give_back(std::unique_ptr<simdjson::dom::parser> parser, bool large_turn) {
  // A parser holds over ten times the capacity it has in buffers: kept after a 7 MiB body, one
  // would hold some 70 MiB. Those the pool does not keep are freed after the lock is released.
  const std::size_t capacity = parser->capacity();
  {
    const std::lock_guard lock(mutex_);
    if (capacity <= kLargeBodyBytes) {
      if (idle_.size() < idle_limit_) idle_.push_back(std::move(parser));
    } else if (capacity <= large_max_capacity_ && idle_large_.size() < large_limit_) {
      idle_large_.push_back(std::move(parser));
    }
    if (large_turn) --large_turns_taken_;
  }
  if (large_turn) large_turn_free_.notify_one();
}

std::size_t ParserPool::idle() const {
  const std::lock_guard lock(mutex_);
  return idle_.size();
}

std::size_t ParserPool::idle_large() const {
  const std::lock_guard lock(mutex_);
  return idle_large_.size();
}

ParserPool& parser_pool() {
  // Never destroyed: a connection thread still finishing a review while the process exits must
  // not find the pool gone.
  static ParserPool& pool =
      *new ParserPool(std::max<std::size_t>(4, 2 * std::thread::hardware_concurrency()),
                      std::max(1U, std::thread::hardware_concurrency()));
  return pool;
}

}  // namespace jobset_webhook::admission

#include "parser_pool.h"

#include <algorithm>
#include <thread>

namespace jobset_webhook::admission {

ParserPool::Lease ParserPool::borrow() {
  {
    const std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto parser = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(parser));
    }
  }
  return Lease(*this, std::make_unique<simdjson::dom::parser>());
}

void ParserPool::give_back(std::unique_ptr<simdjson::dom::parser> parser, std::size_t body_size) {
  // Kept after a 7 MiB body, an idle parser would hold some 70 MiB. The next parse of such a body
  // pays for the allocation, which is small next to parsing it.
  if (body_size > kLargeBodyBytes) return;  // freed here, outside the lock
  const std::lock_guard lock(mutex_);
  if (idle_.size() < idle_limit_) idle_.push_back(std::move(parser));
}

ParserPool& parser_pool() {
  // Never destroyed: a connection thread still finishing a review while the process exits must
  // not find the pool gone.
  static ParserPool& pool =
      *new ParserPool(std::max<std::size_t>(4, 2 * std::thread::hardware_concurrency()));
  return pool;
}

}  // namespace jobset_webhook::admission

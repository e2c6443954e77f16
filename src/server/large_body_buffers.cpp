#include "large_body_buffers.h"

#include <algorithm>
#include <utility>

#include "jobset_webhook/admission/review.h"

namespace jobset_webhook::server {

bool LargeBodyBuffers::keeps(std::size_t capacity) const {
  return capacity > admission::kLargeBodyBytes &&
         capacity <= max_body_bytes_ + admission::kInPlacePadding;
}

std::string LargeBodyBuffers::take(std::size_t capacity) {
  std::string buffer;
  if (keeps(capacity)) {
    // The largest: it fits if any does, and grown once it fits the next.
    const std::lock_guard lock(mutex_);
    const auto best = std::max_element(
        idle_.begin(), idle_.end(),
        [](const std::string& a, const std::string& b) { return a.capacity() < b.capacity(); });
    if (best != idle_.end()) {
      buffer = std::move(*best);
      idle_.erase(best);
    }
  }
  buffer.reserve(capacity);
  return buffer;
}

void LargeBodyBuffers::give_back(std::string buffer) {
  if (!keeps(buffer.capacity())) return;
  buffer.clear();
  const std::lock_guard lock(mutex_);
  if (idle_.size() < count_) idle_.push_back(std::move(buffer));
}

std::size_t LargeBodyBuffers::idle() const {
  const std::lock_guard lock(mutex_);
  return idle_.size();
}

}  // namespace jobset_webhook::server

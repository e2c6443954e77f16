#pragma once

// Buffers for large request bodies, kept between requests.
//
// A body larger than admission::kLargeBodyBytes is read into a block that glibc maps for it alone
// (server::run fixes the mmap threshold there, so that memory goes back after a burst) and unmaps
// when it is freed: every such body faulted in a page for every 4 KiB it wrote, a quarter of the
// page faults of a 1.1 MB review. A few buffers kept here, of bounded size and charged to the
// memory budget like the parsers kept for large bodies (memory_sizing.h), are written again
// instead. Thread-safe.

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace jobset_webhook::server {

class LargeBodyBuffers {
 public:
  // Keeps at most `count` buffers, each for a body of at most `max_body_bytes`.
  LargeBodyBuffers(std::size_t count, std::size_t max_body_bytes)
      : count_(count), max_body_bytes_(max_body_bytes) {}
  LargeBodyBuffers(const LargeBodyBuffers&) = delete;
  LargeBodyBuffers& operator=(const LargeBodyBuffers&) = delete;

  // An empty string with room for `capacity` bytes: a kept buffer when one is idle and the size
  // is one this keeps, else a new one.
  std::string take(std::size_t capacity);
  // The buffer of a body that has been answered: kept when there is room for it, else freed.
  void give_back(std::string buffer);

  std::size_t count() const { return count_; }
  std::size_t idle() const;

 private:
  bool keeps(std::size_t capacity) const;

  const std::size_t count_;
  const std::size_t max_body_bytes_;
  mutable std::mutex mutex_;
  std::vector<std::string> idle_;
};

}  // namespace jobset_webhook::server

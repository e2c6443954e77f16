#include "server/large_body_buffers.h"

#include <catch2/catch.hpp>

#include "jobset_webhook/admission/review.h"

using jobset_webhook::admission::kLargeBodyBytes;
using jobset_webhook::server::LargeBodyBuffers;

TEST_CASE("Buffers of large bodies are kept up to their count and size; others are not",
          "[server][memory]") {
  LargeBodyBuffers buffers(2, 4 * kLargeBodyBytes);
  const std::size_t large = 2 * kLargeBodyBytes;

  auto first = buffers.take(large);
  CHECK(first.empty());
  CHECK(first.capacity() >= large);
  first.assign(large - 1, 'x');
  const char* first_data = first.data();
  auto second = buffers.take(large);
  const char* second_data = second.data();
  auto third = buffers.take(large);
  buffers.give_back(std::move(first));
  buffers.give_back(std::move(second));
  buffers.give_back(std::move(third));
  CHECK(buffers.idle() == 2);  // the third freed

  // A kept buffer comes back empty, its memory reused.
  auto again = buffers.take(large);
  CHECK(again.empty());
  CHECK(again.capacity() >= large);
  const bool reused = again.data() == first_data || again.data() == second_data;
  CHECK(reused);
  CHECK(buffers.idle() == 1);

  // Ordinary bodies and bodies past the size kept never take or leave one.
  auto ordinary = buffers.take(1000);
  CHECK(buffers.idle() == 1);
  buffers.give_back(std::move(ordinary));
  auto huge = buffers.take(8 * kLargeBodyBytes);
  CHECK(huge.capacity() >= 8 * kLargeBodyBytes);
  CHECK(buffers.idle() == 1);
  buffers.give_back(std::move(huge));
  CHECK(buffers.idle() == 1);

  // A kept buffer too small for the body is grown, then fits the next.
  LargeBodyBuffers one(1, 4 * kLargeBodyBytes);
  auto small_large = one.take(kLargeBodyBytes + 1);
  one.give_back(std::move(small_large));
  auto grown = one.take(3 * kLargeBodyBytes);
  CHECK(grown.capacity() >= 3 * kLargeBodyBytes);
  one.give_back(std::move(grown));
  CHECK(one.idle() == 1);
  CHECK(one.take(3 * kLargeBodyBytes).capacity() >= 3 * kLargeBodyBytes);
}

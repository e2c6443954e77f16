#include "admission/parser_pool.h"

#include <chrono>
#include <future>
#include <string>

#include <catch2/catch.hpp>

using jobset_webhook::admission::kLargeBodyBytes;
using jobset_webhook::admission::ParserPool;

namespace {

// Parses a JSON string of `bytes` bytes with the lease's parser, which grows its capacity to it.
void parse_body_of(ParserPool::Lease& lease, std::size_t bytes) {
  std::string body = "\"" + std::string(bytes - 2, 'x') + "\"";
  REQUIRE(lease.parser().parse(body).error() == simdjson::SUCCESS);
}

}  // namespace

TEST_CASE("The pool keeps parsers of ordinary bodies, and of large ones only as keep_large allows",
          "[admission][parser_pool]") {
  ParserPool pool(2, 3);  // three large reviews at once below
  {
    auto small = pool.borrow(1000);
    parse_body_of(small, 1000);
    auto large = pool.borrow(kLargeBodyBytes + 1);
    parse_body_of(large, kLargeBodyBytes + 1);
  }
  // Without keep_large, the large body's parser is freed.
  CHECK(pool.idle() == 1);
  CHECK(pool.idle_large() == 0);

  pool.keep_large(1, 2 * kLargeBodyBytes);
  simdjson::dom::parser* kept = nullptr;
  {
    auto a = pool.borrow(kLargeBodyBytes + 1);
    parse_body_of(a, kLargeBodyBytes + 1);
    kept = &a.parser();
    auto b = pool.borrow(kLargeBodyBytes + 1);
    parse_body_of(b, kLargeBodyBytes + 1);
    // Past its largest capacity: never kept.
    auto c = pool.borrow(3 * kLargeBodyBytes);
    parse_body_of(c, 3 * kLargeBodyBytes);
    CHECK(pool.idle() == 1);  // a large body never takes an ordinary body's parser
  }
  CHECK(pool.idle_large() == 1);  // one of the two that fit; the other freed
  {
    auto again = pool.borrow(kLargeBodyBytes + 100);
    CHECK(pool.idle_large() == 0);
    auto ordinary = pool.borrow(10);
    CHECK(pool.idle() == 0);
    CHECK(&ordinary.parser() != &again.parser());
  }
  (void)kept;

  // Kept by capacity: a parser grown by a large body does not come back as an ordinary one.
  ParserPool fresh(2, 2);
  {
    auto lease = fresh.borrow(10);
    parse_body_of(lease, kLargeBodyBytes + 1);
  }
  CHECK(fresh.idle() == 0);

  // keep_large(0, ...) lets go of those kept.
  pool.keep_large(0, 0);
  CHECK(pool.idle_large() == 0);
}

TEST_CASE("Where large parsers are kept, large reviews take turns, as many as there are cores",
          "[admission][parser_pool][concurrency]") {
  ParserPool pool(2, 1);  // one core
  pool.keep_large(1, 2 * kLargeBodyBytes);
  std::future<bool> second;
  {
    auto first = pool.borrow(kLargeBodyBytes + 1);
    // An ordinary body never waits.
    { auto ordinary = pool.borrow(10); }
    second = std::async(std::launch::async, [&] {
      auto lease = pool.borrow(kLargeBodyBytes + 1);
      return true;
    });
    CHECK(second.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
  }
  REQUIRE(second.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(second.get());

  // Without keep_large, no turns.
  ParserPool unkept(2, 1);
  auto a = unkept.borrow(kLargeBodyBytes + 1);
  auto b = std::async(std::launch::async, [&] { return unkept.borrow(kLargeBodyBytes + 1), true; });
  CHECK(b.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
}

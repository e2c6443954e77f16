#pragma once

// The simdjson parsers that reviews borrow, shared by all threads.
//
// A parser keeps its buffers between documents (tape, strings and structural indexes: over ten
// times the largest body it parsed), which is most of simdjson's speed on repeated parses. One per
// thread, as before, meant one per connection of the server: 32 connections kept 32 sets of
// buffers, each gone cold in the cache by the time its thread ran again. Borrowed from a pool, the
// few parsers that run at once (no more than there are cores) are reused while their buffers are
// still in the cache.
//
// Parsers are kept by their capacity (the largest body they parsed). Those of ordinary bodies
// (kLargeBodyBytes and less) always; those of large bodies only as many as keep_large() allows and
// no larger than it allows: `serve` keeps two, charged to its memory budget, because a parser made
// for every large body is mapped fresh and faults in every page it writes (about 1,200 page faults
// for a 1.1 MB review, most of its cost). Where large parsers are kept, large reviews also take
// turns, as many at once as there are cores (or kept parsers, if more): more at once would only
// share the CPU, and each past the kept parsers would fault in a fresh parser's pages.

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::admission {

class ParserPool {
 public:
  // Keeps at most `idle_limit` parsers of ordinary bodies between reviews; more are made while
  // more reviews run at once and dropped when they come back.
  // `cores`: how many large reviews may run at once where large parsers are kept (at least
  // as many as are kept).
  ParserPool(std::size_t idle_limit, std::size_t cores) : idle_limit_(idle_limit), cores_(cores) {}

  // Keeps at most `count` parsers of large bodies too, each of a capacity of at most
  // `max_capacity` bytes. None unless called.
  void keep_large(std::size_t count, std::size_t max_capacity);

  // A parser for one document, given back to the pool when it goes out of scope.
  class Lease {
   public:
    Lease(ParserPool& pool, std::unique_ptr<simdjson::dom::parser> parser, bool large_turn)
        : pool_(pool), parser_(std::move(parser)), large_turn_(large_turn) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.give_back(std::move(parser_), large_turn_); }

    simdjson::dom::parser& parser() { return *parser_; }

   private:
    ParserPool& pool_;
    std::unique_ptr<simdjson::dom::parser> parser_;
    bool large_turn_;
  };

  // A parser for a body of this size: a kept one of its class, or a new one. For a large body
  // where large parsers are kept, waits for its turn first.
  Lease borrow(std::size_t body_size);

  // Parsers idle in the pool now, ordinary and large.
  std::size_t idle() const;
  std::size_t idle_large() const;

 private:
  void give_back(std::unique_ptr<simdjson::dom::parser> parser, bool large_turn);

  const std::size_t idle_limit_;
  const std::size_t cores_;
  mutable std::mutex mutex_;
  std::condition_variable large_turn_free_;
  std::size_t large_turns_taken_ = 0;
  std::vector<std::unique_ptr<simdjson::dom::parser>> idle_;  // the last given back on top
  std::vector<std::unique_ptr<simdjson::dom::parser>> idle_large_;
  std::size_t large_limit_ = 0;
  std::size_t large_max_capacity_ = 0;
};

// The pool of the process: twice as many idle parsers as there are cores, at least four.
ParserPool& parser_pool();

}  // namespace jobset_webhook::admission

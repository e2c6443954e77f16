#pragma once

// The simdjson parsers that reviews borrow, shared by all threads.
//
// A parser keeps its buffers between documents (tape, strings and structural indexes: over ten
// times the largest body it parsed), which is most of simdjson's speed on repeated parses. One per
// thread, as before, meant one per connection of the server: 32 connections kept 32 sets of
// buffers, each gone cold in the cache by the time its thread ran again. Borrowed from a pool, the
// few parsers that run at once (no more than there are cores) are reused while their buffers are
// still in the cache.

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::admission {

class ParserPool {
 public:
  // Keeps at most `idle_limit` parsers between reviews; more are made while more reviews run at
  // once and dropped when they come back.
  explicit ParserPool(std::size_t idle_limit) : idle_limit_(idle_limit) {}

  // A parser for one document, given back to the pool when it goes out of scope.
  class Lease {
   public:
    Lease(ParserPool& pool, std::unique_ptr<simdjson::dom::parser> parser)
        : pool_(pool), parser_(std::move(parser)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.give_back(std::move(parser_), body_size_); }

    simdjson::dom::parser& parser() { return *parser_; }
    // The size of the body parsed: a parser that read a large body (kLargeBodyBytes) is not kept.
    void parsed(std::size_t body_size) { body_size_ = body_size; }

   private:
    ParserPool& pool_;
    std::unique_ptr<simdjson::dom::parser> parser_;
    std::size_t body_size_ = 0;
  };

  Lease borrow();

 private:
  void give_back(std::unique_ptr<simdjson::dom::parser> parser, std::size_t body_size);

  const std::size_t idle_limit_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<simdjson::dom::parser>> idle_;  // the last given back on top
};

// The pool of the process: twice as many idle parsers as there are cores, at least four.
ParserPool& parser_pool();

}  // namespace jobset_webhook::admission

#pragma once

// How much memory `serve` needs, from its budget for request bodies and its connections: the
// figures measured on the release build (docs/benchmarks.md, "Memory"), named once so that the
// Deployment's memory limit is checked against them (tests/deploy) and docs/operations.md
// ("Memory") can show the arithmetic.

#include <cstddef>

namespace jobset_webhook::server {

inline constexpr std::size_t kMiB = std::size_t{1} << 20;

// The default of --max-inflight-bytes: request bodies held in memory at once.
inline constexpr std::size_t kDefaultMaxInflightBytes = 24 * kMiB;
// The default limit of open connections served at once (ServerOptions::max_connections); past it
// new connections wait, unread, in the accept queue.
inline constexpr std::size_t kDefaultMaxConnections = 1024;

// Resident memory of a started server that has answered ordinary reviews: code, libraries,
// OpenSSL's tables, the metrics, a few warm threads and the parsers kept for small bodies.
inline constexpr std::size_t kBaselineBytes = 16 * kMiB;
// What one open connection costs while no body is being read: its thread's touched stack, the
// TLS session and the stream's buffers, released while idle (docs/benchmarks.md measures it).
inline constexpr std::size_t kBytesPerConnection = 48 << 10;
// Resident bytes per byte of body reserved, at the peak of a request: the body itself, the
// parsed document, the decision and the response, and the allocator's slack. Measured on the
// largest reviews (docs/benchmarks.md), rounded up.
inline constexpr std::size_t kResidentPerBodyByte = 4;

// The most resident memory `serve` should reach with these settings.
constexpr std::size_t memory_needed(std::size_t max_inflight_bytes, std::size_t max_connections) {
  return kBaselineBytes + max_connections * kBytesPerConnection +
         max_inflight_bytes * kResidentPerBodyByte;
}

}  // namespace jobset_webhook::server

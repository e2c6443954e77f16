#pragma once

// How much memory `serve` needs, from its budget for request bodies and its connections: the
// figures measured on the optimized build (docs/benchmarks.md, "Memory"), named once so that the
// Deployment's memory limit is checked against them (tests/deploy) and docs/operations.md
// ("Memory") can show the arithmetic. Each is the measured worst case, rounded up.

#include <cstddef>

namespace jobset_webhook::server {

inline constexpr std::size_t kMiB = std::size_t{1} << 20;

// The default of --max-inflight-bytes: request bodies held in memory at once.
inline constexpr std::size_t kDefaultMaxInflightBytes = 12 * kMiB;
// The default of --max-connections: connections served at once, each by a thread of its own; past
// it, new connections wait, unread, until one closes.
inline constexpr std::size_t kDefaultMaxConnections = 256;

// Resident memory of a started server that has answered ordinary reviews: code, libraries,
// OpenSSL's tables, the metrics, a few warm threads and the parsers kept for small bodies
// (measured 12.0 to 13.3 MiB).
inline constexpr std::size_t kBaselineBytes = 16 * kMiB;
// The kernel's receive buffer of a connection, fixed (https_server.cpp): not resident memory of
// the process, but charged to its cgroup, so counted below.
inline constexpr std::size_t kSocketReceiveBufferBytes = 64 << 10;
// What one open connection costs outside the body it is reading: its thread's touched stack
// (24 KiB), the TLS session and the allocator's per-thread cache (36 KiB), and while a request
// head is read the stream's and OpenSSL's read buffers (16 KiB more): measured 60 KiB idle and
// 75 KiB in a head, sized at 80 KiB; plus the kernel's receive buffer.
inline constexpr std::size_t kResidentBytesPerConnection = 80 << 10;
inline constexpr std::size_t kBytesPerConnection =
    kResidentBytesPerConnection + kSocketReceiveBufferBytes;
// Resident bytes per body byte at the peak of one request: the body itself, its parsed document,
// the decision and the answer. Measured 4.4 for realistic reviews of 0.5 to 1 MB and 5.7 for the
// densest (tiny replicatedJobs, 1 and 6.7 MB).
inline constexpr std::size_t kResidentPerBodyByte = 6;

// Parsers and body buffers kept between large reviews (over admission::kLargeBodyBytes): made
// fresh for every such body, their pages were mapped and faulted in anew each time, about 1,200
// page faults and most of the CPU of a 1.1 MB review. Up to kKeptLargeBodies of each are kept, for
// bodies of at most kKeptLargeBodyBytes; what they hold (the body's bytes, and the parser's pages,
// at most what a request's peak holds) is taken out of the budget for bodies, so the sum below
// stays the bound. Nothing is kept when that would take more than a quarter of the budget.
inline constexpr std::size_t kKeptLargeBodies = 2;
inline constexpr std::size_t kKeptLargeBodyBytes = 3 * kMiB / 2;
constexpr std::size_t kept_large_body_bytes(std::size_t max_inflight_bytes) {
  constexpr std::size_t kept = kKeptLargeBodies * kKeptLargeBodyBytes;
  return max_inflight_bytes >= 4 * kept ? kept : 0;
}

// The most memory `serve` can be charged for with these settings: every connection in a request
// head with a full receive buffer while the budget is full of bodies all at their peak.
constexpr std::size_t memory_needed(std::size_t max_inflight_bytes, std::size_t max_connections) {
  return kBaselineBytes + max_connections * kBytesPerConnection +
         max_inflight_bytes * kResidentPerBodyByte;
}

}  // namespace jobset_webhook::server

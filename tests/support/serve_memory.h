#pragma once

// Test helpers for the memory of a `serve` process: its resident set from /proc, a large UPDATE
// review shaped like the kube-apiserver's (many small fields, as dense as real JobSets), and a
// loopback port for its metrics listener.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "jobset_webhook/json.h"
#include "support/hostile_reviews.h"

namespace jobset_webhook::testing {

// The number in a field of /proc/PID/status: "Threads", or in KiB "VmRSS" (resident now) or
// "VmHWM" (the peak so far).
inline long status_value(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  FAIL("no " << field << " for process " << pid);
  return 0;
}
inline long status_kib(pid_t pid, const std::string& field) { return status_value(pid, field); }

// An UPDATE that scales one of many replicatedJobs (allowed), each with a container carrying env,
// resources, ports and volume mounts: at least target_bytes long.
inline std::string large_update_review(std::size_t target_bytes, const std::string& uid) {
  Json old_jobs = Json::array();
  const auto job = [](int i) {
    Json env = Json::array();
    for (int e = 0; e < 6; ++e) {
      env.push_back({{"name", "VAR_" + std::to_string(e)}, {"value", std::to_string(i * e)}});
    }
    return MakeReplicatedJob("rj-" + std::to_string(i))
        .PodSpec(
            "containers",
            {{{"name", "main"},
              {"image", "registry.example/train:v1.2." + std::to_string(i % 7)},
              {"args", {"--epochs=10", "--batch-size=64", "--shard=" + std::to_string(i)}},
              {"env", env},
              {"resources",
               {{"limits", {{"cpu", "4"}, {"memory", "8Gi"}}},
                {"requests", {{"cpu", "2"}, {"memory", "4Gi"}}}}},
              {"ports", {{{"containerPort", 8080}, {"name", "http"}, {"protocol", "TCP"}}}},
              {"volumeMounts", {{{"mountPath", "/data"}, {"name", "data"}, {"readOnly", true}}}}}})
        .Obj();
  };
  std::string body;
  for (int n = 64;; n *= 2) {
    while (static_cast<int>(old_jobs.size()) < n) old_jobs.push_back(job(old_jobs.size()));
    Json scaled = old_jobs;
    scaled[0]["replicas"] = 2;
    body = update_text(jobset_of(old_jobs), jobset_of(scaled), uid);
    if (body.size() >= target_bytes) break;
  }
  // Trimmed to about the target by dropping whole jobs from both sides.
  while (body.size() > target_bytes + 4096 && old_jobs.size() > 1) {
    const std::size_t per_job = body.size() / old_jobs.size();
    const std::size_t drop = std::max<std::size_t>(1, (body.size() - target_bytes) / per_job);
    old_jobs.erase(old_jobs.end() - static_cast<long>(std::min(drop, old_jobs.size() - 1)),
                   old_jobs.end());
    Json scaled = old_jobs;
    scaled[0]["replicas"] = 2;
    body = update_text(jobset_of(old_jobs), jobset_of(scaled), uid);
  }
  return body;
}

// A loopback port for a listener that cannot take port 0 and say what it bound (serve's
// --metrics-port: 0 turns it off), nothing listening on it now, drawn at random from outside the
// kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range): the stretch below it, at
// most 12,768 ports, or the one above if wider. A port the kernel hands out and the caller closes
// can be taken by any outgoing connection before serve binds it; this one only by a process
// binding that very number, and then serve says "cannot listen on 127.0.0.1:PORT" and the caller
// starts it again on another.
inline int port_outside_ephemeral_range() {
  int ephemeral_lo = 32768, ephemeral_hi = 60999;  // Linux's default
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  if (int lo = 0, hi = 0; range >> lo >> hi && lo <= hi) ephemeral_lo = lo, ephemeral_hi = hi;
  int lo = 1024, hi = ephemeral_lo - 1;
  if (65535 - ephemeral_hi > hi - lo) {
    lo = ephemeral_hi + 1, hi = 65535;
  } else if (hi - lo > 12767) {
    lo = hi - 12767;
  }
  if (hi - lo < 100) lo = 10000, hi = 65535;  // no room outside: the caller's retry still holds
  static std::mt19937 random{std::random_device{}()};
  std::uniform_int_distribution<int> pick(lo, hi);
  for (;;) {
    const int port = pick(random);
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (free) return port;
  }
}

}  // namespace jobset_webhook::testing

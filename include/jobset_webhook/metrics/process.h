#pragma once

// The process metrics every Prometheus client library exports, read from /proc/self at scrape
// time (Linux only; fields that cannot be read are absent).

#include <cstdint>
#include <optional>

#include "jobset_webhook/metrics/exposition.h"

namespace jobset_webhook::metrics {

struct ProcessStats {
  std::optional<double> cpu_seconds;  // user + system
  std::optional<std::uint64_t> resident_bytes;
  std::optional<std::uint64_t> virtual_bytes;
  std::optional<std::uint64_t> open_fds;
  std::optional<std::uint64_t> max_fds;      // the soft RLIMIT_NOFILE
  std::optional<double> start_time_seconds;  // since the Unix epoch
};

ProcessStats read_process_stats();

// The memory limit of the process's cgroup (v2 memory.max, v1 memory.limit_in_bytes): in a
// container, the Pod's memory limit. nullopt when there is none or it cannot be read.
std::optional<std::uint64_t> read_cgroup_memory_limit();

// process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds, with client_golang's help texts.
void write_process_metrics(Exposition& out, const ProcessStats& stats);

}  // namespace jobset_webhook::metrics

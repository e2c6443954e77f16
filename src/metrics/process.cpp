#include "jobset_webhook/metrics/process.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace jobset_webhook::metrics {
namespace {

std::string slurp(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The boot time in seconds since the epoch: /proc/stat's btime.
std::optional<double> boot_time() {
  std::istringstream in(slurp("/proc/stat"));
  std::string key;
  while (in >> key) {
    if (key == "btime") {
      double t = 0;
      if (in >> t) return t;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// A limit file's value; "max", or v1's "no limit" (a page-rounded 2^63 - 1), is no limit.
std::optional<std::uint64_t> limit_in(const std::string& file) {
  std::istringstream in(slurp(file.c_str()));
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    const auto limit = std::stoull(text);
    if (limit == 0 || limit >= (std::uint64_t{1} << 62)) return std::nullopt;
    return limit;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::uint64_t> read_cgroup_memory_limit() {
  // /proc/self/cgroup names the cgroup: "0::/path" (v2) or "N:memory:/path" (v1). In a container
  // with its own cgroup namespace the path is "/" and the root of /sys/fs/cgroup is its own.
  std::istringstream lines(slurp("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (path == "/") path.clear();
    if (controllers.empty()) {
      if (auto limit = limit_in("/sys/fs/cgroup" + path + "/memory.max")) return limit;
      if (auto limit = limit_in("/sys/fs/cgroup/memory.max")) return limit;
    } else if (controllers == "memory" || controllers.find("memory,") != std::string::npos ||
               controllers.find(",memory") != std::string::npos) {
      if (auto limit = limit_in("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes"))
        return limit;
      if (auto limit = limit_in("/sys/fs/cgroup/memory/memory.limit_in_bytes")) return limit;
    }
  }
  return std::nullopt;
}

ProcessStats read_process_stats() {
  ProcessStats stats;
  // /proc/self/stat: "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the
  // fields are counted from the last ')'. After it, field 3 (state) is the first.
  const std::string stat = slurp("/proc/self/stat");
  const auto close = stat.rfind(')');
  if (close != std::string::npos) {
    std::istringstream in(stat.substr(close + 1));
    std::vector<std::string> fields;  // fields[0] is field 3 of proc(5)
    for (std::string f; in >> f;) fields.push_back(f);
    const auto field = [&](std::size_t n) -> std::optional<double> {
      if (n < 3 || n - 3 >= fields.size()) return std::nullopt;
      try {
        return std::stod(fields[n - 3]);
      } catch (...) {
        return std::nullopt;
      }
    };
    const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
    const auto utime = field(14), stime = field(15), start = field(22), vsize = field(23),
               rss = field(24);
    if (utime && stime && ticks > 0) stats.cpu_seconds = (*utime + *stime) / ticks;
    if (vsize) stats.virtual_bytes = static_cast<std::uint64_t>(*vsize);
    if (rss && page > 0) stats.resident_bytes = static_cast<std::uint64_t>(*rss * page);
    if (start && ticks > 0) {
      if (const auto boot = boot_time()) stats.start_time_seconds = *boot + *start / ticks;
    }
  }
  std::error_code ec;
  std::uint64_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  // The iterator's own descriptor is among those listed.
  if (!ec && fds > 0) stats.open_fds = fds - 1;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) stats.max_fds = limit.rlim_cur;
  return stats;
}

void write_process_metrics(Exposition& out, const ProcessStats& stats) {
  // A family only for what this platform could read.
  const auto family = [&out](std::string_view name, std::string_view type, std::string_view help,
                             const auto& value) {
    if (!value) return;
    out.family(name, type, help);
    out.sample(name, {}, *value);
  };
  family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
         stats.cpu_seconds);
  family("process_max_fds", "gauge", "Maximum number of open file descriptors.", stats.max_fds);
  family("process_open_fds", "gauge", "Number of open file descriptors.", stats.open_fds);
  family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
         stats.resident_bytes);
  family("process_start_time_seconds", "gauge",
         "Start time of the process since unix epoch in seconds.", stats.start_time_seconds);
  family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
         stats.virtual_bytes);
}

}  // namespace jobset_webhook::metrics

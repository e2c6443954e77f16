#pragma once

// Wall-clock times as Kubernetes writes them, RFC 3339 in UTC: with microseconds
// (metav1.MicroTime, a Lease's renewTime, the log's "time"), "2026-12-01T15:04:05.123456Z"; with
// seconds (metav1.Time, an Event's timestamps), "2026-12-01T15:04:05Z".

#include <chrono>
#include <string>

namespace jobset_webhook::runtime {

std::string rfc3339_micro(std::chrono::system_clock::time_point t);
std::string rfc3339(std::chrono::system_clock::time_point t);

}  // namespace jobset_webhook::runtime

#pragma once

// Wall-clock times as Kubernetes writes them, RFC 3339 in UTC: with microseconds
// (metav1.MicroTime, a Lease's renewTime, the log's "time"), "2026-12-01T15:04:05.123456Z"; with
// seconds (metav1.Time, an Event's timestamps), "2026-12-01T15:04:05Z".

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace jobset_webhook::runtime {

std::string rfc3339_micro(std::chrono::system_clock::time_point t);
std::string rfc3339(std::chrono::system_clock::time_point t);

// The time of what rfc3339() writes ("2026-12-01T15:04:05Z", UTC, whole seconds); nullopt for
// any other text, so that only a time this process's kind wrote is trusted.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

}  // namespace jobset_webhook::runtime

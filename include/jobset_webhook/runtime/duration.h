#pragma once

// Durations as Kubernetes writes them (Go's time.ParseDuration): the kube-apiserver sends a
// webhook's timeout as the query parameter `timeout=10s`, and --shutdown-grace takes the same
// form.

#include <chrono>
#include <optional>
#include <string_view>

namespace jobset_webhook::runtime {

// A sequence of decimal numbers, each with an optional fraction and a unit (ns, us, µs, ms, s, m,
// h), optionally signed: "10s", "1m30s", "1.5h", "-2ms", "0". nullopt for anything else or a value
// outside ±292 years.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

}  // namespace jobset_webhook::runtime

#include "jobset_webhook/policy.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jobset_webhook/scale_down_notice.h"

namespace jobset_webhook {
namespace {

Failure policy_error(const std::string& key, const std::string& problem) {
  return invalid_argument("policy: " + key + ": " + problem);
}

// The offending value as JSON for the message. Invalid UTF-8 is replaced rather than thrown about:
// parse_policy never throws, and a hand-built Json may hold any bytes.
std::string shown(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// One boolean switch of a section: its key in the file and where it lands.
using Switch = std::pair<const char*, bool*>;

std::string known_keys(const std::vector<Switch>& switches,
                       const std::vector<const char*>& extras) {
  std::string out;
  for (const auto& [k, target] : switches) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  for (const char* extra : extras) out += std::string(", ") + extra;
  return out;
}

// Reads a mapping of booleans into the switches; null keeps every default.
// `extras` name more keys of the section, read by the caller (not booleans).
std::optional<Failure> read_switches(const std::string& section, const Json& value,
                                     const std::vector<Switch>& switches,
                                     const std::vector<const char*>& extras = {}) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_object()) return policy_error(section, "must be a mapping, got " + shown(value));
  for (const auto& [name, flag] : value.items()) {
    bool* target = nullptr;
    for (const auto& [k, t] : switches) {
      if (name == k) target = t;
    }
    bool is_extra = false;
    for (const char* extra : extras) is_extra = is_extra || name == extra;
    if (is_extra) continue;
    if (target == nullptr) {
      return policy_error(section + "." + name,
                          "unknown key (known: " + known_keys(switches, extras) + ")");
    }
    if (!flag.is_boolean())
      return policy_error(section + "." + name, "must be a boolean, got " + shown(flag));
    *target = flag.get<bool>();
  }
  return std::nullopt;
}

// scaleHazards: {deny: [name, ...]}; null keeps the default (none).
std::optional<Failure> read_scale_hazards(const Json& value, Policy& policy) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_object())
    return policy_error("scaleHazards", "must be a mapping, got " + shown(value));
  for (const auto& [name, deny] : value.items()) {
    if (name != "deny") return policy_error("scaleHazards." + name, "unknown key (known: deny)");
    if (deny.is_null()) continue;
    if (!deny.is_array())
      return policy_error("scaleHazards.deny", "must be a list, got " + shown(deny));
    std::string known;
    for (const ScaleHazard h : kScaleHazards)
      known += (known.empty() ? "" : ", ") + std::string(scale_hazard_name(h));
    for (const Json& entry : deny) {
      const auto found =
          std::find_if(std::begin(kScaleHazards), std::end(kScaleHazards), [&](ScaleHazard h) {
            return entry.is_string() && entry.get<std::string>() == scale_hazard_name(h);
          });
      if (found == std::end(kScaleHazards)) {
        return policy_error("scaleHazards.deny",
                            "unknown scale hazard " + shown(entry) + " (known: " + known + ")");
      }
      if (!policy.denies(*found)) policy.deny_scale_hazards.push_back(*found);
    }
  }
  return std::nullopt;
}

}  // namespace

Result<Policy> parse_policy(const Json& document) {
  Policy policy;
  if (document.is_null()) return policy;  // an empty file keeps every default
  if (!document.is_object())
    return policy_error("<root>", "must be a mapping, got " + shown(document));
  for (const auto& [key, value] : document.items()) {
    std::optional<Failure> problem;
    if (key == "elastic") {
      problem = read_switches(
          key, value,
          {{"replicas", &policy.elastic.replicas}, {"parallelism", &policy.elastic.parallelism}},
          {"scaleDown", "scaleDownNoticeSeconds"});
      if (!problem && value.is_object() && value.contains("scaleDown")) {
        const Json& scale_down = value["scaleDown"];
        if (scale_down == "controller") {
          policy.elastic.scale_down = Policy::ScaleDown::kController;
        } else if (scale_down == "manual" || scale_down.is_null()) {
          policy.elastic.scale_down = Policy::ScaleDown::kManual;
        } else {
          problem = policy_error("elastic.scaleDown",
                                 "must be \"controller\" or \"manual\", got " + shown(scale_down));
        }
      }
      if (!problem && value.is_object() && value.contains("scaleDownNoticeSeconds")) {
        const Json& notice = value["scaleDownNoticeSeconds"];
        if (notice.is_number_integer() && notice.get<std::int64_t>() >= 0 &&
            notice.get<std::int64_t>() <= kMaxNoticeSeconds) {
          policy.elastic.scale_down_notice_seconds = notice.get<std::int64_t>();
        } else if (!notice.is_null()) {
          problem = policy_error("elastic.scaleDownNoticeSeconds",
                                 "must be an integer from 0 to " +
                                     std::to_string(kMaxNoticeSeconds) + ", got " + shown(notice));
        }
      }
    } else if (key == "featureGates") {
      problem = read_switches(key, value,
                              {{"InPlaceRestart", &policy.feature_gates.in_place_restart},
                               {"RestartJob", &policy.feature_gates.restart_job}});
    } else if (key == "scaleHazards") {
      problem = read_scale_hazards(value, policy);
    } else {
      problem = policy_error(key, "unknown key (known: elastic, featureGates, scaleHazards)");
    }
    if (problem) return *problem;
  }
  return policy;
}

}  // namespace jobset_webhook

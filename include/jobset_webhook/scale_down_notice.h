#pragma once

// The scale-down notice period: how long the scale-down controller announces a scale-down to the
// Jobs that leave and to every Pod of their ReplicatedJob before it deletes anything
// (docs/elastic.md, "Notice before deletion"). A JobSet opts in with the annotation below; the
// policy file's elastic.scaleDownNoticeSeconds is the default for JobSets without it. 0 is no
// notice: the Jobs go at once. Shared by the webhook (its scale-down warning) and the controller.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jobset_webhook {

// On a JobSet, in whole seconds, as Kubernetes' own periods (terminationGracePeriodSeconds):
//   metadata.annotations: {"elastic.jobset-webhook.io/scale-down-notice-seconds": "300"}
inline constexpr const char* kNoticeSecondsAnnotation =
    "elastic.jobset-webhook.io/scale-down-notice-seconds";

// The longest notice accepted: a week. A scale-down that waits longer is a mistake.
inline constexpr std::int64_t kMaxNoticeSeconds = 7 * 24 * 3600;

// The seconds of an annotation value: decimal digits only, 0 .. kMaxNoticeSeconds; nullopt
// otherwise ("5m", "-1", "", " 30").
std::optional<std::int64_t> parse_notice_seconds(std::string_view text);

// A period as Go prints a time.Duration, without zero units: 300 -> "5m", 20 -> "20s",
// 5400 -> "1h30m", 90 -> "1m30s", 0 -> "0s".
std::string notice_text(std::int64_t seconds);

}  // namespace jobset_webhook

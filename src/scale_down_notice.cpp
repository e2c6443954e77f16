#include "jobset_webhook/scale_down_notice.h"

namespace jobset_webhook {

std::optional<std::int64_t> parse_notice_seconds(std::string_view text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  std::int64_t n = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n > kMaxNoticeSeconds) return std::nullopt;
  return n;
}

std::string notice_text(std::int64_t seconds) {
  if (seconds <= 0) return "0s";
  std::string out;
  if (seconds >= 3600) out += std::to_string(seconds / 3600) + "h";
  if (seconds % 3600 >= 60) out += std::to_string(seconds % 3600 / 60) + "m";
  if (seconds % 60 != 0) out += std::to_string(seconds % 60) + "s";
  return out;
}

}  // namespace jobset_webhook

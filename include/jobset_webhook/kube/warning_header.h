#pragma once

// The API server's Warning response headers: what admission webhooks (ours among them) said of a
// write that was allowed. Each header is `299 - "text"` (apimachinery v0.37.2,
// pkg/util/net/http.go, NewWarningHeader: a three-digit code, an agent without spaces, the text
// quoted with `"` and `\` escaped by a backslash), optionally followed by a quoted date, several
// in one header separated by commas (ParseWarningHeaders).

#include <string>
#include <string_view>
#include <vector>

namespace jobset_webhook::kube {

// The texts of the warnings in one header value, in order. A warning that does not parse ends
// the header (as ParseWarningHeaders stops at an error): the ones before it are kept.
std::vector<std::string> parse_warning_header(std::string_view header);

}  // namespace jobset_webhook::kube

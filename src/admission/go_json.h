#pragma once

// Encoding helpers for what the admission codec writes.

#include <string>

#include "jobset_webhook/json.h"

namespace jobset_webhook::admission {

// Compact JSON as Go's encoding/json writes it: <, >, & and U+2028/2029 escaped, invalid UTF-8
// replaced by U+FFFD. Never throws.
std::string go_json_dump(const Json& value);

}  // namespace jobset_webhook::admission

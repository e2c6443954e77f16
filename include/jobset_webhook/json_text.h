#pragma once

// Writing JSON text straight into a string, for the hot paths that cannot afford nlohmann's
// serializer per value (the admission response, the access log).

#include <string>
#include <string_view>

namespace jobset_webhook {

enum class JsonEscapes {
  kStandard,  // as nlohmann's dump: quote, backslash, \b \t \n \f \r, other controls as \u00xx
  kHtmlSafe,  // also <, >, & and U+2028/U+2029, as Go's encoding/json writes them
};

// Appends s quoted and escaped. When s is not valid UTF-8, appends nothing and returns false: the
// caller falls back to a writer with replacement rules.
bool append_json_string(std::string& out, std::string_view s, JsonEscapes escapes);

}  // namespace jobset_webhook

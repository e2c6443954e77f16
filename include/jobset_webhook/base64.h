#pragma once

// Standard base64 (RFC 4648 section 4): the encoding of AdmissionResponse.patch, of a webhook
// configuration's caBundle and of a Secret's or a kubeconfig's data.

#include <string>
#include <string_view>

#include "jobset_webhook/result.h"

namespace jobset_webhook {

// With padding, as Go's base64.StdEncoding writes it.
std::string base64_encode(std::string_view bytes);

// To bytes: padding optional, whitespace ignored (a kubeconfig's `-data` may wrap); anything else
// outside the alphabet, or a truncated last group, is kInvalidArgument.
Result<std::string> base64_decode(std::string_view text);

}  // namespace jobset_webhook

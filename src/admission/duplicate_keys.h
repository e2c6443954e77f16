#pragma once

// The check that refuses a request holding a JSON key twice in one object.
//
// Go's encoding/json keeps the last of duplicate keys; simdjson's at_key, which the core reads
// with, finds the first. A request with duplicates could therefore be judged on other values
// than those the API server stores (say, an old "replicas" followed by a changed template). The
// API server never sends duplicates: it decodes the object and encodes it again for the webhook,
// with the keys of every object in increasing byte order (Go maps are encoded sorted). So a
// request that holds one was crafted, and it is refused as a whole rather than read either way.
// Exempt: metadata.managedFields of request.object and request.oldObject, which no decision
// reads (most of a review's keys).

#include <optional>
#include <string_view>

#include "jobset_webhook/json.h"

namespace jobset_webhook::admission {

// The first key found twice in one object of the document, if any. One linear scan of simdjson's
// tape: the check runs on every request over the whole body, and walking the DOM for it cost as
// much as simdjson's own stage 2.
std::optional<std::string_view> duplicate_key(const simdjson::dom::document& document);

}  // namespace jobset_webhook::admission

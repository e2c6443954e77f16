#pragma once

// The two JSON types of the project, named once.
//
// Requests are read through simdjson's DOM: a read-only view with key order as sent and numbers
// kept exact (int64, uint64 or double). It is the hot path: parsing is most of the cost of a
// review. What we write (responses, JSON Patches, reports) and cold inputs (policy files, YAML
// converted by the CLI) use nlohmann/json.

#include <simdjson.h>

#include <nlohmann/json.hpp>

namespace jobset_webhook {

using JsonView = simdjson::dom::element;
using JsonObjectView = simdjson::dom::object;
using JsonArrayView = simdjson::dom::array;
// Ordered: what we write keeps the field order of the Go structs it mirrors (AdmissionReview,
// Status), so our bytes read like upstream's.
using Json = nlohmann::ordered_json;

}  // namespace jobset_webhook

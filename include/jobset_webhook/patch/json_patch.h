#pragma once

// RFC 6902 JSON Patch: applying one (its paths are RFC 6901 pointers: json_pointer.h). The
// applier is nlohmann/json's own Json::patch, wrapped so that a bad patch is a Failure value
// instead of an exception; no hand-written applier.

#include "jobset_webhook/json.h"
#include "jobset_webhook/json_pointer.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::patch {

// A parsed request value as a Json document, e.g. to apply a patch to it. Never throws.
Result<Json> to_json(JsonView value);

// document with the RFC 6902 operations applied, in order. Failure (kInvalidArgument) when the
// patch is not a list of operations or an operation cannot apply (a missing path, a failed test),
// with nlohmann's reason: "patch: [json.exception.out_of_range.403] key 'x' not found". Never
// throws.
Result<Json> apply(const Json& document, const Json& operations);

}  // namespace jobset_webhook::patch

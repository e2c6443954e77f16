#pragma once

// RFC 6902 JSON Patch: building the paths of a patch (RFC 6901 pointers) and applying one. The
// applier is nlohmann/json's own Json::patch, wrapped so that a bad patch is a Failure value
// instead of an exception; no hand-written applier.

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::patch {

// One reference token escaped as RFC 6901 requires: "~" becomes "~0", then "/" becomes "~1".
//   escape_token("a/b~c") == "a~1b~0c"
std::string escape_token(std::string_view token);

// Appends "/" and the escaped token to pointer: the one place pointers are spelled.
//   pointer == "/metadata/labels"; append_pointer_token(pointer, "app/x");
//   pointer == "/metadata/labels/app~1x"
void append_pointer_token(std::string& pointer, std::string_view token);

// The pointer of a run of tokens; pointer({}) == "" (the whole document):
//   pointer({"spec", "replicatedJobs", "0"}) == "/spec/replicatedJobs/0"
std::string pointer(const std::vector<std::string>& tokens);

// A parsed request value as a Json document, e.g. to apply a patch to it. Never throws.
Result<Json> to_json(JsonView value);

// document with the RFC 6902 operations applied, in order. Failure (kInvalidArgument) when the
// patch is not a list of operations or an operation cannot apply (a missing path, a failed test),
// with nlohmann's reason: "patch: [json.exception.out_of_range.403] key 'x' not found". Never
// throws.
Result<Json> apply(const Json& document, const Json& operations);

}  // namespace jobset_webhook::patch

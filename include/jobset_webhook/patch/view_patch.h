#pragma once

// RFC 6902 JSON Patch applied to a parsed request value, read again as a view, without turning the
// whole value into Json: what ParsedView::of(apply(to_json(js), operations)) gives.

#include "jobset_webhook/json.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::patch {

// js with the operations applied, re-read. Only the objects and lists an operation's path passes
// through become Json, and patch::apply runs on them, so its Failures are the same; every other
// subtree is written from the view straight into the text that is read again. A JobSet with
// 60,000 pod-template labels and a few defaults to add converts a few small objects, not the
// labels. Operations other than add, replace and remove (or a path that is not a pointer) take the
// whole conversion. Never throws.
// keys: kDistinct when js is known to repeat no key in any object (a view of text apply_to_view
// wrote), which spares the check for repeated keys that to_json makes of each object.
enum class Keys { kMayRepeat, kDistinct };
Result<ParsedView> apply_to_view(JsonView js, const Json& operations, Keys keys = Keys::kMayRepeat);

}  // namespace jobset_webhook::patch

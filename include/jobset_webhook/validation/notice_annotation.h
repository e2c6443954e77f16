#pragma once

// The scale-down notice annotation (scale_down_notice.h) as the webhook admits it: a value that
// is not whole seconds from 0 to kMaxNoticeSeconds is refused, since both the controller and the
// webhook's warning would otherwise treat it as absent and delete the Jobs without the notice the
// user asked for. Refused on CREATE, and on UPDATE when the value is new or changed: an UPDATE
// that leaves a value stored before this rule as it is (a scale, a finalizer removed) is not
// blocked by it, as Kubernetes ratchets a rule a stored object predates.

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {

// The error for new_js's annotation, if any: `metadata.annotations[<key>]: Invalid value:
// "5m": must be whole seconds ...`. old_js is the stored object of an UPDATE, nullopt on CREATE.
field::ErrorList validate_notice_annotation(MaybeJson old_js, JsonView new_js);

}  // namespace jobset_webhook::validation

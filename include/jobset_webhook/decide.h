#pragma once

// The one decision function. Every front end (serve, review, check) asks it, so the same request
// gets the same Decision, and every message is composed once.

#include <string>
#include <vector>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/field/warning.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"

namespace jobset_webhook {

enum class Operation { kCreate, kUpdate, kDelete, kConnect };

// Which webhook asks: the validating one judges a JobSet, the mutating one fills in a JobSet's
// defaults, the scaler's validating one judges a ReplicatedJobScaler
// (validation/replicated_job_scaler.h).
enum class Hook { kValidating, kMutating, kValidatingScaler };

// The parts of an AdmissionReview request that the decision reads. Views point into the parsed
// request, which must outlive this struct.
struct AdmissionRequest {
  Hook hook = Hook::kValidating;
  Operation operation = Operation::kCreate;
  std::string name;     // the object's name, as the rejection message names it
  JsonView object;      // the new object (unset for DELETE): a JobSet, or a scaler for its hook
  JsonView old_object;  // the old object (UPDATE only)
};

struct Decision {
  bool allowed = true;
  field::ErrorList errors;      // empty when allowed
  Json patch = Json::array();   // RFC 6902 operations; mutating requests only
  field::WarningList warnings;  // text only at the edge (field::texts)
};

// Same input, same Decision, whichever front end asks. Never throws.
[[nodiscard]] Decision decide(const AdmissionRequest& request, const Policy& policy);

// What the validating webhook answers for creating js, in the API server's order: the defaults
// (defaulting::create_defaults_view, the order the CLI's stored form applies), then validation
// (validation/create.h). An object that
// has them already (every object a cluster sends) is validated as it is; a plain manifest as the
// API server would see it, so that a CI check and the webhook give one answer. Never throws.
[[nodiscard]] field::ErrorList validate_create_after_defaults(JsonView js, const Policy& policy);

}  // namespace jobset_webhook

#pragma once

// Test helpers: the route the server tests POST to, and the sample AdmissionReview they send
// (tests/data/sample-review.json: an UPDATE that changes an image, denied).
// tests/data/sample-scaler-review.json is a ReplicatedJobScaler's UPDATE that moves it to another
// JobSet and scales it past maxReplicas, denied.

#include <string>

#include "jobset_webhook/server/endpoints.h"
#include "support/process.h"

namespace jobset_webhook::testing {

// The admission endpoints, as the server routes them (server/endpoints.h).
inline const std::string kValidate(server::kValidatePath);
inline const std::string kMutate(server::kMutatePath);
inline const std::string kValidateScaler(server::kValidateScalerPath);

inline std::string sample_review() {
  return slurp(std::string(JOBSET_TESTDATA_DIR) + "/sample-review.json");
}

}  // namespace jobset_webhook::testing

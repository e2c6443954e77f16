#pragma once

// The webhook's rules for a ReplicatedJobScaler (elastic.jobset-webhook.io/v1alpha1,
// docs/elastic.md) on CREATE and UPDATE of the scaler itself: the names are DNS-1035 labels (what
// upstream JobSet requires of a JobSet's name and of a replicatedJob's name), minReplicas <=
// maxReplicas, replicas within them, and the two names never change. Errors in apimachinery's
// field form. The bounds are also CEL rules of the CRD, because a write through /scale reaches a
// webhook as a Scale without them; here they are answered as every other field error is.

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::validation {

// old_scaler is null on CREATE. Both are whole objects; a spec that is missing or not an object
// is reported as required. Never throws.
field::ErrorList validate_replicated_job_scaler(const Json* old_scaler, const Json& scaler);

// What the API server does with a scaler before any webhook, for front ends without one (`check`,
// `validate`): the CRD's default (spec.replicas 1, when spec is an object without it), then its
// CEL rules in the API server's words (manifests/components/scale-down-controller/
// replicated-job-scaler-crd.yaml; a rule of an object fails as "spec: Invalid value: <message>").
// The CRD's OpenAPI types and bounds are not applied here.
void apply_replicated_job_scaler_default(Json& scaler);
field::ErrorList replicated_job_scaler_crd_rules(const Json& scaler);

}  // namespace jobset_webhook::validation

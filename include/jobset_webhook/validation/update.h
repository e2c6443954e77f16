#pragma once

// The UPDATE rules: a field-level immutability diff of an old and a new JobSet.
//
// What may change (everything else in spec is immutable, one error per changed leaf):
// - spec.replicatedJobs[*].replicas, to any integer in [0, 2147483647] (int32, as upstream decodes
//   it; policy elastic.replicas, default on);
// - template.spec.parallelism and .completions of Indexed jobs under upstream's ElasticJobSet
//   rules (policy elastic.parallelism, default off);
// - while the JobSet is suspended (old or new spec.suspend true), the pod-template fields that
//   upstream leaves mutable for Kueue: metadata.labels, metadata.annotations, spec.nodeSelector,
//   spec.tolerations, spec.schedulingGates;
// - spec.suspend, spec.coordinator, spec.ttlSecondsAfterFinished, metadata and status.
// Equality is Kubernetes-semantic: see semantic.h.

#include <string>
#include <vector>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/field/warning.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {

inline constexpr std::string_view kFieldImmutable = "field is immutable";
// The message of the CRD's `self == oldSelf` CEL rules.
inline constexpr std::string_view kValueImmutable = "Value is immutable";

struct UpdateFindings {
  field::ErrorList errors;
  // What a replicas change will do to the child Jobs, each at the replicas it is about; only
  // filled when errors is empty.
  field::WarningList warnings;
};

// old_js and new_js are whole JobSet objects whose spec, if present, is an object. A quantity of
// new_js that upstream's decoder cannot read is answered alone (validate_quantity_decoding in
// quantity.h): a value such as "1e1.5" is never compared as text. Never throws.
UpdateFindings validate_update(JsonView old_js, JsonView new_js, const Policy& policy);

// The API server's own validation of the JobSet CRD on UPDATE, before any webhook: the CRD's
// structural schema (src/validation/crd_schema.h, generated from upstream's CRD) on the new
// object's spec, the Job and Pod templates included, in kube-openapi's words (`spec.suspend:
// Invalid value: "string": spec.suspend in body must be of type boolean: "string"`), with
// ratcheting: an error in a value unchanged from the old value it correlates with (through object
// keys and list-type map keys; an atomic or set list as a whole) is dropped, as apiextensions'
// ratchetingValueValidator drops it (CRDValidationRatcheting, on by default since 1.30). Then the
// keys of list-type maps and sets (`Duplicate value: {"name":"main"}`), unless the old object
// already repeats one (strategy.go ValidateUpdate). A `review` never needs it: the API server has
// already refused such an object. Never throws.
field::ErrorList validate_update_schema(JsonView old_js, JsonView new_js);

// True when two lists of PersistentVolumeClaims (a volumeClaimPolicy's `templates`) decode to
// equal Go values (equality.Semantic.DeepEqual of []corev1.PersistentVolumeClaim): a claim's
// metadata and spec compared as semantic.h compares them, an empty `status` ({}, which Go's
// encoder writes for a claim that has none) equal to an absent one. Never throws.
bool claim_templates_equal(MaybeJson a, MaybeJson b);

}  // namespace jobset_webhook::validation

#pragma once

// The fields of a JobSet that the JobSet CRD's structural schema does not declare: what the API
// server prunes from a custom resource, and with strict field validation (kubectl's default since
// 1.27) refuses it for. Mirrors apiextensions-apiserver's pruning.PruneWithOptions
// (pkg/apiserver/schema/pruning/algorithm.go, v0.37.2) over the CRD's schema as generated from it
// (src/validation/crd_schema.h), whose embedded ObjectMeta keeps five fields (annotations,
// finalizers, labels, name, namespace); the root metadata is read as Go's ObjectMeta, by the
// field-kinds table. Never throws.

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"

namespace jobset_webhook::validation {

struct UnknownField {
  // In the API server's notation (UnknownFieldPathOptions): keys joined by ".", indices in
  // brackets: "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo".
  std::string path;
  std::vector<std::string> tokens;  // the JSON pointer's tokens: spec, replicatedJobs, 0, ...
};

// Every undeclared field of js in the API server's order: those of the root metadata, read as a
// whole metav1.ObjectMeta (objectmeta.GetObjectMetaWithOptions), then the pruned ones sorted by
// path as PruneWithOptions sorts them. status and the PVC templates of volumeClaimPolicies (whose
// metadata the CRD limits to the five embedded fields) are looked into as the CRD declares them;
// a map (labels, annotations, resource lists) keeps every key.
std::vector<UnknownField> unknown_fields(JsonView js);

// What the API server puts before the joined messages when it refuses a create for them under
// strict field validation: transformDecodeError (apiserver v0.37.2 pkg/endpoints/handlers/rest.go)
// around runtime.NewStrictDecodingError (apimachinery pkg/runtime/error.go). A JobSet is read as
// jobset.x-k8s.io/v1alpha2 only.
inline constexpr std::string_view kStrictCreatePrefix =
    "JobSet in version \"v1alpha2\" cannot be handled as a JobSet: strict decoding error: ";

// The API server's text for one: unknown field "<path>" (customresource_handler.go,
// schemaCoercingDecoder.Decode).
std::string unknown_field_message(const UnknownField& field);

}  // namespace jobset_webhook::validation

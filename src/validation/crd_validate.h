#pragma once

// The JobSet CRD's structural schema applied as the API server applies it (apiextensions-apiserver
// pkg/registry/customresource/strategy.go, Validate and ValidateUpdate): kube-openapi's schema
// validation (pkg/validation/validate, through apiextensions' ValidateCustomResource and
// kubeOpenAPIResultToFieldErrors), with ratcheting on UPDATE, then ValidateListSetsAndMaps
// (pkg/apiserver/schema/listtype). Nulls are not values here: the API server drops them while
// decoding (or puts the default in their place), before it validates.

#include "crd_schema.h"
#include "jobset_webhook/field/error.h"
#include "jobset_webhook/field/path.h"
#include "jobset_webhook/json.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {

// kube-openapi's SchemaValidator on v at path, in its order at each node: type, string (length,
// pattern), number (bounds), array (maxItems), enum, then the object's members (additional
// properties, properties in name order) and its required fields, in the CRD's order. An error
// names the field as kube-openapi does (a map key as a field: `limits.cpu`; Path::to_openapi_string)
// and keeps apimachinery's form in its origin.
//
// old, on UPDATE, is the old object's value at path: an error in a part of v equal to the part of
// old it correlates with (through object keys and the keys of list-type map lists; nothing below
// an atomic or set list) is dropped, as ratchetingValueValidator drops it (CRDValidationRatcheting,
// on by default since Kubernetes 1.30). std::nullopt on CREATE.
field::ErrorList validate_schema(const CrdSchema& schema, JsonView v, MaybeJson old,
                                 const field::Path& path);

// ValidateListSetsAndMaps: a repeated entry of an x-kubernetes-list-type set, a repeated key of a
// list-type map (`spec.replicatedJobs[1]: Duplicate value: {"name":"a"}`), each value reported
// once, at its second place. Paths in apimachinery's form (map keys as `[key]`).
field::ErrorList validate_list_sets_and_maps(const CrdSchema& schema, JsonView v,
                                             const field::Path& path);

// The API server's CEL rules do not run after an error of a blocking type (Unsupported, Required,
// Too long, Too many, a type error): strategy.go's hasBlockingErr then adds
// `<nil>: Invalid value: null: some validation rules were not checked because the object was
// invalid; correct the existing errors to complete validation` to errs and this returns true.
bool cel_blocked(field::ErrorList& errs);

}  // namespace jobset_webhook::validation

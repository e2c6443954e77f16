#pragma once

// Type checks as the API server makes them against a structural schema, and its type errors.

#include <string_view>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/field/path.h"
#include "jobset_webhook/json.h"
#include "field_kinds.h"

namespace jobset_webhook::validation {

// The JSON type of a value as the API server names it in a type error ("integer" for 3.0).
std::string_view json_type(JsonView v);

// `<path>: Invalid value: "string": <path> in body must be of type integer: "string"`
field::Error type_error(const field::Path& path, std::string_view expected, JsonView v);

// `<path>: Invalid value: "abc": <path> in body should match '<kQuantityPattern>'`: the API
// server's error for a quantity string the CRD's pattern refuses (kube-openapi's FailedPattern,
// reported by apiextensions-apiserver's kubeOpenAPIResultToFieldErrors as Invalid). As in every
// schema error, a map key is written as a field (resources.limits.cpu, Path::to_openapi_string);
// the error's origin keeps apimachinery's form (resources.limits[cpu]).
field::Error quantity_pattern_error(const field::Path& path, std::string_view text);

// The embedded Job template: types, and the pattern of quantity strings. Its required fields and value rules are the Job API's,
// checked when the controller creates the Jobs.
void check_template_types(const FieldKind& kind, JsonView v, field::Path& path,
                          field::ErrorList& errs);

// A field Go decodes into an int32.
void check_int32(const field::Path& path, JsonView v, field::ErrorList& errs);

}  // namespace jobset_webhook::validation

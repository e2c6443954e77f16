#pragma once

// YAML scalars read as kubectl reads them. kubectl turns a manifest into JSON with
// sigs.k8s.io/yaml's YAMLToJSON (v1.6.0), which decodes the YAML with go-yaml v2
// (go.yaml.in/yaml/v2 v2.4.2) into interface{} values and then json.Marshals them. So a scalar's
// type follows go-yaml v2's resolve() (resolve.go), which is YAML 1.1, not 1.2: `yes`/`on`/`y`
// are true, `0644` is octal 420, `1_000` is 1000, `0b101` is 5; then
// convertToJSONableObject (yaml.go) turns map keys into strings and json.Marshal writes values
// (an integral float as an integer, `.inf` and `.nan` refused). Never throws.

#include <string>
#include <string_view>

#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// A scalar as go-yaml v2's resolve() types it.
struct YamlScalar {
  enum class Tag { kNull, kBool, kInt, kUint, kFloat, kString };
  Tag tag = Tag::kString;
  // kBool: a boolean; kInt: an int64; kUint: a uint64 above int64; kFloat: a double (possibly
  // infinite or NaN); kString: the text; kNull: null.
  Json value;
};

// resolve(tag, in) for a scalar and the tag yaml-cpp reports for it: "?" for a plain scalar
// without a tag, "!" for a quoted one (always a string), else the explicit tag
// ("tag:yaml.org,2002:int"). A value that its explicit tag cannot hold is a Failure with go-yaml's
// wording (cannot decode !!str `abc` as a !!int).
Result<YamlScalar> resolve_scalar(std::string_view tag, std::string_view in);

// The JSON value json.Marshal writes for it, as the API server then reads that text: a float
// with an integral value in int64's range is that integer (`3.0` is 3, `1e3` is 1000). Infinity
// and NaN are a Failure, as json.Marshal refuses them ("json: unsupported value: +Inf").
Result<Json> json_value(const YamlScalar& scalar);

// The JSON key convertToJSONableObject makes of a map key: strings as they are, integers in
// decimal, floats by strconv.FormatFloat(f, 'g', -1, 32), booleans as true/false. A null or a
// uint64 key is a Failure ("unsupported map key of type: uint64").
Result<std::string> json_key(const YamlScalar& scalar);

// An untagged plain scalar read as a value: json_value(resolve_scalar("?", s)), with infinity
// and NaN kept as doubles (the emitter only needs to know that they are not strings).
Json plain_scalar(std::string_view s);

}  // namespace jobset_webhook::cli

#pragma once

// Kubernetes resource quantities ("500m", "1Gi", "1e3", "0.5") compared by exact value, as
// resource.Quantity.Cmp does: "1" == "1000m", "1Gi" == "1024Mi", "1k" == "1e3".

#include <optional>
#include <string>
#include <string_view>

#include "jobset_webhook/field/error.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::validation {

// An exact decimal value: sign, significant digits without leading or trailing zeros, and a
// power of ten. Zero is {false, "0", 0}.
struct ExactQuantity {
  bool negative = false;
  std::string digits = "0";
  long long exponent = 0;
  bool operator==(const ExactQuantity&) const = default;
};

// What apimachinery's resource.ParseQuantity (v0.37.2) reads text as; nullopt where it returns
// an error. Its quirks included: "+", "-", ".", "m" and "Gi" are 0; an exponent is read as an
// int64 and truncated to int32 ("1e4294967297" is 10), with no other limit ("1e1001" is
// 10^1001); a value finer than a nano-unit is rounded up (away from zero) to the next nano-unit;
// only binary-suffixed values are capped at 2^63-1 ("10Ei"). Never throws.
std::optional<ExactQuantity> parse_quantity(std::string_view text);

// apimachinery's errors of ParseQuantity (resource/quantity.go, v0.37.2), word for word: what
// upstream's webhook answers, from its JSON decoder, for a quantity it cannot read.
inline constexpr std::string_view kQuantityErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
inline constexpr std::string_view kQuantityErrNumeric = "unable to parse numeric part of quantity";
inline constexpr std::string_view kQuantityErrSuffix = "unable to parse quantity's suffix";

// The error ParseQuantity returns for text (one of the three above); empty when it reads it.
std::string_view quantity_error(std::string_view text);

// The pattern the JobSet CRD (controller-gen, for every resource.Quantity field) gives quantity
// strings; the API server refuses a string that does not match it before any webhook runs.
inline constexpr std::string_view kQuantityPattern =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";

// True when text matches kQuantityPattern. Narrower than parse_quantity in places ("+", "Gi",
// "1e1.5" is the reverse: it matches and does not parse).
bool matches_quantity_pattern(std::string_view text);

// The quantity strings of a JobSet that the CRD's pattern lets through and ParseQuantity refuses
// ("1e1.5", "1e100000000000000000000"), which upstream's webhook cannot decode: one Invalid error
// each, at its field, with ParseQuantity's text as detail:
//   spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.limits[cpu]:
//   Invalid value: "1e1.5": quantities must match the regular expression '...'
// Upstream answers the bare text, without a field (its decoder fails before any rule runs: the
// admission response is a 400 with that message); the field is ours. Looks where the JobSet holds
// quantities: the replicatedJobs' templates and the volumeClaimPolicies' PVC templates. A string
// the pattern refuses is the schema's error, not reported here. Never throws.
field::ErrorList validate_quantity_decoding(JsonView js);

}  // namespace jobset_webhook::validation

#pragma once

// Kubernetes resource quantities ("500m", "1Gi", "1e3", "0.5") compared by exact value, as
// resource.Quantity.Cmp does: "1" == "1000m", "1Gi" == "1024Mi", "1k" == "1e3".

#include <optional>
#include <string>
#include <string_view>

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

// The pattern the JobSet CRD (controller-gen, for every resource.Quantity field) gives quantity
// strings; the API server refuses a string that does not match it before any webhook runs.
inline constexpr std::string_view kQuantityPattern =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";

// True when text matches kQuantityPattern. Narrower than parse_quantity in places ("+", "Gi",
// "1e1.5" is the reverse: it matches and does not parse).
bool matches_quantity_pattern(std::string_view text);

}  // namespace jobset_webhook::validation

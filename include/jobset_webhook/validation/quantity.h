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

// nullopt when the text is not a quantity in Kubernetes' grammar. Like Go, a value finer than a
// nano-unit is rounded up (away from zero) to the next nano-unit.
std::optional<ExactQuantity> parse_quantity(std::string_view text);

}  // namespace jobset_webhook::validation

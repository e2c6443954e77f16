#pragma once

// Names of upstream's JobSet controller that more than one layer reads (kubernetes-sigs/jobset
// v0.12.0, pkg/constants/constants.go). A label a single file reads stays next to its use.

#include <string_view>

namespace jobset_webhook {

// spec.managedBy of a JobSet that upstream's JobSet controller reconciles (its default when unset).
inline constexpr std::string_view kJobSetControllerName = "jobset.sigs.k8s.io/jobset-controller";

}  // namespace jobset_webhook

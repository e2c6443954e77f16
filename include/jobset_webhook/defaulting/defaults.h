#pragma once

// The defaults of a JobSet on CREATE, as RFC 6902 JSON Patches computed from the request's view.
// A patch holds only what is missing ("add" for an absent field, "replace" for a present but
// empty one such as `name: ""`), creates missing parent objects in the same operation, and is an
// empty list when nothing needs defaulting. Wrong-typed values are left alone: the schema check
// rejects them. Never throws.
//
// Create only: upstream's mutating webhook is registered for CREATE alone, because defaulting on
// UPDATE makes server-side apply loop (kubernetes-sigs/jobset issue 926: the webhook re-adds a
// field the applier's manifest omits, the applier removes it again, and so on).

#include "jobset_webhook/json.h"

namespace jobset_webhook::defaulting {

// Upstream JobSet v0.12.0's Default(), the mutating webhook's answer, in upstream's order:
//   spec.successPolicy                      {operator: All}                  when absent
//   spec.startupPolicy                      {startupPolicyOrder: AnyOrder}   when absent
//   replicatedJobs[i].template.spec.completionMode                 Indexed   when absent
//   replicatedJobs[i].template.spec.template.spec.restartPolicy    OnFailure when absent or ""
//   spec.network.enableDNSHostnames, .publishNotReadyAddresses     true      when absent
//   spec.failurePolicy.rules[i].name        failurePolicyRule<i>             when absent or ""
//   spec.volumeClaimPolicies[i].retentionPolicy  {whenDeleted: Delete}      when absent
// Example: a JobSet whose only spec is one replicatedJob with a pod template gets
//   [{"op":"add","path":"/spec/successPolicy","value":{"operator":"All"}}, ...]
[[nodiscard]] Json defaults_patch(JsonView js);

// The defaults the JobSet CRD's schema declares, which the API server applies when it decodes the
// object, before any webhook sees it:
//   replicatedJobs[i].groupName "default", replicatedJobs[i].replicas 1,
//   failurePolicy.restartStrategy "Recreate" (when failurePolicy is set),
//   volumeClaimPolicies[i].retentionPolicy.whenDeleted "Delete" (when retentionPolicy is set).
// Front ends without an API server (CI checks, `default`) need them; the webhook does not.
[[nodiscard]] Json crd_defaults_patch(JsonView js);

}  // namespace jobset_webhook::defaulting

#pragma once

// The defaults of a JobSet, as RFC 6902 JSON Patches computed from the request's view.
// A patch holds only what is missing ("add" for an absent field, "replace" for a present but
// empty one such as `name: ""`), creates missing parent objects in the same operation, and is an
// empty list when nothing needs defaulting. Wrong-typed values are left alone: the schema check
// rejects them. Never throws.

#include <optional>

#include "jobset_webhook/json.h"
#include "jobset_webhook/parsed_view.h"
#include "jobset_webhook/result.h"

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
// The mutating webhook's answer on CREATE.
[[nodiscard]] Json defaults_patch(JsonView js);

// The mutating webhook's answer on UPDATE: of the defaults above that the new object lacks, those
// the stored object holds at the same place (a replicatedJob matched by name) with the default
// value. A client that drops a webhook default from its update sends no change: `kubectl apply`
// of a custom resource sends a JSON merge patch, which replaces `spec.replicatedJobs` whole with
// the manifest's list and so drops `completionMode: Indexed` filled in on CREATE; the immutability
// rules would refuse that. Nothing else is added: defaulting the update itself would make
// server-side apply loop (kubernetes-sigs/jobset issue 926: the webhook re-adds a field the
// applier's manifest omits, the applier removes it again, and so on), and a default the stored
// object never held stays out, as upstream's CREATE-only webhook leaves it.
// One more thing comes back whole: spec.volumeClaimPolicies as stored, when the update's list
// decodes to the same Go value (validation::claim_templates_equal) but is not the same JSON. The
// CRD's CEL rule `self == oldSelf` compares the JSON, and a JobSet written by a typed client
// (upstream's mjobset.kb.io, a controller) holds `status: {}` in each claim template, which no
// manifest does: re-applying the manifest would be refused.
[[nodiscard]] Json restored_defaults_patch(JsonView old_js, JsonView new_js);

// The defaults the JobSet CRD's schema declares (every `default:` of jobset v0.12.0's CRD, the
// one table of them: src/defaulting/crd_defaults.cpp), which the API server applies when it
// decodes the object, before any webhook sees it. A field gets its default when its parent object
// exists and the field is absent ("add") or null ("replace"), in every entry of a list:
//   replicatedJobs[i].groupName "default", replicatedJobs[i].replicas 1,
//   failurePolicy.restartStrategy "Recreate", volumeClaimPolicies[i].retentionPolicy.whenDeleted
//   "Delete", and the embedded core/v1 defaults of the pod template (ports[j].protocol "TCP",
//   env[k].valueFrom.configMapKeyRef.name "", ...).
// Front ends without an API server (CI checks, `default`) need them; the webhook does not.
[[nodiscard]] Json crd_defaults_patch(JsonView js);

// What the API server stores for a CREATE of js, in its order: the CRD's defaults
// (crd_defaults_patch) as it decodes the object, then the mutating webhook's (defaults_patch) on
// what that left, then the CRD's again over what the webhook added. That order is written once
// (create_defaults.cpp), for this function, the CLI's stored form, and create_defaults_view below,
// the validating webhook's CREATE (decide).
// nullopt when js needs no default, as every object a cluster sends: the caller keeps reading js.
// A Failure only when a patch does not apply. Never throws.
struct Defaulted {
  Json object;      // what the API server stores
  ParsedView view;  // object, as read for the last step: the view the rules read
};
[[nodiscard]] Result<std::optional<Defaulted>> create_defaults(JsonView js);

// The same stored object as a view only, for the validating webhook's CREATE, whose rules read
// nothing else: each step applies its operations with patch::apply_to_view, which turns into Json
// only the few small objects the defaults go into, not the whole object (a pod template's 60,000
// labels stay text). Same answers, same Failures: the CLI's stored form, and the validating
// webhook's answer, stay those of create_defaults.
[[nodiscard]] Result<std::optional<ParsedView>> create_defaults_view(JsonView js);

}  // namespace jobset_webhook::defaulting

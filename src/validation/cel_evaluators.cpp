// One evaluator per CEL rule of upstream JobSet v0.12.0's CRD, keyed by the rule's exact text
// (cel_rules.h says why). Each evaluator is the rule read as CEL reads it on the structural
// object; a comment quotes the Go field it comes from.

#include <algorithm>
#include <array>

#include "cel_rules.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

// JobSetSpec (api/jobset/v1alpha2/jobset_types.go): "StartupPolicy and DependsOn APIs are
// mutually exclusive".
bool startup_order_excludes_depends_on(JsonView spec) {
  if (string_of(at(spec, {"startupPolicy", "startupPolicyOrder"})) != "InOrder") return true;
  const auto rjobs = items_of(member(spec, "replicatedJobs"));
  return std::none_of(rjobs.begin(), rjobs.end(),
                      [](JsonView r) { return member(r, "dependsOn").has_value(); });
}

// VolumeClaimPolicy: "namespace cannot be set for VolumeClaimPolicies templates".
bool claim_templates_have_no_namespace(JsonView policy) {
  const auto templates = items_of(member(policy, "templates"));
  return std::all_of(templates.begin(), templates.end(), [](JsonView t) {
    return string_or_empty(at(t, {"metadata", "namespace"})).empty();
  });
}

constexpr std::array kEvaluators = {
    CelEvaluator{"!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' "
                 "&& self.replicatedJobs.exists(x, has(x.dependsOn)))",
                 CelWhen::kCreate, startup_order_excludes_depends_on},
    CelEvaluator{"self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) "
                 "== 0)",
                 CelWhen::kCreate, claim_templates_have_no_namespace},
    // network, successPolicy, failurePolicy, startupPolicy, volumeClaimPolicies and a
    // ReplicatedJob's dependsOn: "Value is immutable".
    CelEvaluator{"self == oldSelf", CelWhen::kUpdateOnly, nullptr},
};

}  // namespace

const CelEvaluator* cel_evaluator(std::string_view rule) {
  for (const CelEvaluator& e : kEvaluators) {
    if (e.rule == rule) return &e;
  }
  return nullptr;
}

}  // namespace jobset_webhook::validation

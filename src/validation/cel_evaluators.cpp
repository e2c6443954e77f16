// One evaluator per CEL rule of upstream JobSet v0.12.0's CRD, keyed by the rule's exact text
// (cel_rules.h says why). Each evaluator is the rule read as CEL reads it on the structural
// object; a comment quotes the Go field it comes from.

#include <algorithm>
#include <array>

#include "cel_rules.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

// cel-go's error for a field of an object the object does not have, which a select (`self.x`)
// reads and has() does not (k8s.io/apiserver v0.36 pkg/cel/common/valuesunstructured.go,
// unstructuredMap.Get).
CelResult no_such_key(std::string_view field) {
  return {false, "no such key: " + std::string(field)};
}

// JobSetSpec (api/jobset/v1alpha2/jobset_types.go): "StartupPolicy and DependsOn APIs are
// mutually exclusive". && stops at the first false, so replicatedJobs is read only under InOrder.
CelResult startup_order_excludes_depends_on(JsonView spec) {
  const MaybeJson policy = member(spec, "startupPolicy");
  if (!policy) return {};
  const MaybeJson order = member(policy, "startupPolicyOrder");
  if (!order) return no_such_key("startupPolicyOrder");
  if (string_of(order) != "InOrder") return {};
  const MaybeJson rjobs = member(spec, "replicatedJobs");
  if (!rjobs) return no_such_key("replicatedJobs");
  const auto entries = items_of(rjobs);
  return {std::none_of(entries.begin(), entries.end(),
                       [](JsonView r) { return member(r, "dependsOn").has_value(); }),
          ""};
}

// VolumeClaimPolicy: "namespace cannot be set for VolumeClaimPolicies templates". all() is false
// when one entry is false, whatever the others give; else an entry's error is the result.
CelResult claim_templates_have_no_namespace(JsonView policy) {
  const MaybeJson templates = member(policy, "templates");
  if (!templates) return no_such_key("templates");
  CelResult result;
  for (const JsonView t : items_of(templates)) {
    const MaybeJson metadata = member(t, "metadata");
    if (!metadata) {
      if (result.error.empty()) result = no_such_key("metadata");
      continue;
    }
    if (!string_or_empty(member(metadata, "namespace")).empty()) return {false, ""};
  }
  return result;
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

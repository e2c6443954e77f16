#pragma once

// The JobSet CRD's CEL rules (x-kubernetes-validations), applied where the schema table puts them.
// CEL itself is not available as a C++ library here, so each rule of the CRD has a hand-written
// evaluator, registered under the rule's exact text (cel_evaluators.cpp): a rule upstream changes
// or adds finds none, and crd_schema_test.cpp's "every CEL rule of the table" test fails. The
// message, field path and reason come from the table, as the API server takes them from the CRD
// (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go, validateExpressions).

#include <string>
#include <string_view>

#include "crd_schema.h"
#include "jobset_webhook/field/error.h"
#include "jobset_webhook/field/path.h"
#include "jobset_webhook/json.h"

namespace jobset_webhook::validation {

enum class CelWhen {
  kCreate,      // evaluated by holds() on CREATE (and UPDATE)
  kUpdateOnly,  // a transition rule (oldSelf): never run on CREATE, where there is no old value;
                // on UPDATE it is the immutability diff of validate_update (update.cpp,
                // kCelImmutableSpecFields and dependsOn's kValueImmutable)
};

// What a rule gives for one value: true, false, or no value at all, as when the rule reads a field
// the object does not have (CEL's "no such key: <field>").
struct CelResult {
  bool holds = true;
  std::string error;  // non-empty: the rule did not evaluate, and why, in cel-go's words
};

struct CelEvaluator {
  std::string_view rule;  // the CEL text, byte for byte as the CRD writes it
  CelWhen when;
  // The rule on self, the value at the rule's node (never null: the API server runs no rule on an
  // absent value). nullptr for an UPDATE-only rule.
  CelResult (*evaluate)(JsonView self);
};

// The evaluator of a rule text, nullptr when none is registered.
const CelEvaluator* cel_evaluator(std::string_view rule);

// Why the core cannot apply a rule of the table as the API server does, "" when it can: no
// evaluator for its text, a messageExpression (a second CEL program), a fieldPath other than
// `.a.b`, an optionalOldSelf transition rule (which would run on CREATE).
std::string cel_rule_problem(const CelRule& rule);

// The CREATE-time rules of the node schema and every node under it, on the value v at path (the
// whole object at an empty path, as strategy.go runs them), in validation.go's order: a node's
// rules, then its additionalProperties' values, then its properties. A failed rule adds the API server's error: the table's message (else
// "failed rule: <rule>"), at path plus fieldPath, the value omitted for an object or a list; a
// rule that does not evaluate, `<error> evaluating rule: <message>` at path with the node's type
// as the value.
void validate_cel_create(const CrdSchema& schema, JsonView v, const field::Path& path,
                         field::ErrorList& errs);

}  // namespace jobset_webhook::validation

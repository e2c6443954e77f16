// The walk that applies the CRD's CEL rules on CREATE and the API server's error for a failed
// one (apiextensions-apiserver v0.36 pkg/apiserver/schema/cel/validation.go: validate,
// validateExpressions, ruleMessageOrDefault, fieldErrorForReason).

#include <string>

#include "cel_rules.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

std::string_view trim_space(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\n\r\v\f");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n\r\v\f") - first + 1);
}

// ruleMessageOrDefault: the message, trimmed, else "failed rule: " and the rule.
std::string detail_of(const CelRule& rule) {
  if (!rule.message.empty()) return std::string(trim_space(rule.message));
  return "failed rule: " + std::string(trim_space(rule.rule));
}

// fieldErrorForReason, with the value validateExpressions passes: omitted for an object or a
// list (field.OmitValueType), else the value itself.
field::Error error_of(const CelRule& rule, const CrdSchema& schema, JsonView self,
                      const field::Path& path) {
  // NormalizedRuleFieldPath: `.a.b` becomes one more segment "a.b" (cel_rule_problem refuses the
  // `['key']` forms, which normalise otherwise).
  const field::Path at = rule.field_path.empty() ? path : path.child(rule.field_path.substr(1));
  const field::BadValue value = schema.type == "object" || schema.type == "array"
                                    ? field::BadValue::omitted()
                                    : field::BadValue::of(self);
  const std::string detail = detail_of(rule);
  if (rule.reason == "FieldValueForbidden") return field::forbidden(at, detail);
  if (rule.reason == "FieldValueRequired") return field::required(at, detail);
  if (rule.reason == "FieldValueDuplicate") return field::duplicate(at, value);
  return field::invalid(at, value, detail);
}

void check_rules(const CrdSchema& schema, JsonView self, const field::Path& path,
                 field::ErrorList& errs) {
  for (const CelRule& rule : schema.cel_rules) {
    const CelEvaluator* evaluator = cel_evaluator(rule.rule);
    // A rule without an evaluator cannot be in a tested build (crd_schema_test.cpp); an
    // UPDATE-only rule has no old value to compare with on CREATE (validation.go: "transition
    // rules are evaluated only if there is a comparable existing value").
    if (evaluator == nullptr || evaluator->when == CelWhen::kUpdateOnly) continue;
    const CelResult result = evaluator->evaluate(self);
    if (!result.error.empty()) {
      // validateExpressions' err branch: the node's path and type, ruleErrorString.
      const std::string_view named =
          rule.message.empty() ? trim_space(rule.rule) : trim_space(rule.message);
      errs.push_back(field::invalid(path, field::BadValue::string(schema.type),
                                    result.error + " evaluating rule: " + std::string(named)));
    } else if (!result.holds) {
      errs.push_back(error_of(rule, schema, self, path));
    }
  }
}

}  // namespace

std::string cel_rule_problem(const CelRule& rule) {
  const CelEvaluator* evaluator = cel_evaluator(rule.rule);
  if (evaluator == nullptr) return "no evaluator is registered for the rule `" + rule.rule + "`";
  if (!rule.message_expression.empty())
    return "the rule `" + rule.rule + "` has a messageExpression, which is not evaluated";
  if (!rule.field_path.empty() &&
      (rule.field_path.front() != '.' || rule.field_path.find_first_of("['") != std::string::npos))
    return "the rule `" + rule.rule + "` has a fieldPath other than .a.b: " + rule.field_path;
  if (rule.optional_old_self && evaluator->when == CelWhen::kUpdateOnly)
    return "the rule `" + rule.rule + "` sets optionalOldSelf, so it runs on CREATE too";
  return "";
}

void validate_cel_create(const CrdSchema& schema, JsonView v, const field::Path& path,
                         field::ErrorList& errs) {
  // A null is no value (validation.go validate: obj == nil), and a subtree without rules is not
  // walked: a pod template's thousands of labels cost nothing here.
  if (!schema.cel_below || v.type() == element_type::NULL_VALUE) return;
  check_rules(schema, v, path, errs);
  if (v.type() == element_type::ARRAY) {
    if (schema.items == nullptr || !schema.items->cel_below) return;
    std::size_t i = 0;
    for (const JsonView item : JsonArrayView(v))
      validate_cel_create(*schema.items, item, path.index(i++), errs);
    return;
  }
  if (v.type() != element_type::OBJECT) return;
  // Go visits the keys in map order, additionalProperties' before properties'; here in the
  // object's order.
  if (schema.additional_properties != nullptr && schema.additional_properties->cel_below) {
    for (const auto [key, child] : JsonObjectView(v))
      validate_cel_create(*schema.additional_properties, child, path.key(key), errs);
  }
  if (schema.properties.empty()) return;
  for (const auto [key, child] : JsonObjectView(v)) {
    if (const CrdSchema* sub = schema.property(key); sub != nullptr && sub->cel_below)
      validate_cel_create(*sub, child, path.child(key), errs);
  }
}

}  // namespace jobset_webhook::validation

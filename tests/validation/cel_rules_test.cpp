// The CRD's CEL rules come from the schema table: each has a registered evaluator, and a failed
// rule is reported with the table's message, field path and reason (apiextensions-apiserver
// v0.36 pkg/apiserver/schema/cel/validation.go, validateExpressions and fieldErrorForReason).

#include <catch2/catch.hpp>

#include <set>

#include "support/parsed.h"
#include "validation/cel_rules.h"
#include "validation/crd_schema.h"

namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::field::Path;
using jobset_webhook::field::to_string;
using jobset_webhook::testing::Parsed;

namespace {

const std::string kStartupRule =
    "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
    "self.replicatedJobs.exists(x, has(x.dependsOn)))";

// A rule as the table would hold it.
v::CelRule cel(std::string rule, std::string message = "", std::string message_expression = "",
               std::string reason = "", std::string field_path = "",
               bool optional_old_self = false) {
  return {std::move(rule),   std::move(message),    std::move(message_expression),
          std::move(reason), std::move(field_path), optional_old_self};
}

// Every rule of the table with the path of a node that holds it.
void collect_rules(const v::CrdSchema& node, const std::string& path,
                   std::set<const v::CrdSchema*>& seen,
                   std::vector<std::pair<std::string, v::CelRule>>& out) {
  if (!seen.insert(&node).second) return;
  for (const auto& rule : node.cel_rules) out.emplace_back(path, rule);
  for (const auto& [name, child] : node.properties)
    collect_rules(*child, path + "." + name, seen, out);
  if (node.items != nullptr) collect_rules(*node.items, path + "[]", seen, out);
  if (node.additional_properties != nullptr)
    collect_rules(*node.additional_properties, path + "{}", seen, out);
}

// A spec-like node holding one rule, whose evaluator fails on `spec`.
v::CrdSchema node_with(v::CelRule rule, std::string type = "object") {
  v::CrdSchema node;
  node.type = std::move(type);
  node.cel_rules.push_back(std::move(rule));
  node.cel_below = true;
  return node;
}

const Json kInOrderWithDeps = {
    {"startupPolicy", {{"startupPolicyOrder", "InOrder"}}},
    {"replicatedJobs", {{{"name", "a"}}, {{"name", "b"}, {"dependsOn", {{{"name", "a"}}}}}}}};

std::string errors_of(const v::CrdSchema& node, const Json& value) {
  const Parsed p(value);
  jobset_webhook::field::ErrorList errs;
  v::validate_cel_create(node, p, Path("spec"), errs);
  return to_string(errs);
}

}  // namespace

TEST_CASE("Every CEL rule of the schema table has a registered evaluator", "[validation][cel]") {
  std::set<const v::CrdSchema*> seen;
  std::vector<std::pair<std::string, v::CelRule>> rules;
  collect_rules(v::crd_schema(), "", seen, rules);
  // v0.12.0's CRD: seven nodes with `self == oldSelf`, spec's and a VolumeClaimPolicy's rule.
  CHECK(rules.size() == 8);
  for (const auto& [path, rule] : rules) {
    INFO(path << ": " << rule.rule);
    CHECK(v::cel_rule_problem(rule).empty());
  }
  CHECK(v::crd_schema_at("spec")->cel_rules.at(0).rule == kStartupRule);
  CHECK(v::crd_schema_at("spec")->cel_rules.at(0).message ==
        "StartupPolicy and DependsOn APIs are mutually exclusive");
  CHECK(v::crd_schema_at("spec.network")->cel_rules.at(0).rule == "self == oldSelf");
  // What would make the test above fail: a rule text with no evaluator, one that differs from
  // a registered one by a single space, a messageExpression the core cannot evaluate.
  CHECK_FALSE(v::cel_rule_problem(cel("self.x > 0")).empty());
  CHECK_FALSE(v::cel_rule_problem(cel(kStartupRule + " ")).empty());
  CHECK_FALSE(v::cel_rule_problem(cel(kStartupRule, "", "'no: ' + self.x")).empty());
  CHECK_FALSE(v::cel_rule_problem(cel("self == oldSelf", "", "", "", "", true)).empty());
}

TEST_CASE("A failed CEL rule is reported as the table says", "[validation][cel]") {
  SECTION("the message, at the node, the value of an object omitted") {
    CHECK(errors_of(node_with(cel(kStartupRule, "  mutually exclusive\n")), kInOrderWithDeps) ==
          "spec: Invalid value: mutually exclusive");
  }
  SECTION("without a message, the rule") {
    CHECK(errors_of(node_with(cel(kStartupRule)), kInOrderWithDeps) ==
          "spec: Invalid value: failed rule: " + kStartupRule);
  }
  SECTION("fieldPath and reason") {
    CHECK(errors_of(node_with(cel(kStartupRule, "no", "", "FieldValueForbidden", ".startupPolicy")),
                    kInOrderWithDeps) == "spec.startupPolicy: Forbidden: no");
    CHECK(errors_of(node_with(cel(kStartupRule, "no", "", "FieldValueRequired")),
                    kInOrderWithDeps) == "spec: Required value: no");
  }
  SECTION("a rule that holds adds nothing") {
    CHECK(
        errors_of(node_with(cel(kStartupRule, "no")), {{"replicatedJobs", Json::array()}}).empty());
  }
  SECTION("a rule that reads an absent field does not evaluate: the node's type, the message") {
    CHECK(errors_of(node_with(cel(kStartupRule, "clash")),
                    {{"startupPolicy", {{"startupPolicyOrder", "InOrder"}}}}) ==
          "spec: Invalid value: \"object\": no such key: replicatedJobs evaluating rule: clash");
    CHECK(errors_of(node_with(cel(kStartupRule, "", "", "", ".startupPolicy")),
                    {{"startupPolicy", {{"startupPolicyOrder", "InOrder"}}}}) ==
          "spec: Invalid value: \"object\": no such key: replicatedJobs evaluating rule: " +
              kStartupRule);
  }
  SECTION("a transition rule is not run on CREATE") {
    CHECK(errors_of(node_with(cel("self == oldSelf", "Value is immutable")), kInOrderWithDeps)
              .empty());
  }
}

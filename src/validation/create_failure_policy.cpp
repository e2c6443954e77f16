// R12: spec.failurePolicy on CREATE (upstream's validateFailurePolicy).

#include <algorithm>
#include <array>
#include <unordered_map>

#include "create_internal.h"

namespace jobset_webhook::validation {
namespace {

constexpr std::size_t kMinRuleNameLength = 1;
constexpr std::size_t kMaxRuleNameLength = 128;

// The reasons a batch/v1 Job's Failed condition can carry (SuccessPolicy is a success reason).
constexpr std::array<std::string_view, 5> kValidOnJobFailureReasons = {
    "BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded",
    "PodFailurePolicy"};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_word(char c) { return is_letter(c) || (c >= '0' && c <= '9') || c == '_'; }

// ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$
bool is_rule_name(std::string_view name) {
  if (name.empty() || !is_letter(name.front())) return false;
  if (name.size() == 1) return true;
  if (!is_word(name.back())) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [](char c) { return is_word(c) || c == ',' || c == ':'; });
}

// Go's %v of a []int: "[0 1]".
std::string go_int_list(const std::vector<std::size_t>& ints) {
  std::string out = "[";
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
  // `const char* + std::string` here, which -Werror turns into a failed release build.
  for (std::size_t i = 0; i < ints.size(); ++i) {
    if (i > 0) out += ' ';
    out += std::to_string(ints[i]);
  }
  out += ']';
  return out;
}

}  // namespace

bool is_restart_job_action(std::string_view action) {
  return action == "RestartJob" || action == "RestartJobAndIgnoreMaxRestarts";
}

void validate_failure_policy(const CreateInput& in, field::ErrorList& errs) {
  const auto rules = items_of(at(in.spec, {"failurePolicy", "rules"}));
  const bool has_restart_job = std::any_of(rules.begin(), rules.end(), [](JsonView rule) {
    return is_restart_job_action(string_or_empty(member(rule, "action")));
  });
  if (has_restart_job) {
    const auto rules_path = field::Path("spec").child("failurePolicy", "rules");
    const auto first_restart_job = static_cast<std::size_t>(
        std::find_if(rules.begin(), rules.end(),
                     [](JsonView rule) {
                       return is_restart_job_action(string_or_empty(member(rule, "action")));
                     }) -
        rules.begin());
    if (!in.policy.feature_gates.restart_job) {
      // Upstream stops here: the other failure-policy checks do not run.
      errs.push_back(
          plain_error("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are "
                      "not allowed when RestartJob "
                      "feature gate is disabled",
                      rules_path.index(first_restart_job).child("action")));
      return;
    }
    const auto too_many = std::find_if(
        in.replicated_jobs.begin(), in.replicated_jobs.end(),
        [](JsonView rjob) { return replicated_job_replicas(rjob) > kMaxReplicasPerReplicatedJob; });
    if (too_many != in.replicated_jobs.end()) {
      errs.push_back(
          plain_error(std::string(kRestartJobTooManyReplicas),
                      field::Path("spec")
                          .child("replicatedJobs")
                          .index(static_cast<std::size_t>(too_many - in.replicated_jobs.begin()))
                          .child("replicas")));
    }
  }

  // Names in order of first use, with the indices of the rules that use them. Upstream walks a Go
  // map here, so its order across several repeated names is random; first use is ours.
  std::vector<std::pair<std::string_view, std::vector<std::size_t>>> by_name;
  std::unordered_map<std::string_view, std::size_t> position;  // name -> its entry in by_name
  const auto rule_path = [](std::size_t i) {
    return field::Path("spec").child("failurePolicy", "rules").index(i);
  };
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto name = string_or_empty(member(rules[i], "name"));
    if (name.size() < kMinRuleNameLength || name.size() > kMaxRuleNameLength) {
      errs.push_back(plain_error(
          "invalid failure policy rule name of length " + std::to_string(name.size()) +
              ", the rule name must be at least 1 characters long and at most 128 characters long",
          rule_path(i).child("name")));
    }
    if (const auto [it, added] = position.emplace(name, by_name.size()); added) {
      by_name.push_back({name, {i}});
    } else {
      by_name[it->second].second.push_back(i);
    }
    if (!is_rule_name(name)) {
      errs.push_back(plain_error(
          "invalid failure policy rule name '" + std::string(name) +
              "', a failure policy rule name must start with an alphabetic character, optionally "
              "followed by a string of "
              "alphanumeric characters or '_,:', and must end with an alphanumeric character or "
              "'_'",
          rule_path(i).child("name")));
    }
    const auto targets = items_of(member(rules[i], "targetReplicatedJobs"));
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const auto target_name = string_or_empty(targets[t]);
      if (!in.replicated_job_names.contains(target_name)) {
        errs.push_back(
            plain_error("invalid replicatedJob name '" + std::string(target_name) +
                            "' in failure policy does not appear in .spec.ReplicatedJobs",
                        rule_path(i).child("targetReplicatedJobs").index(t)));
      }
    }
    const auto reasons = items_of(member(rules[i], "onJobFailureReasons"));
    for (std::size_t r = 0; r < reasons.size(); ++r) {
      const auto reason_text = string_or_empty(reasons[r]);
      if (std::find(kValidOnJobFailureReasons.begin(), kValidOnJobFailureReasons.end(),
                    reason_text) == kValidOnJobFailureReasons.end()) {
        errs.push_back(plain_error("invalid job failure reason '" + std::string(reason_text) +
                                       "' in failure policy is not a recognized job failure reason",
                                   rule_path(i).child("onJobFailureReasons").index(r)));
      }
    }
  }
  for (const auto& [name, indices] : by_name) {
    if (indices.size() > 1) {
      // At the second rule that repeats the name.
      errs.push_back(plain_error("rule names are not unique, rules with indices " +
                                     go_int_list(indices) + " all have the same name '" +
                                     std::string(name) + "'",
                                 rule_path(indices[1]).child("name")));
    }
  }
}

}  // namespace jobset_webhook::validation

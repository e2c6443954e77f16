// `check`, `validate` and `default`: arguments in, manifests read, the report or the YAML out.
// Anything that keeps the decision from being made ends here as exit code 2 with one line on
// stderr.

#include <algorithm>
#include <iostream>

#include "jobset_webhook/cli/check.h"
#include "jobset_webhook/cli/cluster_defaults.h"
#include "jobset_webhook/cli/commands.h"
#include "jobset_webhook/cli/documents.h"
#include "jobset_webhook/cli/manifests.h"
#include "jobset_webhook/cli/report.h"

namespace jobset_webhook::cli {
namespace {

int unusable(std::string_view command, const Failure& failure) {
  std::cerr << "jobset-webhook " << command << ": " << failure.message << "\n";
  return kExitUnusableInput;
}

Result<Policy> policy_from(const std::string& config) {
  if (config.empty()) return Policy{};
  return load_policy_file(config);
}

// stdin can be read once.
std::optional<Failure> stdin_once(const std::vector<const std::vector<std::string>*>& path_lists) {
  std::size_t uses = 0;
  for (const auto* paths : path_lists)
    uses += static_cast<std::size_t>(std::count(paths->begin(), paths->end(), "-"));
  if (uses > 1) return Failure{400, "- (stdin) can be given once only"};
  return std::nullopt;
}

int emit(const Result<Report>& report, std::string_view command, const std::string& format_name) {
  if (!report.ok()) return unusable(command, report.failure());
  const auto format = parse_format(format_name);
  if (!format) return unusable(command, Failure{400, "unknown format " + format_name});
  std::cout << render(report.value(), *format) << std::flush;
  return report.value().denied() == 0 ? kExitOk : kExitDenied;
}

}  // namespace

int check(const CheckOptions& options) {
  if (auto problem = stdin_once({&options.old_paths, &options.new_paths}))
    return unusable("check", *problem);
  const auto policy = policy_from(options.config);
  if (!policy.ok()) return unusable("check", policy.failure());
  const auto old_side = load_manifests(options.old_paths);
  if (!old_side.ok()) return unusable("check", old_side.failure());
  const auto new_side = load_manifests(options.new_paths);
  if (!new_side.ok()) return unusable("check", new_side.failure());
  const auto field_validation = parse_field_validation(options.field_validation);
  if (!field_validation) {
    return unusable("check", Failure{400, "unknown field validation " + options.field_validation});
  }
  return emit(
      check_manifests(old_side.value(), new_side.value(), policy.value(), *field_validation),
      "check", options.format);
}

int validate(const ValidateOptions& options) {
  if (auto problem = stdin_once({&options.paths})) return unusable("validate", *problem);
  const auto policy = policy_from(options.config);
  if (!policy.ok()) return unusable("validate", policy.failure());
  const auto manifests = load_manifests(options.paths);
  if (!manifests.ok()) return unusable("validate", manifests.failure());
  const auto field_validation = parse_field_validation(options.field_validation);
  if (!field_validation) {
    return unusable("validate",
                    Failure{400, "unknown field validation " + options.field_validation});
  }
  return emit(validate_manifests(manifests.value(), policy.value(), *field_validation), "validate",
              options.format);
}

int print_defaults(const DefaultOptions& options) {
  if (auto problem = stdin_once({&options.paths})) return unusable("default", *problem);
  const auto policy = policy_from(options.config);
  if (!policy.ok()) return unusable("default", policy.failure());
  const auto manifests = load_manifests(options.paths);
  if (!manifests.ok()) return unusable("default", manifests.failure());
  const auto field_validation = parse_field_validation(options.field_validation);
  if (!field_validation) {
    return unusable("default",
                    Failure{400, "unknown field validation " + options.field_validation});
  }
  std::string out;
  for (const auto& js : manifests.value().jobsets) {
    // The fields the CRD does not declare: refused (Strict), or pruned, as the API server does.
    Json object = js.object;
    const auto unknown = prune_unknown_fields(object);
    if (!unknown.ok()) return unusable("default", unknown.failure());
    std::string messages;
    for (const auto& field : unknown.value()) {
      const std::string message = validation::unknown_field_message(field);
      messages += (messages.empty() ? "" : ", ") + message;
      if (*field_validation == FieldValidation::kWarn)
        std::cerr << "jobset-webhook default: " << js.where().to_string()
                  << ": warning: " << message << "\n";
    }
    if (!messages.empty() && *field_validation == FieldValidation::kStrict) {
      return unusable("default",
                      Failure{400, js.where().to_string() + ": JobSet " + js.display_name() +
                                       ": strict decoding error: " + messages});
    }
    auto stored = cluster_defaults(object, policy.value());
    if (!stored.ok()) {
      return unusable("default",
                      Failure{400, js.where().to_string() + ": JobSet " + js.display_name() + ": " +
                                       stored.failure().message});
    }
    out += "---\n" + to_yaml(stored.value());
  }
  std::cout << out << std::flush;
  if (!manifests.value().skipped.empty()) {
    std::cerr << "jobset-webhook default: " << manifests.value().skipped.size()
              << " objects that are not JobSets left out\n";
  }
  return kExitOk;
}

}  // namespace jobset_webhook::cli

// `check`, `validate` and `default`: arguments in, manifests read, the report or the YAML out.
// Anything that keeps the decision from being made ends here as exit code 2 with one line on
// stderr.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>

#include "check.h"
#include "jobset_webhook/apiserver/apiserver.h"
#include "jobset_webhook/cli/commands.h"
#include "documents.h"
#include "flags_internal.h"
#include "git_source.h"
#include "kustomize.h"
#include "kustomize_side.h"
#include "manifests.h"
#include "report.h"

namespace jobset_webhook::cli {
namespace {

// The files as they are here, kustomizations rendered in place.
const SideOnDisk kWorkingTree{std::string(), std::string()};

int unusable(std::string_view command, const Failure& failure) {
  std::cerr << "jobset-webhook " << command << ": " << failure.message << "\n";
  return exit_code(failure);
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
  if (uses > 1) return invalid_argument("- (stdin) can be given once only");
  return std::nullopt;
}

int emit(const Result<Report>& report, std::string_view command, const std::string& format_name) {
  if (!report.ok()) return unusable(command, report.failure());
  const auto format = parse_format(format_name);
  if (!format) return unusable(command, invalid_argument("unknown format " + format_name));
  std::cout << render(report.value(), *format) << std::flush;
  return report.value().denied() == 0 ? kExitOk : kExitDenied;
}

}  // namespace

namespace {

// Which flags check takes together: --old and --new, or --base and paths.
std::optional<Failure> check_usage(const CheckOptions& options) {
  if (!options.base.empty()) {
    if (!options.old_paths.empty() || !options.new_paths.empty())
      return invalid_argument(
          "--base compares PATHs at REF with the working tree: no --old or --new");
    if (options.paths.empty())
      return invalid_argument("--base needs the PATHs to compare (files or directories, e.g. .)");
    return std::nullopt;
  }
  if (!options.paths.empty())
    return invalid_argument("PATHs are for --base REF; give --old and --new otherwise");
  if (options.old_paths.empty())
    return invalid_argument("--old is required (or --base REF PATH...)");
  if (options.new_paths.empty())
    return invalid_argument("--new is required (or --base REF PATH...)");
  return std::nullopt;
}

// The working tree against a commit: a path that no longer exists there holds nothing (its
// JobSets are deleted), as a path that did not exist at the commit holds nothing there.
// Links may lead anywhere in the repository, as on the side of the commit.
class WorkingTree : public FileSystem {
 public:
  explicit WorkingTree(std::string top_level) : FileSystem(std::move(top_level)) {}
  Result<Expanded> expand(const std::string& path) const override {
    std::error_code ec;
    if (path != "-" && !std::filesystem::exists(path, ec) && !ec) return Expanded{};
    return FileSystem::expand(path);
  }
};

// A path in neither the working tree nor the commit is a mistake, not an empty side.
std::optional<Failure> missing_on_both_sides(const std::vector<std::string>& paths,
                                             const FileSource& at_base, const std::string& ref) {
  for (const auto& path : paths) {
    std::error_code ec;
    if (path == "-" || std::filesystem::exists(path, ec)) continue;
    auto files = at_base.expand(path);
    if (!files.ok()) return files.failure();
    if (files.value().files.empty() && files.value().notes.empty())
      return invalid_argument(path + ": No such file or directory, here or at " + ref);
  }
  return std::nullopt;
}

// True when a file of paths at ref is a kustomization: then the base is exported for kustomize.
Result<bool> kustomization_at(const std::string& ref, const std::vector<std::string>& paths) {
  std::vector<std::string> listed;
  for (const auto& path : paths) {
    if (path != "-") listed.push_back(path);
  }
  if (listed.empty()) return false;
  auto names = files_at(ref, listed);
  if (!names.ok()) return names.failure();
  return std::any_of(names.value().begin(), names.value().end(), is_kustomization_file_name);
}

// What check compares: the files of --old with those of --new, or the PATHs at --base REF with
// the same PATHs in the working tree, kustomizations rendered on both sides (kustomize_side.h).
// Every other flag applies to both forms alike.
Result<std::pair<Manifests, Manifests>> sides_of(const CheckOptions& options) {
  if (options.base.empty()) {
    auto old_side = load_with_kustomize(options.old_paths, FileSystem(), Unreadable::kFail,
                                        kWorkingTree, options.kustomize);
    if (!old_side.ok()) return old_side.failure();
    auto new_side = load_with_kustomize(options.new_paths, FileSystem(), Unreadable::kFail,
                                        kWorkingTree, options.kustomize);
    if (!new_side.ok()) return new_side.failure();
    return std::pair{std::move(old_side).value(), std::move(new_side).value()};
  }
  const auto at_base = git_source(options.base);
  if (!at_base.ok()) return at_base.failure();
  if (auto problem = missing_on_both_sides(options.paths, *at_base.value(), options.base))
    return *problem;
  // kustomize reads files itself: when either side has a kustomization, the commit is exported
  // whole (bases and components may be anywhere in the repository), and removed once rendered.
  std::optional<TemporaryDirectory> export_dir;
  SideOnDisk at_base_on_disk{std::nullopt, options.base + ":"};
  const auto has_kustomization = kustomization_at(options.base, options.paths);
  if (!has_kustomization.ok()) return has_kustomization.failure();
  // A file PATH of a kustomize tree stands for its kustomization at REF too.
  if (has_kustomization.value() || holds_kustomization(options.paths)) {
    auto created = TemporaryDirectory::create();
    if (!created.ok()) return created.failure();
    export_dir.emplace(std::move(created).value());
    auto root = export_commit(options.base, export_dir->path());
    if (!root.ok()) return root.failure();
    at_base_on_disk.root = root.value();
  }
  // A file the base cannot read is a note, so that a change can repair it.
  auto old_side = load_with_kustomize(options.paths, *at_base.value(), Unreadable::kNote,
                                      at_base_on_disk, options.kustomize);
  if (!old_side.ok()) return old_side.failure();
  const auto top_level = git_top_level();
  if (!top_level.ok()) return top_level.failure();
  auto new_side = load_with_kustomize(options.paths, WorkingTree(top_level.value()),
                                      Unreadable::kFail, kWorkingTree, options.kustomize);
  if (!new_side.ok()) return new_side.failure();
  return std::pair{std::move(old_side).value(), std::move(new_side).value()};
}

}  // namespace

int check(const CheckOptions& options) {
  if (auto problem = check_usage(options)) return unusable("check", *problem);
  if (auto problem = stdin_once({&options.old_paths, &options.new_paths, &options.paths}))
    return unusable("check", *problem);
  const auto policy = policy_from(options.config);
  if (!policy.ok()) return unusable("check", policy.failure());
  const auto field_validation = parse_field_validation(options.field_validation);
  if (!field_validation) {
    return unusable("check",
                    invalid_argument("unknown field validation " + options.field_validation));
  }
  const auto sides = sides_of(options);
  if (!sides.ok()) return unusable("check", sides.failure());
  const auto& [old_side, new_side] = sides.value();
  return emit(check_manifests(old_side, new_side, policy.value(), *field_validation), "check",
              options.format);
}

int validate(const ValidateOptions& options) {
  if (auto problem = stdin_once({&options.paths})) return unusable("validate", *problem);
  const auto policy = policy_from(options.config);
  if (!policy.ok()) return unusable("validate", policy.failure());
  const auto manifests = load_with_kustomize(options.paths, FileSystem(), Unreadable::kFail,
                                             kWorkingTree, options.kustomize);
  if (!manifests.ok()) return unusable("validate", manifests.failure());
  const auto field_validation = parse_field_validation(options.field_validation);
  if (!field_validation) {
    return unusable("validate",
                    invalid_argument("unknown field validation " + options.field_validation));
  }
  return emit(validate_manifests(manifests.value(), policy.value(), *field_validation), "validate",
              options.format);
}

int print_defaults(const DefaultOptions& options) {
  if (auto problem = stdin_once({&options.paths})) return unusable("default", *problem);
  const auto policy = policy_from(options.config);
  if (!policy.ok()) return unusable("default", policy.failure());
  const auto manifests = load_with_kustomize(options.paths, FileSystem(), Unreadable::kFail,
                                             kWorkingTree, options.kustomize);
  if (!manifests.ok()) return unusable("default", manifests.failure());
  const auto field_validation = parse_field_validation(options.field_validation);
  if (!field_validation) {
    return unusable("default",
                    invalid_argument("unknown field validation " + options.field_validation));
  }
  std::string out;
  std::size_t left_out = manifests.value().skipped.size();
  for (const auto& js : manifests.value().jobsets) {
    // A scaler has no defaults of ours to show.
    if (js.kind != kJobSetKindName) {
      ++left_out;
      continue;
    }
    // The fields the CRD does not declare: refused (Strict), or pruned, as the API server does.
    Json object = js.object;
    const auto unknown = apiserver::prune_unknown_fields(object);
    if (!unknown.ok()) return unusable("default", unknown.failure());
    std::string messages;
    for (const auto& field : unknown.value()) {
      const std::string message = apiserver::unknown_field_message(field);
      messages += (messages.empty() ? "" : ", ") + message;
      if (*field_validation == FieldValidation::kWarn)
        std::cerr << "jobset-webhook default: " << js.where().to_string()
                  << ": warning: " << message << "\n";
    }
    if (!messages.empty() && *field_validation == FieldValidation::kStrict) {
      return unusable(
          "default",
          invalid_argument(js.where().to_string() + ": JobSet " + js.display_name() + ": " +
                           std::string(apiserver::kStrictCreatePrefix) + messages));
    }
    auto stored = apiserver::create_defaults(object);
    if (!stored.ok()) {
      return unusable("default",
                      invalid_argument(js.where().to_string() + ": JobSet " + js.display_name() +
                                       ": " + stored.failure().message));
    }
    out += "---\n" + to_yaml(stored.value());
  }
  std::cout << out << std::flush;
  for (const auto& note : manifests.value().notes) {
    std::cerr << "jobset-webhook default: " << note.where.to_string() << ": note: " << note.text
              << "\n";
  }
  if (left_out > 0) {
    std::cerr << "jobset-webhook default: " << left_out
              << " objects that are not JobSets left out\n";
  }
  return kExitOk;
}

Command add_check_command(CLI::App& app) {
  auto options = std::make_shared<CheckOptions>();
  CheckOptions& o = *options;
  auto* cmd =
      app.add_subcommand("check",
                         "Check a change of JobSet manifests offline, as the cluster would admit "
                         "it (exit 0 allowed, 1 denied, 2 unusable input)");
  cmd->add_option("--old", o.old_paths, std::string("Manifests before the change: ") + kPathHelp);
  cmd->add_option("--new", o.new_paths, std::string("Manifests after the change: ") + kPathHelp);
  cmd->add_option("--base", o.base,
                  "Instead of --old and --new: compare PATHs as they are at this git "
                  "revision (read with git, nothing checked out) with the working tree");
  cmd->add_option("paths", o.paths,
                  "With --base: files or directories, relative to the current directory");
  cmd->add_option("--config", o.config, "Policy file (YAML or JSON)");
  add_kustomize_flag(cmd, o.kustomize);
  add_format_flag(cmd, o.format);
  add_field_validation_flag(cmd, o.field_validation);
  return {cmd, [options] { return check(*options); }};
}

Command add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  ValidateOptions& o = *options;
  auto* cmd = app.add_subcommand(
      "validate",
      "Check JobSet manifests with the CREATE rules (exit 0 allowed, 1 denied, 2 unusable input)");
  cmd->add_option("paths", o.paths, std::string("Manifests: ") + kPathHelp)->required();
  cmd->add_option("--config", o.config, "Policy file (YAML or JSON)");
  add_format_flag(cmd, o.format);
  add_field_validation_flag(cmd, o.field_validation);
  add_kustomize_flag(cmd, o.kustomize);
  return {cmd, [options] { return validate(*options); }};
}

Command add_default_command(CLI::App& app) {
  auto options = std::make_shared<DefaultOptions>();
  DefaultOptions& o = *options;
  auto* cmd = app.add_subcommand(
      "default", "Print JobSet manifests as the cluster would store them, defaults applied (YAML)");
  cmd->add_option("paths", o.paths, std::string("Manifests: ") + kPathHelp)->required();
  cmd->add_option("--config", o.config, "Policy file (YAML or JSON)");
  add_field_validation_flag(cmd, o.field_validation);
  add_kustomize_flag(cmd, o.kustomize);
  return {cmd, [options] { return print_defaults(*options); }};
}

}  // namespace jobset_webhook::cli

#include "check.h"

#include <charconv>
#include <map>
#include <optional>
#include <utility>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/apiserver/apiserver.h"
#include "jobset_webhook/json_pointer.h"
#include "check_scaler.h"
#include "pairing.h"
#include "jobset_webhook/decide.h"
#include "jobset_webhook/json_access.h"

namespace jobset_webhook::cli {
namespace {

// A JobSet as the cluster would store it, with the manifest it came from and the fields the
// API server pruned from it.
struct Stored {
  const JobSetManifest* manifest;
  Json object;
  std::vector<apiserver::UnknownField> unknown;
};

Result<Stored> stored_form(const JobSetManifest& manifest) {
  auto stored = apiserver::store(manifest.object);
  if (!stored.ok()) {
    return Failure{stored.failure().code, manifest.where().to_string() + ": JobSet " +
                                              manifest.display_name() + ": " +
                                              stored.failure().message};
  }
  return Stored{&manifest, std::move(stored.value().object), std::move(stored.value().unknown)};
}

// Where the field at tokens is written, or its nearest written ancestor.
Location locate_tokens(const JobSetManifest& manifest, std::vector<std::string> tokens) {
  for (;;) {
    const auto it = manifest.marks.find(json_pointer(tokens));
    if (it != manifest.marks.end()) return {manifest.file, it->second.line, it->second.column};
    if (tokens.empty()) return manifest.where();
    tokens.pop_back();
  }
}

// With Strict, what the API server answers a JobSet holding unknown fields, before any webhook:
// runtime.NewStrictDecodingError's "strict decoding error: " and the errors joined by ", "
// (apimachinery pkg/runtime/error.go), wrapped as the request carried the object (apiserver
// v0.37.2, pkg/endpoints/handlers):
// - a create (kubectl create, or apply of a new object): a 400 whose message is `JobSet in
//   version "v1alpha2" cannot be handled as a JobSet: strict decoding error: ...`
//   (transformDecodeError in rest.go); kubectl prints it after `error when creating "<file>": `;
// - an apply of an existing object (a merge patch): a 422 with the one cause `patch: Invalid
//   value: "<the patched object as JSON>": strict decoding error: ...` (patch.go,
//   applyPatchToCurrentObject), which kubectl prints as `The request is invalid: patch: ...`.
//   check writes the object as "{...}".
// One finding per field, at its line, in the same words. True when it refused.
bool refuse_unknown(const Stored& js, FieldValidation field_validation, JobSetResult& result) {
  if (js.unknown.empty()) return false;
  const bool create = result.change == Change::kCreate;
  const std::string create_prefix(apiserver::kStrictCreatePrefix);
  const auto patch = [](const std::string& detail) {
    return field::invalid(field::Path("patch"), field::BadValue::string("{...}"), detail);
  };
  std::string joined;
  for (const auto& field : js.unknown) {
    const std::string message = apiserver::unknown_field_message(field);
    if (field_validation == FieldValidation::kWarn) {
      result.warnings.push_back(message);
      result.warning_locations.push_back(locate_tokens(*js.manifest, field.tokens));
    }
    if (field_validation != FieldValidation::kStrict) continue;
    joined += (joined.empty() ? "" : ", ") + message;
    result.findings.push_back(
        {create ? field::forbidden(field::Path(field.path), create_prefix + message)
                : patch("strict decoding error: " + message),
         locate_tokens(*js.manifest, field.tokens), std::nullopt, std::nullopt});
  }
  if (field_validation != FieldValidation::kStrict) return false;
  result.allowed = false;
  result.message =
      create ? create_prefix + joined
             : "The request is invalid: " + patch("strict decoding error: " + joined).to_string();
  return true;
}

std::string replicated_job_name(const Json& js, std::size_t index) {
  const Json* name = find_path(js, {"spec", "replicatedJobs", std::to_string(index), "name"});
  return name != nullptr && name->is_string() ? name->get<std::string>() : std::string();
}

// The old side of a finding. replicatedJobs are matched by name, as the UPDATE rules match them,
// so an index in the path (the new one) is translated to the old list's.
OldValue old_value_of(const field::Error& error, const Json& old_js, const Json& new_js) {
  auto tokens = field_path_tokens(error.field);
  if (tokens.size() >= 3 && tokens[0] == "spec" && tokens[1] == "replicatedJobs") {
    std::size_t index = 0;
    if (std::from_chars(tokens[2].data(), tokens[2].data() + tokens[2].size(), index).ec ==
        std::errc()) {
      const std::string name = replicated_job_name(new_js, index);
      const Json* old_list = find_path(old_js, {"spec", "replicatedJobs"});
      std::optional<std::size_t> old_index;
      for (std::size_t i = 0;
           !old_index && old_list != nullptr && old_list->is_array() && i < old_list->size(); ++i) {
        if (replicated_job_name(old_js, i) == name) old_index = i;
      }
      if (!old_index) return {};
      tokens[2] = std::to_string(*old_index);
    }
  }
  const Json* value = find_path(old_js, tokens);
  if (value == nullptr) return {};
  return {true, field::BadValue::of(*value).printed()};
}

// Where a warning points: at its field (a scale warning: its ReplicatedJob's replicas); at the
// ReplicatedJob's name when the manifest leaves replicas to its default; a warning about the
// whole object at the object.
Location warning_location(const field::Warning& warning, const JobSetManifest& manifest) {
  if (warning.field.empty()) return manifest.where();
  if (auto at = manifest.mark_of(warning.field)) return *at;
  constexpr std::string_view kReplicas = ".replicas";
  const std::string_view field = warning.field;
  if (field.size() > kReplicas.size() && field.substr(field.size() - kReplicas.size()) == kReplicas)
    return manifest.locate(std::string(field.substr(0, field.size() - kReplicas.size())) + ".name");
  return manifest.locate(field);
}

Result<JobSetResult> judge(Change change, const Stored& js, const Stored* old_js,
                           const Policy& policy, FieldValidation field_validation) {
  JobSetResult result;
  result.change = change;
  result.namespace_name = js.manifest->namespace_name;
  result.name = js.manifest->name;
  result.generate_name = js.manifest->generate_name;
  result.where = js.manifest->where();
  if (refuse_unknown(js, field_validation, result)) return result;

  auto admitted = apiserver::admit(js.object, old_js != nullptr ? &old_js->object : nullptr,
                                   js.manifest->name, policy);
  if (!admitted.ok()) return admitted.failure();
  const Decision& decision = admitted.value();

  result.allowed = decision.allowed;
  if (!decision.allowed)
    result.message = admission::rejection_message(js.manifest->name, decision.errors);
  for (const auto& error : field::deduplicated(decision.errors)) {
    // An upstream error without a field points at the field that caused it.
    const std::string& at = error.origin.empty() ? error.field : error.origin;
    Finding finding{error, js.manifest->locate(at), std::nullopt, js.manifest->source_of(at)};
    // An error at no field ("<nil>") has no old value to show.
    if (old_js != nullptr && error.type == field::ErrorType::kInvalid && error.field != "<nil>") {
      finding.old_value = old_value_of(error, old_js->object, js.object);
    }
    result.findings.push_back(std::move(finding));
  }
  for (const auto& warning : decision.warnings) {
    result.warnings.push_back(warning.text);
    result.warning_locations.push_back(warning_location(warning, *js.manifest));
  }
  for (const auto& [text, where] : js.manifest->render_warnings) {
    result.warnings.push_back(text);
    result.warning_locations.push_back(where);
  }
  return result;
}

}  // namespace

std::optional<FieldValidation> parse_field_validation(std::string_view name) {
  if (name == "Strict") return FieldValidation::kStrict;
  if (name == "Warn") return FieldValidation::kWarn;
  if (name == "Ignore") return FieldValidation::kIgnore;
  return std::nullopt;
}

Result<Report> check_manifests(const Manifests& old_side, const Manifests& new_side,
                               const Policy& policy, FieldValidation field_validation) {
  if (auto duplicate = find_duplicate(old_side, "--old")) return *duplicate;
  if (auto duplicate = find_duplicate(new_side, "--new")) return *duplicate;
  Report report;
  report.command = "check";
  report.skipped = new_side.skipped;
  report.notes = old_side.notes;
  report.notes.insert(report.notes.end(), new_side.notes.begin(), new_side.notes.end());

  for (const auto& js : old_side.jobsets) {
    // A generateName JobSet gets a new name on every create: there is nothing to match it with.
    if (js.name.empty()) {
      report.skipped.push_back(
          {js.where(), string_at(&js.object, "apiVersion"), string_at(&js.object, "kind"), ""});
    }
  }
  for (const auto& pairing : pair_jobsets(old_side, new_side)) {
    if (pairing.new_js == nullptr) {
      const auto& js = *pairing.old_js;
      JobSetResult deleted;
      deleted.kind = js.kind;
      deleted.change = Change::kDelete;
      deleted.namespace_name = js.namespace_name;
      deleted.name = js.name;
      deleted.where = js.where();
      report.jobsets.push_back(std::move(deleted));
      continue;
    }
    if (pairing.new_js->kind == kScalerKindName) {
      auto judged = judge_scaler(pairing.old_js != nullptr ? Change::kUpdate : Change::kCreate,
                                 *pairing.new_js, pairing.old_js);
      if (!judged.ok()) return judged.failure();
      judged.value().note = pairing.note;
      report.jobsets.push_back(std::move(judged).value());
      continue;
    }
    auto stored = stored_form(*pairing.new_js);
    if (!stored.ok()) return stored.failure();
    std::optional<Stored> old_stored;
    if (pairing.old_js != nullptr) {
      auto old_form = stored_form(*pairing.old_js);
      if (!old_form.ok()) return old_form.failure();
      old_stored = std::move(old_form).value();
    }
    auto judged = judge(old_stored ? Change::kUpdate : Change::kCreate, stored.value(),
                        old_stored ? &*old_stored : nullptr, policy, field_validation);
    if (!judged.ok()) return judged.failure();
    judged.value().note = pairing.note;
    report.jobsets.push_back(std::move(judged).value());
  }
  return report;
}

Result<Report> validate_manifests(const Manifests& manifests, const Policy& policy,
                                  FieldValidation field_validation) {
  if (auto duplicate = find_duplicate(manifests, "the input")) return *duplicate;
  Report report;
  report.command = "validate";
  report.skipped = manifests.skipped;
  report.notes = manifests.notes;
  for (const auto& js : manifests.jobsets) {
    if (js.kind == kScalerKindName) {
      auto created = judge_scaler(Change::kCreate, js, nullptr);
      if (!created.ok()) return created.failure();
      report.jobsets.push_back(std::move(created).value());
      continue;
    }
    auto stored = stored_form(js);
    if (!stored.ok()) return stored.failure();
    auto created = judge(Change::kCreate, stored.value(), nullptr, policy, field_validation);
    if (!created.ok()) return created.failure();
    report.jobsets.push_back(std::move(created).value());
  }
  return report;
}

}  // namespace jobset_webhook::cli

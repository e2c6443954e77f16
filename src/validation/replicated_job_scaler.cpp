#include "jobset_webhook/validation/replicated_job_scaler.h"

#include <cstdint>
#include <optional>
#include <string>

#include "jobset_webhook/validation/update.h"
#include "names.h"

namespace jobset_webhook::validation {
namespace {

const field::Path kSpec("spec");

// The integer at spec.<name>, if it is one (the schema refuses other types before us).
std::optional<std::int64_t> integer_at(const Json& spec, const char* name) {
  const auto it = spec.find(name);
  if (it == spec.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

void check_name(const Json& spec, const char* name, field::ErrorList& errs) {
  const auto path = kSpec.child(name);
  const auto it = spec.find(name);
  if (it == spec.end() || !it->is_string() || it->get<std::string>().empty()) {
    errs.push_back(field::required(path, ""));
    return;
  }
  const auto value = it->get<std::string>();
  for (const auto& message : is_dns1035_label(value)) {
    errs.push_back(field::invalid(path, field::BadValue::string(value), message));
  }
}

void check_bounds(const Json& spec, field::ErrorList& errs) {
  const auto replicas = integer_at(spec, "replicas");
  const auto min = integer_at(spec, "minReplicas");
  const auto max = integer_at(spec, "maxReplicas");
  if (min && max && *min > *max) {
    errs.push_back(
        field::invalid(kSpec.child("minReplicas"), field::BadValue::integer(*min),
                       "must be less than or equal to maxReplicas (" + std::to_string(*max) + ")"));
    return;  // replicas cannot be within bounds that contradict each other
  }
  if (!replicas) return;
  if (min && *replicas < *min) {
    errs.push_back(field::invalid(
        kSpec.child("replicas"), field::BadValue::integer(*replicas),
        "must be greater than or equal to minReplicas (" + std::to_string(*min) + ")"));
  }
  if (max && *replicas > *max) {
    errs.push_back(
        field::invalid(kSpec.child("replicas"), field::BadValue::integer(*replicas),
                       "must be less than or equal to maxReplicas (" + std::to_string(*max) + ")"));
  }
}

// The scaler names one (JobSet, replicatedJob) for its whole life: its status and the JobSet's
// ownership of it would be wrong after a change.
void check_immutable(const Json& old_spec, const Json& spec, const char* name,
                     field::ErrorList& errs) {
  const auto before = old_spec.find(name);
  const auto after = spec.find(name);
  if (before == old_spec.end() || after == spec.end() || *before == *after) return;
  errs.push_back(
      field::invalid(kSpec.child(name), field::BadValue::of(*after), std::string(kFieldImmutable)));
}

}  // namespace

void apply_replicated_job_scaler_default(Json& scaler) {
  if (!scaler.is_object()) return;
  const auto spec = scaler.find("spec");
  if (spec != scaler.end() && spec->is_object() && !spec->contains("replicas"))
    (*spec)["replicas"] = 1;
}

field::ErrorList replicated_job_scaler_crd_rules(const Json& scaler) {
  field::ErrorList errs;
  const auto spec = scaler.is_object() ? scaler.find("spec") : scaler.end();
  if (spec == scaler.end() || !spec->is_object()) return errs;
  const auto replicas = integer_at(*spec, "replicas");
  const auto min = integer_at(*spec, "minReplicas");
  const auto max = integer_at(*spec, "maxReplicas");
  // Each rule of the CRD, in its order; CEL evaluates all of them.
  const auto fails = [&](bool holds, const char* message) {
    if (!holds) errs.push_back(field::invalid(kSpec, field::BadValue::omitted(), message));
  };
  fails(!min || !max || *min <= *max, "minReplicas must be less than or equal to maxReplicas");
  fails(!min || !replicas || *replicas >= *min,
        "replicas must be greater than or equal to minReplicas");
  fails(!max || !replicas || *replicas <= *max,
        "replicas must be less than or equal to maxReplicas");
  return errs;
}

field::ErrorList validate_replicated_job_scaler(const Json* old_scaler, const Json& scaler) {
  field::ErrorList errs;
  const auto spec = scaler.is_object() ? scaler.find("spec") : scaler.end();
  if (!scaler.is_object() || spec == scaler.end() || !spec->is_object()) {
    errs.push_back(field::required(kSpec, ""));
    return errs;
  }
  check_name(*spec, "jobSetName", errs);
  check_name(*spec, "replicatedJobName", errs);
  check_bounds(*spec, errs);
  if (old_scaler != nullptr && old_scaler->is_object()) {
    const auto old_spec = old_scaler->find("spec");
    if (old_spec != old_scaler->end() && old_spec->is_object()) {
      check_immutable(*old_spec, *spec, "jobSetName", errs);
      check_immutable(*old_spec, *spec, "replicatedJobName", errs);
    }
  }
  return errs;
}

}  // namespace jobset_webhook::validation

#include "jobset_webhook/validation/create.h"

#include "create_internal.h"
#include "names.h"
#include "quantity.h"

namespace jobset_webhook::validation {
namespace {

// Upstream replaces apimachinery's length message, which it finds by this text, with its own.
const std::string kDns1035TooLong = max_len_error(kDns1035LabelMaxLength);
constexpr std::string_view kSubdomainTooLong =
    ".spec.network.subdomain is too long, must be less than 63 characters";
constexpr std::string_view kGroupNameTooLong =
    ".spec.replicatedJob[].groupName is too long, must be less than 63 characters";
constexpr std::size_t kMaxManagedByLength = 63;

// IsDNS1035Label with upstream's message for the length error.
std::vector<std::string> dns1035_messages(std::string_view value, std::string_view too_long) {
  auto msgs = is_dns1035_label(value);
  for (auto& m : msgs) {
    if (m.find(kDns1035TooLong) != std::string::npos) m = std::string(too_long);
  }
  return msgs;
}

field::BadValue value_or_null(MaybeJson v) {
  return v ? field::BadValue::of(*v) : field::BadValue::null();
}

// R3: the subdomain names the headless Service, so it must be a DNS-1123 subdomain and a
// DNS-1035 label.
void validate_subdomain(MaybeJson spec, field::ErrorList& errs) {
  const MaybeJson network = member(spec, "network");
  const auto subdomain = string_or_empty(member(network, "subdomain"));
  if (!network || subdomain.empty()) return;
  const auto path = field::Path("spec").child("network", "subdomain");
  for (const auto& msg : is_dns1123_subdomain(subdomain)) {
    errs.push_back(field::invalid(path, field::BadValue::string(subdomain), msg));
  }
  for (const auto& msg : dns1035_messages(subdomain, kSubdomainTooLong)) {
    errs.push_back(field::invalid(path, field::BadValue::string(subdomain), msg));
  }
}

// R4: managedBy names the controller that owns the JobSet (MultiKueue).
void validate_managed_by(MaybeJson spec, field::ErrorList& errs) {
  const auto managed_by = string_of(member(spec, "managedBy"));
  if (!managed_by) return;
  const auto path = field::Path("spec").child("managedBy");
  for (auto& e : is_domain_prefixed_path(path, *managed_by)) errs.push_back(std::move(e));
  if (managed_by->size() > kMaxManagedByLength)
    errs.push_back(field::too_long(path, kMaxManagedByLength));
}

// R10: in-place restart keeps the pods, so the Job must never give up or replace them.
void validate_in_place_restart(JsonView rjob, const field::Path& path, field::ErrorList& errs) {
  const auto name = std::string(replicated_job_name(rjob));
  const MaybeJson spec = job_spec(rjob);
  const auto spec_path = path.child("template", "spec");
  const MaybeJson backoff = member(spec, "backoffLimit");
  if (integer_of(backoff) != kMaxInt32) {
    errs.push_back(field::invalid(
        spec_path.child("backoffLimit"), value_or_null(backoff),
        "replicatedJob " + name +
            ": must be set to 2147483647 (MaxInt32) when in-place restart is enabled"));
  }
  const MaybeJson replacement = member(spec, "podReplacementPolicy");
  if (string_of(replacement) != "Failed") {
    errs.push_back(field::invalid(
        spec_path.child("podReplacementPolicy"), value_or_null(replacement),
        "replicatedJob " + name + ": must be set to Failed when in-place restart is enabled"));
  }
  const MaybeJson completions = member(spec, "completions");
  const auto c = integer_of(completions), p = integer_of(member(spec, "parallelism"));
  if (!c || !p || wrap_int32(*c) != wrap_int32(*p)) {
    errs.push_back(field::invalid(spec_path.child("completions"), value_or_null(completions),
                                  "replicatedJob " + name +
                                      ": completions and parallelism must be set and equal to each "
                                      "other when in-place restart is enabled"));
  }
}

// R5 to R10 for one ReplicatedJob. Its own name is already in in.replicated_job_names.
void validate_replicated_job(const CreateInput& in, JsonView rjob, std::size_t index,
                             bool in_place_restart,
                             const std::unordered_set<std::string_view>& names_so_far,
                             field::ErrorList& errs) {
  const auto path = field::Path("spec").child("replicatedJobs").index(index);
  const auto name = replicated_job_name(rjob);
  const std::int32_t replicas = replicated_job_replicas(rjob);

  // R5: the controller counts pods in int32.
  if (pods_of(rjob, replicas) > kMaxInt32)
    errs.push_back(plain_error(replicas_times_parallelism_message(name), path.child("replicas")));

  // R6: the group name becomes a label and part of DNS names.
  const auto group_name = string_or_empty(member(rjob, "groupName"));
  for (const auto& msg : dns1035_messages(group_name, kGroupNameTooLong)) {
    errs.push_back(
        field::invalid(path.child("groupName"), field::BadValue::string(group_name), msg));
  }

  // R7: child Jobs are named <jobset>-<rjob>-<index>; the last index is the longest.
  const std::string job_name = longest_job_name(in.name, rjob, replicas);
  for (const auto& msg : dns1035_messages(job_name, kJobNameTooLong))
    errs.push_back(field::invalid(path.child("name"), field::BadValue::string(job_name), msg));

  // R8: pods of Indexed Jobs are named <job>-<pod index>-<5 random characters>. Upstream reports
  // the Job name as the value here too.
  if (const auto pod_name = longest_pod_name(job_name, rjob)) {
    for (const auto& msg : dns1035_messages(*pod_name, kPodNameTooLong))
      errs.push_back(field::invalid(path.child("name"), field::BadValue::string(job_name), msg));
  }

  // R9: a ReplicatedJob may depend only on itself or earlier ones (upstream allows itself).
  const auto deps = items_of(member(rjob, "dependsOn"));
  for (std::size_t d = 0; d < deps.size(); ++d) {
    const auto dep_name = string_or_empty(member(deps[d], "name"));
    if (!names_so_far.contains(dep_name)) {
      errs.push_back(plain_error("replicatedJob: " + std::string(name) +
                                     " cannot depend on replicatedJob: " + std::string(dep_name),
                                 path.child("dependsOn").index(d).child("name")));
    }
  }

  if (in_place_restart) validate_in_place_restart(rjob, path, errs);
}

}  // namespace

std::string replicas_times_parallelism_message(std::string_view replicated_job) {
  return "the product of replicas and parallelism must not exceed 2147483647 for replicatedJob '" +
         std::string(replicated_job) + "'";
}

std::int64_t pods_of(JsonView rjob, std::int64_t replicas) {
  const auto parallelism = integer_of(member(job_spec(rjob), "parallelism"));
  return std::int64_t(parallelism ? wrap_int32(*parallelism) : 1) *
         std::int64_t(wrap_int32(replicas));
}

std::string longest_job_name(std::string_view jobset, JsonView rjob, std::int64_t replicas) {
  // The subtraction is int32, as upstream's.
  return std::string(jobset) + "-" + std::string(replicated_job_name(rjob)) + "-" +
         std::to_string(wrap_int32(std::int64_t(wrap_int32(replicas)) - 1));
}

std::optional<std::string> longest_pod_name(std::string_view longest_job, JsonView rjob) {
  const MaybeJson spec = job_spec(rjob);
  const auto completions = integer_of(member(spec, "completions"));
  if (string_of(member(spec, "completionMode")) != "Indexed" || !completions) return std::nullopt;
  return std::string(longest_job) + "-" +
         std::to_string(wrap_int32(std::int64_t(wrap_int32(*completions)) - 1)) +
         std::string(kPodNameSuffix);
}

field::Error plain_error(std::string message, const field::Path& origin) {
  auto error = field::internal_error(field::Path(), message);
  if (!origin.empty()) error.origin = origin.to_string();
  return error;
}

std::string_view replicated_job_name(JsonView rjob) {
  return string_or_empty(member(rjob, "name"));
}

std::int32_t replicated_job_replicas(JsonView rjob) {
  return wrap_int32(integer_of(member(rjob, "replicas")).value_or(0));
}

MaybeJson job_spec(JsonView rjob) { return at(rjob, {"template", "spec"}); }

std::string name_for_validation(JsonView js) {
  const MaybeJson metadata = member(js, "metadata");
  const auto name = string_or_empty(member(metadata, "name"));
  if (!name.empty()) return std::string(name);
  const auto generate_name = string_or_empty(member(metadata, "generateName"));
  if (!generate_name.empty()) return simulated_generated_name(generate_name);
  return {};
}

field::ErrorList validate_create_rules(JsonView js, const Policy& policy) {
  // Upstream's webhook decodes the JobSet first: a quantity it cannot read is all it answers.
  field::ErrorList errs = validate_quantity_decoding(js);
  if (!errs.empty()) return errs;
  CreateInput in{member(js, "spec"), name_for_validation(js), {}, {}, policy};
  in.replicated_jobs = items_of(member(in.spec, "replicatedJobs"));

  // R1: the in-place restart strategy is alpha, behind its gate.
  const MaybeJson failure_policy = member(in.spec, "failurePolicy");
  const bool in_place_restart =
      string_of(member(failure_policy, "restartStrategy")) == "InPlaceRestart";
  if (!policy.feature_gates.in_place_restart && failure_policy && in_place_restart) {
    errs.push_back(
        plain_error("InPlaceRestart restart strategy cannot be set when InPlaceRestart feature "
                    "gate is disabled",
                    field::Path("spec").child("failurePolicy", "restartStrategy")));
  }

  // R2: the first ReplicatedJob has nothing to wait for. An explicit empty list counts, as a
  // non-nil slice does upstream.
  if (!in.replicated_jobs.empty() && member(in.replicated_jobs.front(), "dependsOn")) {
    errs.push_back(
        plain_error("DependsOn can't be set for the first ReplicatedJob",
                    field::Path("spec").child("replicatedJobs").index(0).child("dependsOn")));
  }

  validate_subdomain(in.spec, errs);
  validate_managed_by(in.spec, errs);

  for (std::size_t i = 0; i < in.replicated_jobs.size(); ++i) {
    in.replicated_job_names.insert(replicated_job_name(in.replicated_jobs[i]));
    validate_replicated_job(in, in.replicated_jobs[i], i,
                            policy.feature_gates.in_place_restart && in_place_restart,
                            in.replicated_job_names, errs);
  }

  // R11: success policy targets must exist.
  const auto targets = items_of(at(in.spec, {"successPolicy", "targetReplicatedJobs"}));
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const auto target_name = string_or_empty(targets[t]);
    if (!in.replicated_job_names.contains(target_name)) {
      errs.push_back(
          plain_error("invalid replicatedJob name '" + std::string(target_name) +
                          "' does not appear in .spec.ReplicatedJobs",
                      field::Path("spec").child("successPolicy", "targetReplicatedJobs").index(t)));
    }
  }

  if (failure_policy) validate_failure_policy(in, errs);
  if (member(in.spec, "coordinator")) validate_coordinator(in, errs);
  if (!items_of(member(in.spec, "volumeClaimPolicies")).empty())
    validate_volume_claim_policies(in, errs);
  return errs;
}

field::ErrorList validate_create(JsonView js, const Policy& policy) {
  auto errs = validate_create_schema(js);
  return errs.empty() ? validate_create_rules(js, policy) : errs;
}

}  // namespace jobset_webhook::validation

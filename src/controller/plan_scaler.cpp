#include "plan_scaler.h"

#include "jobset_webhook/json_access.h"
#include "object_cache.h"
#include "plan_scale_down.h"

namespace jobset_webhook::controller {
namespace {

constexpr const char* kReady = "Ready";
constexpr const char* kScalingLimited = "ScalingLimited";

std::int64_t generation_of(const Json& obj) {
  return integer_at(member(&obj, "metadata"), "generation").value_or(0);
}

const Json* condition(const Json* status, const std::string& type) {
  const Json* conditions = member(status, "conditions");
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const auto& c : *conditions) {
    if (string_at(&c, "type") == type) return &c;
  }
  return nullptr;
}

// The refusal an earlier pass kept for the scaler's current generation, or "".
std::string kept_refusal(const Json& scaler) {
  const Json* limited = condition(member(&scaler, "status"), kScalingLimited);
  if (limited == nullptr || string_at(limited, "status") != "True" ||
      integer_at(limited, "observedGeneration").value_or(-1) != generation_of(scaler)) {
    return "";
  }
  return string_at(limited, "message");
}

// The index of replicatedJob `name` in spec.replicatedJobs, and its replicas (the API server
// defaults them to 1).
std::optional<std::pair<std::size_t, std::int64_t>> find_replicated_job(const Json& jobset,
                                                                        const std::string& name) {
  const Json* rjobs = member(member(&jobset, "spec"), "replicatedJobs");
  if (rjobs == nullptr || !rjobs->is_array()) return std::nullopt;
  for (std::size_t i = 0; i < rjobs->size(); ++i) {
    if (string_at(&(*rjobs)[i], "name") == name) {
      return std::make_pair(i, integer_at(&(*rjobs)[i], "replicas").value_or(1));
    }
  }
  return std::nullopt;
}

// The Jobs of the current restart attempt, controlled by the JobSet, for the replicatedJob,
// with an index below replicas: what plan_scale_down leaves alone and upstream keeps running.
std::int64_t jobs_in_place(const Json& jobset, const std::vector<Json>& jobs,
                           const std::string& rjob, std::int64_t replicas) {
  const std::string uid = meta_string(jobset, "uid");
  const std::int64_t restarts = integer_at(member(&jobset, "status"), "restarts").value_or(0);
  std::int64_t n = 0;
  for (const auto& job : jobs) {
    const Json* labels = member(member(&job, "metadata"), "labels");
    if (!controlled_by(job, uid) || string_at(labels, kReplicatedJobNameKey) != rjob) continue;
    const auto attempt = label_integer(labels, kRestartsKey);
    const auto index = label_integer(labels, kJobIndexKey);
    if (attempt == restarts && index && *index < replicas) ++n;
  }
  return n;
}

Json make_condition(const Json* old_status, const char* type, bool status,
                    const std::string& reason, const std::string& message, std::int64_t generation,
                    const std::string& now) {
  const char* word = status ? "True" : "False";
  const Json* old = condition(old_status, type);
  const std::string since = old != nullptr && string_at(old, "status") == word
                                ? string_at(old, "lastTransitionTime")
                                : "";
  return Json{{"type", type},
              {"status", word},
              {"reason", reason},
              {"message", message},
              {"observedGeneration", generation},
              {"lastTransitionTime", since.empty() ? now : since}};
}

// Not a controller reference: the scaler's controller is this project's, the JobSet only owns it
// for the garbage collector.
Json owner_reference(const Json& jobset) {
  return Json{{"apiVersion", kJobSetGroupVersion},
              {"kind", "JobSet"},
              {"name", meta_string(jobset, "name")},
              {"uid", meta_string(jobset, "uid")}};
}

}  // namespace

std::string scaler_jobset(const Json& scaler) {
  return string_at(member(&scaler, "spec"), "jobSetName");
}

std::string scaler_replicated_job(const Json& scaler) {
  return string_at(member(&scaler, "spec"), "replicatedJobName");
}

ScalerPlan plan_scaler(const Json& scaler, const Json* jobset) {
  ScalerPlan plan;
  // The CRD defaults spec.replicas to 1, so it is there on every stored scaler.
  plan.wanted = integer_at(member(&scaler, "spec"), "replicas").value_or(1);
  if (jobset == nullptr) return plan;
  const auto target = find_replicated_job(*jobset, scaler_replicated_job(scaler));
  if (!target) return plan;
  plan.current = target->second;
  if (plan.current == plan.wanted) return plan;
  if (!meta_string(*jobset, "deletionTimestamp").empty()) {
    plan.held = "JobSet " + meta_string(*jobset, "name") + " is being deleted";
    return plan;
  }
  plan.held = kept_refusal(scaler);
  if (!plan.held.empty()) return plan;
  const std::string path = "/spec/replicatedJobs/" + std::to_string(target->first) + "/replicas";
  plan.jobset_patch =
      Json::array({Json{{"op", "test"}, {"path", path}, {"value", *plan.current}},
                   Json{{"op", "replace"}, {"path", path}, {"value", plan.wanted}}});
  return plan;
}

Json scaler_status(const Json& scaler, const Json* jobset, const std::vector<Json>& jobs,
                   const ScalerPlan& plan, const ScaleResult& result, const std::string& now) {
  const Json* old = member(&scaler, "status");
  const std::int64_t generation = generation_of(scaler);
  const std::string js = scaler_jobset(scaler);
  const std::string rjob = scaler_replicated_job(scaler);
  Json status = Json::object();
  status["replicas"] = 0;
  status["selector"] = std::string(kJobSetNameKey) + "=" + js + "," + kReplicatedJobNameKey + "=" +
                       rjob + "," + kCompletionIndexLabel + "=0";
  status["observedGeneration"] = generation;

  // The JobSet's replicas after this pass.
  const std::optional<std::int64_t> replicas =
      result.kind == ScaleResult::Kind::kApplied ? std::optional(plan.wanted) : plan.current;
  bool ready = false;
  std::string reason;
  std::string message;
  if (jobset == nullptr) {
    reason = "JobSetNotFound";
    message = "JobSet " + js + " does not exist in namespace " + meta_string(scaler, "namespace");
  } else if (!replicas) {
    reason = "ReplicatedJobNotFound";
    message = "JobSet " + js + " has no replicatedJob " + rjob;
  } else {
    const std::int64_t in_place = jobs_in_place(*jobset, jobs, rjob, *replicas);
    status["replicas"] = in_place;
    if (*replicas != plan.wanted) {
      reason = "ScaleNotApplied";
      message = "replicatedJob " + rjob + " of JobSet " + js + " has replicas " +
                std::to_string(*replicas) + ", not " + std::to_string(plan.wanted);
    } else if (in_place != plan.wanted) {
      reason = "JobsNotInPlace";
      message = std::to_string(in_place) + " of " + std::to_string(plan.wanted) +
                " Jobs of replicatedJob " + rjob + " exist";
    } else {
      ready = true;
      reason = "AtDesiredReplicas";
      message = std::to_string(in_place) + " Jobs of replicatedJob " + rjob + " exist";
    }
  }

  std::string refusal = result.kind == ScaleResult::Kind::kRefused ? result.message : "";
  if (refusal.empty() && result.kind == ScaleResult::Kind::kNone && replicas != plan.wanted) {
    refusal = kept_refusal(scaler);
  }
  Json conditions = Json::array();
  conditions.push_back(make_condition(old, kReady, ready, reason, message, generation, now));
  conditions.push_back(
      refusal.empty()
          ? make_condition(old, kScalingLimited, false, "ScaleAllowed",
                           "the last scale asked of the JobSet was not refused", generation, now)
          : make_condition(old, kScalingLimited, true, "ScaleRefused", refusal, generation, now));
  status["conditions"] = std::move(conditions);
  return status;
}

std::optional<Json> owner_patch(const Json& scaler, const Json& jobset) {
  const std::string uid = meta_string(jobset, "uid");
  if (uid.empty()) return std::nullopt;
  const Json* refs = member(member(&scaler, "metadata"), "ownerReferences");
  Json owners = refs != nullptr && refs->is_array() ? *refs : Json::array();
  for (const auto& ref : owners) {
    if (string_at(&ref, "uid") == uid) return std::nullopt;
  }
  owners.push_back(owner_reference(jobset));
  return Json{{"metadata",
               {{"resourceVersion", meta_string(scaler, "resourceVersion")},
                {"ownerReferences", std::move(owners)}}}};
}

std::vector<Json> scalers_to_create(const Json& jobset, const std::vector<Json>& scalers) {
  std::vector<Json> out;
  const Json* annotations = member(member(&jobset, "metadata"), "annotations");
  if (string_at(annotations, kAutoScalersAnnotation) != "true" ||
      !meta_string(jobset, "deletionTimestamp").empty()) {
    return out;
  }
  const std::string name = meta_string(jobset, "name");
  const Json* rjobs = member(member(&jobset, "spec"), "replicatedJobs");
  if (rjobs == nullptr || !rjobs->is_array()) return out;
  for (const auto& r : *rjobs) {
    const std::string rjob = string_at(&r, "name");
    bool named = false;
    for (const auto& s : scalers) named = named || scaler_replicated_job(s) == rjob;
    if (named || rjob.empty()) continue;
    out.push_back(Json{
        {"apiVersion", kScalerGroupVersion},
        {"kind", kScalerKind},
        {"metadata",
         {{"name", name + "-" + rjob},
          {"namespace", meta_string(jobset, "namespace")},
          {"ownerReferences", Json::array({owner_reference(jobset)})}}},
        {"spec",
         {{"jobSetName", name},
          {"replicatedJobName", rjob},
          {"replicas", integer_at(&r, "replicas").value_or(1)}}},
    });
  }
  return out;
}

}  // namespace jobset_webhook::controller

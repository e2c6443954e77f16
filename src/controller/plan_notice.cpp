#include "plan_notice.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "jobset_webhook/json_access.h"
#include "jobset_webhook/runtime/time.h"
#include "jobset_webhook/scale_down_notice.h"

namespace jobset_webhook::controller {
namespace {

using TimePoint = std::chrono::system_clock::time_point;

// One ReplicatedJob's notice, as the state annotation holds it.
struct Notice {
  std::int64_t replicas = 0;
  std::vector<std::int64_t> leaving;  // ascending
  std::string deadline;               // as written: RFC 3339, whole seconds, UTC
  TimePoint due{};
};

struct State {
  bool present = false;  // the annotation is there, readable or not
  std::int64_t restarts = 0;
  std::map<std::string, Notice> notices;
};

// The state annotation; a text that is not what the controller writes reads as no notice (and is
// replaced or removed by the plan).
State read_state(const Json* annotations) {
  State state;
  const Json* text = member(annotations, kNoticeStateKey);
  if (text == nullptr) return state;
  state.present = true;
  if (!text->is_string()) return state;
  const Json doc = Json::parse(text->get<std::string>(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return state;
  state.restarts = integer_at(&doc, "restarts").value_or(0);
  const Json* rjobs = member(&doc, "replicatedJobs");
  if (rjobs == nullptr || !rjobs->is_object()) return state;
  for (const auto& [name, n] : rjobs->items()) {
    Notice notice;
    const auto replicas = integer_at(&n, "replicas");
    const auto due = runtime::parse_rfc3339(string_at(&n, "deadline"));
    const Json* leaving = member(&n, "leaving");
    if (!replicas || !due || leaving == nullptr || !leaving->is_array()) continue;
    notice.replicas = *replicas;
    notice.deadline = string_at(&n, "deadline");
    notice.due = *due;
    for (const auto& i : *leaving) {
      if (i.is_number_integer()) notice.leaving.push_back(i.get<std::int64_t>());
    }
    std::sort(notice.leaving.begin(), notice.leaving.end());
    state.notices.emplace(name, std::move(notice));
  }
  return state;
}

Json state_json(std::int64_t restarts, const std::map<std::string, Notice>& notices) {
  Json rjobs = Json::object();
  for (const auto& [name, n] : notices) {
    rjobs[name] = {{"deadline", n.deadline}, {"leaving", n.leaving}, {"replicas", n.replicas}};
  }
  return {{"restarts", restarts}, {"replicatedJobs", rjobs}};
}

// The deadline of a notice that starts now: whole seconds, never shorter than the period.
TimePoint deadline_after(TimePoint now, std::int64_t seconds) {
  auto whole = std::chrono::time_point_cast<std::chrono::seconds>(now);
  if (whole < now) whole += std::chrono::seconds(1);
  return whole + std::chrono::seconds(seconds);
}

std::string joined(const std::vector<std::int64_t>& indices) {
  std::string out;
  for (const auto i : indices) {
    if (!out.empty()) out += ",";
    out += std::to_string(i);
  }
  return out;
}

// "Job js-workers-3", "Jobs js-workers-2, js-workers-3", "Jobs js-workers-2 ... js-workers-9
// (8 Jobs)" (upstream's GenJobName: <jobset>-<replicatedJob>-<index>).
std::string job_names(const std::string& jobset, const std::string& rjob,
                      const std::vector<std::int64_t>& indices) {
  const auto name = [&](std::int64_t i) { return jobset + "-" + rjob + "-" + std::to_string(i); };
  if (indices.size() == 1) return "Job " + name(indices.front());
  if (indices.size() > 3) {
    return "Jobs " + name(indices.front()) + " ... " + name(indices.back()) + " (" +
           std::to_string(indices.size()) + " Jobs)";
  }
  std::string out = "Jobs ";
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (k > 0) out += ", ";
    out += name(indices[k]);
  }
  return out;
}

// The notice annotations an object must carry: the notice's, or none (nullptr).
void want_annotations(const Json& object, const Notice* notice, const std::string& resource,
                      std::vector<AnnotationPatch>& out) {
  const Json* meta = member(&object, "metadata");
  const Json* annotations = member(meta, "annotations");
  const std::pair<const char*, std::string> wanted[] = {
      {kNoticeDeadlineKey, notice ? notice->deadline : ""},
      {kNoticeLeavingKey, notice ? joined(notice->leaving) : ""},
      {kNoticeReplicasKey, notice ? std::to_string(notice->replicas) : ""},
  };
  Json patch = Json::object();
  for (const auto& [key, value] : wanted) {
    const Json* have = member(annotations, key);
    if (notice == nullptr && have != nullptr) patch[key] = nullptr;
    if (notice != nullptr && (have == nullptr || *have != value)) patch[key] = value;
  }
  if (!patch.empty()) out.push_back({resource, string_at(meta, "name"), std::move(patch)});
}

const char* leave(const std::vector<std::int64_t>& indices) {
  return indices.size() == 1 ? " leaves" : " leave";
}

std::string prefix(const std::string& rjob) {
  return "Scale-down notice for replicatedJob " + rjob;
}

}  // namespace

const char* to_string(NoticeEventKind k) {
  switch (k) {
    case NoticeEventKind::kStarted: return "ScaleDownNoticeStarted";
    case NoticeEventKind::kExtended: return "ScaleDownNoticeExtended";
    case NoticeEventKind::kCancelled: return "ScaleDownNoticeCancelled";
    case NoticeEventKind::kEnded: return "ScaleDownNoticeEnded";
  }
  return "ScaleDownNoticeStarted";
}

std::int64_t notice_seconds(const Json& jobset, std::int64_t default_seconds) {
  const Json* value =
      member(member(member(&jobset, "metadata"), "annotations"), kNoticeSecondsAnnotation);
  if (value == nullptr || !value->is_string()) return default_seconds;
  return parse_notice_seconds(value->get<std::string>()).value_or(default_seconds);
}

bool notice_wanted(const Json& jobset, const ScaleDownPlan& scale_down,
                   std::int64_t default_seconds) {
  return (!scale_down.deletions.empty() && notice_seconds(jobset, default_seconds) > 0) ||
         member(member(member(&jobset, "metadata"), "annotations"), kNoticeStateKey) != nullptr;
}

NoticePlan plan_notice(const Json& jobset, const std::vector<Json>& jobs,
                       const std::vector<Json>& pods, const ScaleDownPlan& scale_down,
                       std::int64_t default_seconds, TimePoint now) {
  NoticePlan plan;
  const Json* meta = member(&jobset, "metadata");
  const Json* spec = member(&jobset, "spec");
  const Json* status = member(&jobset, "status");
  const std::string name = string_at(meta, "name");
  const std::string uid = string_at(meta, "uid");
  const State old = read_state(member(meta, "annotations"));
  const std::int64_t restarts = integer_at(status, "restarts").value_or(0);

  const bool deleting = member(meta, "deletionTimestamp") != nullptr;
  const Json* suspend = member(spec, "suspend");
  const bool suspended = suspend != nullptr && suspend->is_boolean() && suspend->get<bool>();
  std::string cancel;  // why every notice of the JobSet ends
  if (deleting) {
    cancel = "the JobSet is being deleted";
  } else if (condition_true(status, "Completed") || condition_true(status, "Failed")) {
    cancel = "the JobSet finished";
  } else if (suspended) {
    cancel = "the JobSet is suspended";
  } else if (!old.notices.empty() && old.restarts != restarts) {
    cancel = "the JobSet restarted";
  }

  std::map<std::string, std::vector<std::int64_t>> leaving;  // ascending
  for (const auto& d : scale_down.deletions) leaving[d.replicated_job].push_back(d.index);
  for (auto& [rjob, indices] : leaving) std::sort(indices.begin(), indices.end());

  // The Jobs of the current attempt that are not going: (replicatedJob, index).
  std::set<std::pair<std::string, std::int64_t>> alive;
  for (const auto& job : jobs) {
    const Json* job_meta = member(&job, "metadata");
    const Json* labels = member(job_meta, "labels");
    const auto index = label_integer(labels, kJobIndexKey);
    if (controlled_by(job, uid) && index && label_integer(labels, kRestartsKey) == restarts &&
        member(job_meta, "deletionTimestamp") == nullptr)
      alive.emplace(string_at(labels, kReplicatedJobNameKey), *index);
  }

  const std::int64_t period = notice_seconds(jobset, default_seconds);
  std::map<std::string, Notice> notices;
  const Json* rjobs = member(spec, "replicatedJobs");
  if (rjobs != nullptr && rjobs->is_array()) {
    for (const auto& r : *rjobs) {
      const std::string rjob = string_at(&r, "name");
      const std::int64_t replicas = integer_at(&r, "replicas").value_or(1);
      const auto before = old.notices.find(rjob);
      const Notice* was = before == old.notices.end() ? nullptr : &before->second;
      const auto l = leaving.find(rjob);
      const std::vector<std::int64_t> going =
          l == leaving.end() ? std::vector<std::int64_t>() : l->second;
      if (!cancel.empty()) {
        if (was != nullptr)
          plan.events.push_back(
              {NoticeEventKind::kCancelled, prefix(rjob) + " cancelled: " + cancel});
        if (suspended) plan.due.insert(rjob);
        continue;
      }
      if (going.empty()) {
        if (was == nullptr) continue;
        // Jobs of the notice still there (now below replicas): scaled back up. None: they went.
        std::vector<std::int64_t> stay;
        for (const auto i : was->leaving) {
          if (alive.count({rjob, i}) > 0) stay.push_back(i);
        }
        if (!stay.empty()) {
          plan.events.push_back({NoticeEventKind::kCancelled,
                                 prefix(rjob) + " cancelled: scaled back up to " +
                                     std::to_string(replicas) + ", " + job_names(name, rjob, stay) +
                                     (stay.size() == 1 ? " stays" : " stay")});
        } else {
          plan.events.push_back({NoticeEventKind::kEnded,
                                 prefix(rjob) + " ended: " + job_names(name, rjob, was->leaving) +
                                     (now >= was->due ? " deleted after " + was->deadline
                                                      : " gone before " + was->deadline)});
        }
        continue;
      }
      if (was == nullptr) {
        if (period == 0) {
          plan.due.insert(rjob);
          continue;
        }
        Notice n;
        n.replicas = replicas;
        n.leaving = going;
        n.due = deadline_after(now, period);
        n.deadline = runtime::rfc3339(n.due);
        plan.events.push_back({NoticeEventKind::kStarted,
                               prefix(rjob) + ": " + job_names(name, rjob, n.leaving) +
                                   leave(n.leaving) + " (replicas " + std::to_string(replicas) +
                                   "), deleted after " + n.deadline + " (notice of " +
                                   notice_text(period) + ")"});
        notices.emplace(rjob, std::move(n));
      } else {
        Notice n = *was;
        const bool grows = std::any_of(going.begin(), going.end(), [&](std::int64_t i) {
          return !std::binary_search(n.leaving.begin(), n.leaving.end(), i);
        });
        if (replicas < n.replicas || grows) {
          std::vector<std::int64_t> all = going;
          for (const auto i : n.leaving) {
            if (i >= replicas) all.push_back(i);
          }
          std::sort(all.begin(), all.end());
          all.erase(std::unique(all.begin(), all.end()), all.end());
          n.leaving = std::move(all);
          n.replicas = replicas;
          if (period > 0 && deadline_after(now, period) > n.due) {
            n.due = deadline_after(now, period);
            n.deadline = runtime::rfc3339(n.due);
          }
          plan.events.push_back({NoticeEventKind::kExtended,
                                 prefix(rjob) + " extended: " + job_names(name, rjob, n.leaving) +
                                     leave(n.leaving) + " (replicas " + std::to_string(replicas) +
                                     "), deleted after " + n.deadline});
        } else if (replicas > n.replicas) {
          std::vector<std::int64_t> stay, still;
          for (const auto i : n.leaving) (i < replicas ? stay : still).push_back(i);
          n.leaving = std::move(still);
          n.replicas = replicas;
          plan.events.push_back({NoticeEventKind::kCancelled,
                                 prefix(rjob) + " cancelled for " + job_names(name, rjob, stay) +
                                     " (scaled back up to " + std::to_string(replicas) + "); " +
                                     job_names(name, rjob, n.leaving) + " still" +
                                     leave(n.leaving) + " after " + n.deadline});
        }
        notices.emplace(rjob, std::move(n));
      }
    }
  }
  for (const auto& [rjob, n] : notices) {
    ++plan.in_progress;
    if (now >= n.due) {
      plan.due.insert(rjob);
      ++plan.past_deadline;
    } else if (!plan.next_deadline || n.due < *plan.next_deadline) {
      plan.next_deadline = n.due;
    }
  }

  const Json want = state_json(restarts, notices);
  if (notices.empty()) {
    if (old.present) plan.state = Json(nullptr);
  } else if (!old.present || old.notices.size() != notices.size() ||
             state_json(old.restarts, old.notices) != want) {
    plan.state = Json(want.dump());
  }

  // The Jobs and Pods of a JobSet being deleted go with it: nothing to take off them.
  if (deleting) return plan;
  // Jobs: a leaving Job carries its notice; any other (of this JobSet, not being deleted) none.
  for (const auto& job : jobs) {
    if (!controlled_by(job, uid)) continue;
    const Json* job_meta = member(&job, "metadata");
    if (member(job_meta, "deletionTimestamp") != nullptr) continue;
    const Json* labels = member(job_meta, "labels");
    const auto n = notices.find(string_at(labels, kReplicatedJobNameKey));
    const auto index = label_integer(labels, kJobIndexKey);
    const auto attempt = label_integer(labels, kRestartsKey);
    const bool leaves =
        n != notices.end() && index && attempt == restarts &&
        std::binary_search(n->second.leaving.begin(), n->second.leaving.end(), *index);
    want_annotations(job, leaves ? &n->second : nullptr, "jobs", plan.patches);
  }
  // Pods of the current attempt: every Pod of a ReplicatedJob with a notice carries it.
  for (const auto& pod : pods) {
    const Json* pod_meta = member(&pod, "metadata");
    if (member(pod_meta, "deletionTimestamp") != nullptr) continue;
    const Json* labels = member(pod_meta, "labels");
    const std::string pod_uid = string_at(labels, kJobSetUidKey);
    if (string_at(labels, kJobSetNameKey) != name || (!pod_uid.empty() && pod_uid != uid) ||
        label_integer(labels, kRestartsKey) != restarts)
      continue;
    const auto n = notices.find(string_at(labels, kReplicatedJobNameKey));
    want_annotations(pod, n == notices.end() ? nullptr : &n->second, "pods", plan.patches);
  }
  std::stable_sort(plan.patches.begin(), plan.patches.end(),
                   [](const AnnotationPatch& a, const AnnotationPatch& b) {
                     return std::tie(a.resource, a.name) < std::tie(b.resource, b.name);
                   });
  return plan;
}

}  // namespace jobset_webhook::controller

#include "scale_hazards.h"

#include <algorithm>
#include <limits>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

constexpr std::string_view kGlobalIndexLabel = "jobset.sigs.k8s.io/job-global-index";
constexpr std::string_view kGroupIndexLabel = "jobset.sigs.k8s.io/job-group-index";
constexpr std::string_view kGlobalReplicasLabel = "jobset.sigs.k8s.io/global-replicas";
constexpr std::string_view kGroupReplicasLabel = "jobset.sigs.k8s.io/group-replicas";
constexpr std::string_view kReplicatedJobReplicasLabel =
    "jobset.sigs.k8s.io/replicatedjob-replicas";
constexpr std::string_view kDefaultGroup = "default";  // the CRD's default groupName
constexpr std::int64_t kJobsNamed = 3;                 // Jobs named in a list before "and N more"
constexpr std::string_view kKueueQueueLabel = "kueue.x-k8s.io/queue-name";
constexpr std::size_t kNoNext = std::numeric_limits<std::size_t>::max();

// A replicatedJob's replicas before and after the UPDATE (upstream's default is 1).
struct Counts {
  std::string_view name;
  std::string_view group;
  std::int64_t old_replicas = 1;
  std::int64_t new_replicas = 1;
};

// One groupName: its first replicatedJob, how many it has, and their replicas summed. No list of
// members: a review of thousands of replicatedJobs in one group holds no copy of their indices.
struct Group {
  std::size_t first = 0, last = 0, size = 0;
  std::int64_t old_replicas = 0, new_replicas = 0;
};

// The Jobs of one replicatedJob as the old object's status.replicatedJobsStatus[] counts them.
struct JobCounts {
  std::int64_t ready = 0, failed = 0, succeeded = 0;
  std::int64_t job_restarts = 0;  // entries of its jobRestarts list (RestartJob gate)
  std::int64_t started() const { return ready + failed + succeeded; }  // allReplicasStarted's sum
};

// What the hazards read, indexed once, so that an UPDATE scaling each of n replicatedJobs costs
// O(n) and not O(n^2): sums of replicas by prefix, the status counts and the dependants by name.
struct View {
  std::string jobset;
  MaybeJson spec;
  std::vector<Counts> rjobs;                               // in the order of spec.replicatedJobs
  std::vector<std::int64_t> old_prefix{0}, new_prefix{0};  // sums of the first i replicas
  std::unordered_map<std::string_view, JobCounts> status;  // old status.replicatedJobsStatus
  // For each replicatedJob named in a dependsOn: the dependant and whether it waits for Complete.
  std::unordered_map<std::string_view, std::vector<std::pair<std::string_view, bool>>> dependants;
  std::unordered_map<std::string_view, Group> groups;
  // For each replicatedJob: the next one of its groupName (kNoNext: none), and the replicas of its
  // group before it by the old and the new counts (upstream's groupJobIndex of its Job 0).
  std::vector<std::size_t> next_in_group;
  std::vector<std::int64_t> old_group_before, new_group_before;

  std::int64_t old_sum(std::size_t from, std::size_t to) const {
    return old_prefix[std::min(to, rjobs.size())] - old_prefix[std::min(from, rjobs.size())];
  }
  std::int64_t new_sum(std::size_t from, std::size_t to) const {
    return new_prefix[std::min(to, rjobs.size())] - new_prefix[std::min(from, rjobs.size())];
  }
  std::optional<JobCounts> counts_of(std::string_view rjob) const {
    const auto it = status.find(rjob);
    if (it == status.end()) return std::nullopt;
    return it->second;
  }
  // The replicatedJob whose Jobs the old counts gave global index g (g below the old total).
  std::size_t stored_owner(std::int64_t g) const {
    const auto after = std::upper_bound(old_prefix.begin(), old_prefix.end(), g);
    return std::size_t(after - old_prefix.begin()) - 1;
  }
};

View view_of(JsonView old_js, JsonView new_js) {
  View v;
  v.jobset = string_or_empty(at(new_js, {"metadata", "name"}));
  v.spec = member(new_js, "spec");
  const auto old_rjobs = items_of(at(old_js, {"spec", "replicatedJobs"}));
  const auto new_rjobs = items_of(member(v.spec, "replicatedJobs"));
  for (std::size_t i = 0; i < new_rjobs.size(); ++i) {
    Counts c{string_or_empty(member(new_rjobs[i], "name")),
             string_of(member(new_rjobs[i], "groupName")).value_or(kDefaultGroup)};
    c.new_replicas = integer_of(member(new_rjobs[i], "replicas")).value_or(1);
    c.old_replicas = i < old_rjobs.size() ? integer_of(member(old_rjobs[i], "replicas")).value_or(1)
                                          : c.new_replicas;
    v.rjobs.push_back(c);
    v.old_prefix.push_back(v.old_prefix.back() + c.old_replicas);
    v.new_prefix.push_back(v.new_prefix.back() + c.new_replicas);
    Group& g = v.groups[c.group];
    if (g.size++ == 0) {
      g.first = i;
    } else {
      v.next_in_group[g.last] = i;
    }
    g.last = i;
    v.next_in_group.push_back(kNoNext);
    v.old_group_before.push_back(g.old_replicas);
    v.new_group_before.push_back(g.new_replicas);
    g.old_replicas += c.old_replicas;
    g.new_replicas += c.new_replicas;
    for (const JsonView dep : items_of(member(new_rjobs[i], "dependsOn"))) {
      v.dependants[string_or_empty(member(dep, "name"))].emplace_back(
          c.name, string_or_empty(member(dep, "status")) == "Complete");
    }
  }
  for (const JsonView s : items_of(at(old_js, {"status", "replicatedJobsStatus"}))) {
    const auto n = [&](std::string_view key) { return integer_of(member(s, key)).value_or(0); };
    v.status.emplace(string_or_empty(member(s, "name")),
                     JobCounts{n("ready"), n("failed"), n("succeeded"),
                               std::int64_t(items_of(member(s, "jobRestarts")).size())});
  }
  return v;
}

// Upstream's globalJobIndex: a Job's index plus the replicas of the replicatedJobs before it,
// written into its labels once, by labelAndAnnotateObject when the Job is created. Jobs that
// exist keep the index the old counts gave them; a Job created after the scale is numbered by the
// new ones.
// Upstream's groupJobIndex counts the same way within a groupName (the replicas of the
// replicatedJobs of its group before it). With one group it is the global index, told with it;
// with several, the later replicatedJobs of the scaled one's group shift on their own.
void group_index_shift(const View& v, const ReplicasChange& c, std::vector<Hazard>& out) {
  if (v.groups.size() < 2) return;
  const std::size_t m = v.next_in_group[c.index];
  if (m == kNoNext || c.new_replicas == c.old_replicas) return;
  const std::int64_t stored = v.old_group_before[m], renumbered = v.new_group_before[m];
  out.push_back({ScaleHazard::kGlobalIndex, &c,
                 "upstream's JobSet controller labels a Job once, when it creates it, with an "
                 "index counted from the replicas before it in its groupName: the Jobs of the "
                 "replicatedJobs after it in group \"" +
                     std::string(v.rjobs[c.index].group) + "\" keep the " +
                     std::string(kGroupIndexLabel) + " they have (Job " +
                     child_job_name(v.jobset, v.rjobs[m].name, 0) + ": " + std::to_string(stored) +
                     ", by the new counts " + std::to_string(renumbered) +
                     ") until the JobSet restarts"});
}

void index_shift(const View& v, const ReplicasChange& c, std::vector<Hazard>& out) {
  const std::size_t k = c.index;
  const std::int64_t later = v.old_sum(k + 1, v.rjobs.size());
  if (later == 0) return;
  const std::int64_t first_later = v.old_sum(0, k + 1);  // the stored index of the first one
  const std::int64_t before_new = v.new_sum(0, k);
  const auto job_with_stored_index = [&](std::int64_t g) {
    const std::size_t m = v.stored_owner(g);
    return child_job_name(v.jobset, v.rjobs[m].name, g - v.old_sum(0, m));
  };
  const std::string head =
      "upstream's JobSet controller labels a Job once, when it creates it, with an index counted "
      "from the replicas before it: ";
  // groupJobIndex counts the same way within a groupName: with one group, the same index.
  const std::string labels = v.groups.size() == 1 ? std::string(kGlobalIndexLabel) + " and " +
                                                        std::string(kGroupIndexLabel)
                                                  : std::string(kGlobalIndexLabel);
  if (c.new_replicas > c.old_replicas) {
    const std::int64_t i = std::max(c.old_replicas, first_later - before_new);
    if (i < c.new_replicas && before_new + i < first_later + later) {
      const std::int64_t g = before_new + i;
      out.push_back({ScaleHazard::kGlobalIndex, &c,
                     head + "Job " + child_job_name(v.jobset, c.replicated_job, i) + " gets " +
                         labels + " " + std::to_string(g) + ", which Job " +
                         job_with_stored_index(g) +
                         " already has and keeps until the JobSet restarts"});
      return;
    }
  }
  out.push_back({ScaleHazard::kGlobalIndex, &c,
                 head + "the Jobs of the replicatedJobs after it keep the " + labels +
                     " they have (Job " + job_with_stored_index(first_later) + ": " +
                     std::to_string(first_later) + ", by the new counts " +
                     std::to_string(v.new_sum(0, k + 1)) + ") until the JobSet restarts"});
}

// "Job js-a-0 keeps", "Jobs js-a-0, js-b-0 keep", "Jobs js-a-0, js-a-1, js-b-0 and 5 more keep":
// the `total` Jobs that exist by the old counts of the replicatedJobs from `from` on (of group
// `group` only, when given), a few by name: the walk ends once those are named.
std::string existing_jobs_keep(const View& v, std::size_t from, std::int64_t total,
                               std::optional<std::string_view> group = std::nullopt) {
  std::string names;
  std::int64_t named = 0;
  const std::int64_t to_name = std::min(total, kJobsNamed);
  for (std::size_t m = from; m < v.rjobs.size() && named < to_name; ++m) {
    if (group && v.rjobs[m].group != *group) continue;
    for (std::int64_t i = 0; i < v.rjobs[m].old_replicas && named < to_name; ++i, ++named) {
      if (named > 0) names += ", ";
      names += child_job_name(v.jobset, v.rjobs[m].name, i);
    }
  }
  if (total == 1) return "Job " + names + " keeps";
  if (total > named) names += " and " + std::to_string(total - named) + " more";
  return "Jobs " + names + " keep";
}

std::string old_and_now(std::int64_t old_count, std::int64_t new_count) {
  // Appended, not `" " + std::to_string(...)`: at -O3 (scripts/dev bench) GCC 12 warns
  // -Wrestrict on that inlined insert at the front of a temporary, a false positive.
  std::string out = " ";
  out += std::to_string(old_count);
  out += " (now ";
  out += std::to_string(new_count);
  out += ")";
  return out;
}

// Which sums of replicas one UPDATE's warnings have already named.
struct SumsTold {
  bool global = false;
  std::unordered_set<std::string_view> groups;
};

// Upstream's labelAndAnnotateObject writes replicatedjob-replicas (its replicatedJob's replicas),
// global-replicas (the sum of all) and group-replicas (the sum of its groupName's) into the
// labels and annotations of a Job and of its pod template when constructJob makes the Job; nothing
// writes them again. The Jobs that exist, and every pod they make, keep the old counts until a
// restart replaces every Job, and so does a workload that reads its world size from them through
// the downward API. A sum is named once per UPDATE, in the warning of the first change that
// moves it.
void stale_counts(const View& v, const ReplicasChange& c, SumsTold& told,
                  std::vector<Hazard>& out) {
  std::vector<std::string> stale;
  const Counts& r = v.rjobs[c.index];
  // The only replicatedJob: its count is the JobSet's and its group's sum, on the same Jobs.
  const bool alone = v.rjobs.size() == 1;
  if (r.old_replicas > 0) {
    stale.push_back(existing_jobs_keep(v, c.index, r.old_replicas) + " " +
                    std::string(kReplicatedJobReplicasLabel) +
                    (alone ? ", " + std::string(kGlobalReplicasLabel) + " and " +
                                 std::string(kGroupReplicasLabel)
                           : std::string()) +
                    old_and_now(r.old_replicas, r.new_replicas));
  }
  if (alone) told.global = true;
  const Group& group = v.groups.at(r.group);
  const bool one_group = group.size == v.rjobs.size();
  const std::int64_t old_total = v.old_sum(0, v.rjobs.size());
  const std::int64_t new_total = v.new_sum(0, v.rjobs.size());
  if (!told.global && old_total != new_total && old_total > 0) {
    told.global = true;
    stale.push_back(existing_jobs_keep(v, 0, old_total) + " " + std::string(kGlobalReplicasLabel) +
                    (one_group ? " and " + std::string(kGroupReplicasLabel) : std::string()) +
                    old_and_now(old_total, new_total));
  }
  if (!one_group && told.groups.insert(r.group).second &&
      group.old_replicas != group.new_replicas && group.old_replicas > 0) {
    stale.push_back(existing_jobs_keep(v, group.first, group.old_replicas, r.group) + " " +
                    std::string(kGroupReplicasLabel) +
                    old_and_now(group.old_replicas, group.new_replicas) + " (groupName " +
                    std::string(r.group) + ")");
  }
  if (stale.empty()) return;
  std::string w =
      "upstream's JobSet controller writes the replica counts into the labels and "
      "annotations of a Job and its pods only when it creates the Job, so until the "
      "JobSet restarts the Jobs that exist and their pods (and a workload that reads "
      "the counts through the downward API) keep the old ones: ";
  for (std::size_t i = 0; i < stale.size(); ++i) w += (i > 0 ? "; " : "") + stale[i];
  out.push_back({ScaleHazard::kStaleReplicaCounts, &c, std::move(w)});
}

// Upstream's jobSetFinished: the reconcile after the JobSet finished deletes its active Jobs.
constexpr std::string_view kThenDeleted = "; once Completed, its Jobs still running are deleted";

// Upstream's executeSuccessPolicy: once any Job succeeded, the JobSet completes when the Jobs of
// the policy's targets that succeeded number at least numJobsExpectedToSucceed, which for
// operator All is the sum of the targets' replicas: the new ones, after the scale.

void success_policy(const View& v, const std::vector<ReplicasChange>& scaled,
                    std::vector<Hazard>& out) {
  const MaybeJson policy = member(v.spec, "successPolicy");
  const std::string_view op = string_or_empty(member(policy, "operator"));
  if (!op.empty() && op != "All") return;
  std::unordered_set<std::string_view> targets;
  for (const JsonView t : items_of(member(policy, "targetReplicatedJobs")))
    targets.insert(string_or_empty(t));
  const auto is_target = [&](std::string_view name) {
    return targets.empty() || targets.count(name) > 0;
  };
  const auto change = std::find_if(scaled.begin(), scaled.end(), [&](const ReplicasChange& c) {
    return is_target(c.replicated_job);
  });
  if (change == scaled.end()) return;
  std::int64_t expected = 0, succeeded = 0, succeeded_any = 0;
  for (const Counts& r : v.rjobs) {
    const auto counts = v.counts_of(r.name).value_or(JobCounts{});
    succeeded_any += counts.succeeded;
    if (!is_target(r.name)) continue;
    expected += r.new_replicas;
    succeeded += counts.succeeded;
  }
  const std::string whose = targets.empty() ? "the JobSet" : "its targetReplicatedJobs";
  if (expected == 0) {
    out.push_back({ScaleHazard::kSuccessPolicy, &*change,
                   "successPolicy All now waits for 0 Jobs of " + whose +
                       ": the first Job of any replicatedJob that succeeds completes the JobSet "
                       "(upstream's executeSuccessPolicy)" +
                       std::string(kThenDeleted)});
  } else if (succeeded_any > 0 && succeeded >= expected) {
    out.push_back({ScaleHazard::kSuccessPolicy, &*change,
                   "the JobSet controller will mark the JobSet Completed on its next reconcile: "
                   "status.replicatedJobsStatus counts " +
                       std::to_string(succeeded) + " succeeded Jobs of " + whose +
                       ", and successPolicy All now waits for " + std::to_string(expected) +
                       std::string(kThenDeleted)});
  }
}

// Upstream's dependencyReachedStatus: a replicatedJob whose dependsOn names the scaled one gets
// its missing Jobs only while the dependency's counts equal its replicas exactly; a scale-down
// leaves them above it until the Jobs over the new count are gone.
void depends_on(const View& v, const ReplicasChange& c, std::vector<Hazard>& out) {
  const auto counts = v.counts_of(c.replicated_job);
  const auto dependants = v.dependants.find(c.replicated_job);
  if (!counts || dependants == v.dependants.end()) return;
  for (const auto& [dependant, complete] : dependants->second) {
    const std::int64_t count = complete ? counts->succeeded : counts->started();
    if (count <= c.new_replicas) continue;
    out.push_back({ScaleHazard::kDependsOn, &c,
                   "replicatedJob \"" + std::string(dependant) + "\" depends on it (dependsOn " +
                       (complete ? "Complete" : "Ready") +
                       "): the JobSet controller creates its missing Jobs only while the " +
                       (complete ? "succeeded Jobs" : "ready, failed and succeeded Jobs") +
                       " of this one number exactly " + std::to_string(c.new_replicas) +
                       ", and status.replicatedJobsStatus counts " + std::to_string(count) +
                       ": it waits until the Jobs above the new count are gone"});
  }
}

// Upstream's allReplicasStarted, under startupPolicy InOrder: each reconcile walks the
// replicatedJobs in order and stops at the first whose ready, failed and succeeded Jobs do not
// add up to exactly its replicas, setting StartupPolicyInProgress again; the replicatedJobs
// after it get no missing Job until they do.
void in_order_startup(const View& v, const ReplicasChange& c, std::vector<Hazard>& out) {
  if (string_or_empty(at(v.spec, {"startupPolicy", "startupPolicyOrder"})) != "InOrder") return;
  if (v.new_sum(c.index + 1, v.rjobs.size()) == 0) return;
  const auto counts = v.counts_of(c.replicated_job);
  if (counts && counts->started() == c.new_replicas) return;
  out.push_back({ScaleHazard::kStartupPolicy, &c,
                 "startupPolicy InOrder: the JobSet controller sets StartupPolicyInProgress "
                 "again and creates no missing Job of the replicatedJobs after this one until "
                 "its ready, failed and succeeded Jobs number exactly " +
                     std::to_string(c.new_replicas) +
                     (counts ? " (status.replicatedJobsStatus counts " +
                                   std::to_string(counts->started()) + ")"
                             : std::string())});
}

// With the RestartJob gate, upstream's getChildJobs looks every Job that carries the
// job-restart-attempt label up by its job-index in status.replicatedJobsStatus[].jobRestarts,
// which stands for `replicas` zeros while it is empty (getJobRestarts); a Job past its end fails
// the reconcile with "job index N is out of bounds for replicated job R". After a scale-down the
// Jobs above the new count do exactly that, on every reconcile of the JobSet (no status, no
// success or failure policy, no missing Job) until they are gone.
void restart_job_index(const View& v, const ReplicasChange& c, const Policy& policy,
                       std::vector<Hazard>& out) {
  if (!policy.feature_gates.restart_job || c.new_replicas >= c.old_replicas) return;
  const std::int64_t listed = v.counts_of(c.replicated_job).value_or(JobCounts{}).job_restarts;
  const std::int64_t bound = listed == 0 ? c.new_replicas : listed;
  if (bound >= c.old_replicas) return;
  const bool controller = policy.elastic.scale_down == Policy::ScaleDown::kController;
  out.push_back({ScaleHazard::kRestartJobIndex, &c,
                 "with the RestartJob feature gate, upstream's JobSet controller fails every "
                 "reconcile of this JobSet with \"job index " +
                     std::to_string(bound) + " is out of bounds for replicated job " +
                     c.replicated_job +
                     "\" (getChildJobs: a Job's index must be below the length of its "
                     "jobRestarts list, " +
                     std::to_string(bound) + " here) until " +
                     job_run(v.jobset, c.replicated_job, bound, c.old_replicas - 1) +
                     (c.old_replicas - bound == 1 ? " is deleted" : " are deleted") +
                     (controller ? " by the scale-down controller" : "") +
                     ": meanwhile it updates no status and runs no success or failure policy"});
}

// Kueue admits a JobSet with the counts of its Workload; a running JobSet whose replicas differ
// matches no Workload, and Kueue's reconciler suspends it and queues it again
// (kueue pkg/controller/jobframework/reconciler.go: "job with no matching workload, suspending").
void kueue(JsonView new_js, const View& v, const ReplicasChange& first, std::vector<Hazard>& out) {
  const auto queue = string_of(at(new_js, {"metadata", "labels", kKueueQueueLabel}));
  if (!queue || bool_of(member(v.spec, "suspend")).value_or(false)) return;
  out.push_back(
      {ScaleHazard::kKueue, &first,
       "Kueue manages this JobSet (label " + std::string(kKueueQueueLabel) + "=" +
           std::string(*queue) +
           "): a running JobSet whose replicas change matches no Workload, so Kueue "
           "suspends it and queues it again, stopping every Job, rather than resizing it"});
}

// Drops the text of the warnings from `from` on that no response would print: an update that
// scales each of 20,000 replicatedJobs would otherwise hold some 7 bytes of warnings per byte of
// its body, to send 4 KiB of them.
void elide_unprinted(std::vector<Hazard>& out, std::size_t from, const Policy& policy,
                     std::size_t& kept_bytes) {
  for (std::size_t i = from; i < out.size(); ++i) {
    Hazard& h = out[i];
    if (policy.denies(h.kind)) continue;
    if (kept_bytes <= kMaxWarningsBytes) {
      kept_bytes += h.detail.size();
      continue;
    }
    h.detail = std::string();
    h.elided = true;
  }
}

}  // namespace

std::vector<Hazard> scale_hazards(JsonView old_js, JsonView new_js,
                                  const std::vector<ReplicasChange>& scaled, const Policy& policy) {
  std::vector<Hazard> out;
  if (scaled.empty()) return out;
  const View v = view_of(old_js, new_js);
  SumsTold told;
  std::size_t kept_bytes = 0;
  for (const ReplicasChange& c : scaled) {
    if (c.index >= v.rjobs.size()) continue;
    const std::size_t from = out.size();
    index_shift(v, c, out);
    group_index_shift(v, c, out);
    stale_counts(v, c, told, out);
    restart_job_index(v, c, policy, out);
    depends_on(v, c, out);
    in_order_startup(v, c, out);
    elide_unprinted(out, from, policy, kept_bytes);
  }
  const std::size_t from = out.size();
  success_policy(v, scaled, out);
  kueue(new_js, v, scaled.front(), out);
  elide_unprinted(out, from, policy, kept_bytes);
  return out;
}

}  // namespace jobset_webhook::validation

#pragma once

// Test fixtures for the scale-down controller: a JobSet as the API server stores it (made with
// support/jobset_builder.h) and its child Jobs as upstream's controller (sigs.k8s.io/jobset
// v0.12.0, constructJob) labels and owns them; a ReplicatedJobScaler of its workers.

#include <cstdint>
#include <string>
#include <vector>

#include "controller/plan_scale_down.h"
#include "controller/plan_scaler.h"
#include "jobset_webhook/json.h"
#include "support/jobset_builder.h"

namespace jobset_webhook::testing {

// JobSet "js" in namespace "ns" (uid "js-uid"): one driver and `workers` workers.
inline Json jobset(std::int64_t workers, std::int64_t restarts = 0) {
  return MakeJobSet("js")
      .Namespace("ns")
      .Uid("js-uid")
      .ReplicatedJob(MakeReplicatedJob("driver"))
      .ReplicatedJob(MakeReplicatedJob("workers").Replicas(workers))
      .Status({{"restarts", restarts}})
      .Obj();
}

// Job js-<rjob>-<index> of restart attempt `attempt`, controlled by the JobSet above.
inline Json job(const std::string& rjob, std::int64_t index, std::int64_t attempt = 0) {
  using namespace controller;
  const std::string name = "js-" + rjob + "-" + std::to_string(index);
  return Json{
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata",
       {{"name", name},
        {"namespace", "ns"},
        {"uid", name + "-uid"},
        {"labels",
         {{kJobSetNameKey, "js"},
          {kReplicatedJobNameKey, rjob},
          {kJobIndexKey, std::to_string(index)},
          {kRestartsKey, std::to_string(attempt)}}},
        {"ownerReferences", Json::array({Json{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                                              {"kind", "JobSet"},
                                              {"name", "js"},
                                              {"uid", "js-uid"},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}})}}},
      {"spec", {{"parallelism", 1}, {"completions", 1}, {"backoffLimit", 6}}},
      {"status", {{"active", 1}}},
  };
}

// The driver's Job and workers 0 .. n-1.
inline std::vector<Json> workers(std::int64_t n) {
  std::vector<Json> out = {job("driver", 0)};
  for (std::int64_t i = 0; i < n; ++i) out.push_back(job("workers", i));
  return out;
}

// The Pod of Job js-<rjob>-<index> (attempt `attempt`), labelled as upstream labels the Job's
// pod template; the Job controller names it <job>-<completion index>-<random>.
inline Json pod(const std::string& rjob, std::int64_t index, std::int64_t attempt = 0) {
  using namespace controller;
  const std::string job_name = "js-" + rjob + "-" + std::to_string(index);
  return Json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", job_name + "-0-abcde"},
        {"namespace", "ns"},
        {"uid", job_name + "-pod-uid"},
        {"labels",
         {{kJobSetNameKey, "js"},
          {kJobSetUidKey, "js-uid"},
          {kReplicatedJobNameKey, rjob},
          {kJobIndexKey, std::to_string(index)},
          {kRestartsKey, std::to_string(attempt)}}}}},
  };
}

// The Pods of workers(n): the driver's and one per worker.
inline std::vector<Json> worker_pods(std::int64_t n) {
  std::vector<Json> out = {pod("driver", 0)};
  for (std::int64_t i = 0; i < n; ++i) out.push_back(pod("workers", i));
  return out;
}

inline Json with_condition(Json j, const char* type) {
  j["status"]["conditions"] = Json::array({Json{{"type", type}, {"status", "True"}}});
  return j;
}

// ReplicatedJobScaler js-workers of the JobSet above, as the API server stores it.
inline Json scaler(std::int64_t replicas, std::int64_t generation = 1) {
  using namespace controller;
  return Json{
      {"apiVersion", kScalerGroupVersion},
      {"kind", kScalerKind},
      {"metadata",
       {{"name", "js-workers"},
        {"namespace", "ns"},
        {"uid", "scaler-uid"},
        {"generation", generation},
        {"resourceVersion", "7"}}},
      {"spec", {{"jobSetName", "js"}, {"replicatedJobName", "workers"}, {"replicas", replicas}}}};
}

}  // namespace jobset_webhook::testing

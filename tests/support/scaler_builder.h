#pragma once

// Test fixture: a ReplicatedJobScaler (elastic.jobset-webhook.io/v1alpha1, docs/elastic.md) as a
// builder, like the JobSet's (support/jobset_builder.h):
//
//   const Json s = MakeScaler("demo-workers").JobSet("demo").ReplicatedJob("workers")
//                      .Replicas(2).MinReplicas(1).MaxReplicas(4).Obj();
//
// The default is a valid scaler of "demo"/"workers" in "default" with replicas 1, as the API
// server stores it after the CRD's default.

#include <string>
#include <utility>

#include "jobset_webhook/json.h"
#include "support/jobset_builder.h"

namespace jobset_webhook::testing {

class ScalerBuilder : public Builder<ScalerBuilder> {
 public:
  explicit ScalerBuilder(const std::string& name) {
    obj_["apiVersion"] = "elastic.jobset-webhook.io/v1alpha1";
    obj_["kind"] = "ReplicatedJobScaler";
    obj_["metadata"] = Json::object();
    if (!name.empty()) obj_["metadata"]["name"] = name;
    obj_["metadata"]["namespace"] = "default";
    obj_["spec"] = {{"jobSetName", "demo"}, {"replicatedJobName", "workers"}, {"replicas", 1}};
  }

  ScalerBuilder& JobSet(const std::string& name) { return Set("/spec/jobSetName", name); }
  ScalerBuilder& ReplicatedJob(const std::string& name) {
    return Set("/spec/replicatedJobName", name);
  }
  ScalerBuilder& Replicas(Json n) { return Set("/spec/replicas", std::move(n)); }
  ScalerBuilder& MinReplicas(Json n) { return Set("/spec/minReplicas", std::move(n)); }
  ScalerBuilder& MaxReplicas(Json n) { return Set("/spec/maxReplicas", std::move(n)); }
};

inline ScalerBuilder MakeScaler(const std::string& name) { return ScalerBuilder(name); }

}  // namespace jobset_webhook::testing

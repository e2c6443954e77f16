#pragma once

// Test fixtures as builders, one per kind, shaped like upstream's pkg/util/testing/wrappers.go:
//
//   const Json js = MakeJobSet("js").Namespace("default")
//                       .ReplicatedJob(MakeReplicatedJob("workers").Replicas(2).Parallelism(1))
//                       .Suspend(true)
//                       .Obj();
//
// The defaults make a valid object: a JobSet has apiVersion, kind, metadata.name and an empty
// spec.replicatedJobs; a ReplicatedJob has one replica and a pod template with one container
// ("main", image "bash:5.1"). Each method sets one field and leaves the others alone; Set and
// Unset reach any field by JSON Pointer for what a test needs once (a wrong type, a missing key).
// The names are upstream's (CamelCase), so a test reads side by side with its Go original.
// AdmissionReviews: support/review_builder.h.

#include <string>
#include <utility>

#include "jobset_webhook/json.h"
#include "support/json_edit.h"

namespace jobset_webhook::testing {

// What both builders share: Set and Unset reach any field by JSON Pointer from the object built,
// e.g. Set("/replicas", "2"); Obj() is the object.
template <class Self>
class Builder {
 public:
  Self& Set(const std::string& pointer, Json value) {
    obj_ = with(std::move(obj_), pointer, std::move(value));
    return self();
  }
  Self& Unset(const std::string& pointer) {
    obj_ = without(std::move(obj_), pointer);
    return self();
  }
  Json Obj() const { return obj_; }

 protected:
  Self& self() { return static_cast<Self&>(*this); }
  Json obj_ = Json::object();
};

// A ReplicatedJob (spec.replicatedJobs[i]). MakeReplicatedJob("") leaves the name out.
class ReplicatedJobBuilder : public Builder<ReplicatedJobBuilder> {
 public:
  explicit ReplicatedJobBuilder(const std::string& name) {
    if (!name.empty()) obj_["name"] = name;
    obj_["replicas"] = 1;
    obj_["template"]["spec"]["template"]["spec"]["containers"] =
        Json::array({Json{{"name", "main"}, {"image", "bash:5.1"}}});
  }

  ReplicatedJobBuilder& Replicas(Json n) { return Set("/replicas", std::move(n)); }
  ReplicatedJobBuilder& GroupName(const std::string& g) { return Set("/groupName", g); }
  // Appends {name, status} to dependsOn (status "Complete" or "Ready").
  ReplicatedJobBuilder& DependsOn(const std::string& name, const std::string& status = "Complete") {
    obj_["dependsOn"].push_back({{"name", name}, {"status", status}});
    return *this;
  }

  // The Job spec (template.spec).
  ReplicatedJobBuilder& Parallelism(Json n) { return JobSpec("parallelism", std::move(n)); }
  ReplicatedJobBuilder& Completions(Json n) { return JobSpec("completions", std::move(n)); }
  ReplicatedJobBuilder& CompletionMode(const std::string& mode) {
    return JobSpec("completionMode", mode);
  }
  // completionMode Indexed with this many completions.
  ReplicatedJobBuilder& Indexed(Json completions) {
    return CompletionMode("Indexed").Completions(std::move(completions));
  }
  ReplicatedJobBuilder& BackoffLimit(Json n) { return JobSpec("backoffLimit", std::move(n)); }
  ReplicatedJobBuilder& JobSpec(const std::string& key, Json value) {
    return Set("/template/spec/" + key, std::move(value));
  }

  // The pod template (template.spec.template).
  ReplicatedJobBuilder& PodTemplate(Json pod_template) {
    return Set("/template/spec/template", std::move(pod_template));
  }
  ReplicatedJobBuilder& PodSpec(const std::string& key, Json value) {
    return Set("/template/spec/template/spec/" + key, std::move(value));
  }
  ReplicatedJobBuilder& PodLabel(const std::string& key, const std::string& value) {
    obj_["template"]["spec"]["template"]["metadata"]["labels"][key] = value;
    return *this;
  }
  // The pod's only container, replacing the default one.
  ReplicatedJobBuilder& Container(const std::string& name, const std::string& image) {
    return PodSpec("containers", Json::array({Json{{"name", name}, {"image", image}}}));
  }
  ReplicatedJobBuilder& AddInitContainer(Json container) {
    pod_spec()["initContainers"].push_back(std::move(container));
    return *this;
  }
  // The image of the first container.
  ReplicatedJobBuilder& Image(const std::string& image) {
    return Set("/template/spec/template/spec/containers/0/image", image);
  }
  // Mounts a volume in the first container.
  ReplicatedJobBuilder& VolumeMount(const std::string& volume, const std::string& path) {
    pod_spec()["containers"][0]["volumeMounts"].push_back({{"name", volume}, {"mountPath", path}});
    return *this;
  }
  ReplicatedJobBuilder& AddVolume(Json volume) {
    pod_spec()["volumes"].push_back(std::move(volume));
    return *this;
  }

 private:
  Json& pod_spec() { return obj_["template"]["spec"]["template"]["spec"]; }
};

inline ReplicatedJobBuilder MakeReplicatedJob(const std::string& name) {
  return ReplicatedJobBuilder(name);
}

// A JobSet (jobset.x-k8s.io/v1alpha2). MakeJobSet("") leaves metadata.name out (for
// GenerateName).
class JobSetBuilder : public Builder<JobSetBuilder> {
 public:
  explicit JobSetBuilder(const std::string& name) {
    obj_["apiVersion"] = "jobset.x-k8s.io/v1alpha2";
    obj_["kind"] = "JobSet";
    obj_["metadata"] = Json::object();
    if (!name.empty()) obj_["metadata"]["name"] = name;
    obj_["spec"]["replicatedJobs"] = Json::array();
  }

  // metadata
  JobSetBuilder& Namespace(const std::string& ns) { return Set("/metadata/namespace", ns); }
  JobSetBuilder& GenerateName(const std::string& prefix) {
    return Set("/metadata/generateName", prefix);
  }
  JobSetBuilder& Uid(const std::string& uid) { return Set("/metadata/uid", uid); }
  JobSetBuilder& Label(const std::string& key, const std::string& value) {
    obj_["metadata"]["labels"][key] = value;
    return *this;
  }

  // spec
  JobSetBuilder& ReplicatedJob(const ReplicatedJobBuilder& rjob) {
    return ReplicatedJob(rjob.Obj());
  }
  JobSetBuilder& ReplicatedJob(Json rjob) {
    obj_["spec"]["replicatedJobs"].push_back(std::move(rjob));
    return *this;
  }
  // The whole list at once (a list of thousands, or something that is not a list).
  JobSetBuilder& ReplicatedJobs(Json rjobs) {
    return Set("/spec/replicatedJobs", std::move(rjobs));
  }
  JobSetBuilder& Suspend(bool suspend) { return Set("/spec/suspend", suspend); }
  // e.g. SuccessPolicy({{"operator", "All"}, {"targetReplicatedJobs", {"workers"}}})
  JobSetBuilder& SuccessPolicy(Json policy) {
    return Set("/spec/successPolicy", std::move(policy));
  }
  // e.g. FailurePolicy({{"maxRestarts", 3}, {"rules", {...}}})
  JobSetBuilder& FailurePolicy(Json policy) {
    return Set("/spec/failurePolicy", std::move(policy));
  }
  JobSetBuilder& StartupPolicy(const std::string& order) {
    return Set("/spec/startupPolicy", {{"startupPolicyOrder", order}});
  }
  JobSetBuilder& Network(Json network) { return Set("/spec/network", std::move(network)); }
  JobSetBuilder& EnableDNSHostnames(bool enable) {
    return Set("/spec/network/enableDNSHostnames", enable);
  }
  JobSetBuilder& NetworkSubdomain(const std::string& subdomain) {
    return Set("/spec/network/subdomain", subdomain);
  }
  JobSetBuilder& Coordinator(const std::string& rjob, Json job_index = 0, Json pod_index = 0) {
    return Set("/spec/coordinator", {{"replicatedJob", rjob},
                                     {"jobIndex", std::move(job_index)},
                                     {"podIndex", std::move(pod_index)}});
  }
  JobSetBuilder& ManagedBy(const std::string& controller) {
    return Set("/spec/managedBy", controller);
  }
  // Appends upstream's test claim template: ReadWriteMany, 1Gi, this retention policy.
  JobSetBuilder& VolumeClaimPolicy(const std::string& template_name,
                                   const std::string& when_deleted = "Delete") {
    obj_["spec"]["volumeClaimPolicies"].push_back(
        {{"templates",
          {{{"metadata", {{"name", template_name}}},
            {"spec",
             {{"accessModes", {"ReadWriteMany"}},
              {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
         {"retentionPolicy", {{"whenDeleted", when_deleted}}}});
    return *this;
  }

  JobSetBuilder& Status(Json status) { return Set("/status", std::move(status)); }
};

inline JobSetBuilder MakeJobSet(const std::string& name) { return JobSetBuilder(name); }

}  // namespace jobset_webhook::testing

#pragma once

// Test fixture: the AdmissionReview a kube-apiserver sends, as a builder (like the JobSet's in
// support/jobset_builder.h):
//
//   const std::string body = MakeReview().Update(old_js, new_js).Uid("u-1").Text();
//   const Json create = MakeReview().Create(js).DryRun().Obj();
//   const std::string scaler = MakeReview().Scaler().Create(MakeScaler("s").Obj()).Text();

#include <string>
#include <utility>

#include "jobset_webhook/json.h"

namespace jobset_webhook::testing {

// An AdmissionReview v1 as the API server sends it for a JobSet (or a ReplicatedJobScaler): uid
// 705ab4f5-6393-11e8-b7cc-42010a800002 (the one Kubernetes' documentation shows), kind and
// resource, name and namespace from the object (or oldObject; namespace "default" when it has
// none), the operation, dryRun false.
class ReviewBuilder {
 public:
  ReviewBuilder& Create(Json object) { return Operation("CREATE").Object(std::move(object)); }
  ReviewBuilder& Update(Json old_object, Json object) {
    return Operation("UPDATE").OldObject(std::move(old_object)).Object(std::move(object));
  }
  ReviewBuilder& Delete(Json old_object = nullptr) {
    return Operation("DELETE").OldObject(std::move(old_object));
  }
  ReviewBuilder& Operation(const std::string& op) {
    operation_ = op;
    return *this;
  }
  // null leaves the member out.
  ReviewBuilder& Object(Json object) {
    object_ = std::move(object);
    return *this;
  }
  ReviewBuilder& OldObject(Json old_object) {
    old_object_ = std::move(old_object);
    return *this;
  }
  ReviewBuilder& Uid(const std::string& uid) {
    uid_ = uid;
    return *this;
  }
  ReviewBuilder& DryRun(bool dry_run = true) {
    dry_run_ = dry_run;
    return *this;
  }
  // request.kind and request.resource; the JobSet's unless set.
  ReviewBuilder& Kind(const std::string& group, const std::string& version, const std::string& kind,
                      const std::string& resource) {
    kind_ = {{"group", group}, {"version", version}, {"kind", kind}};
    resource_ = {{"group", group}, {"version", version}, {"resource", resource}};
    return *this;
  }
  // A review of an elastic.jobset-webhook.io/v1alpha1 ReplicatedJobScaler.
  ReviewBuilder& Scaler() {
    return Kind("elastic.jobset-webhook.io", "v1alpha1", "ReplicatedJobScaler",
                "replicatedjobscalers");
  }
  // "admission.k8s.io/v1beta1" for the older version.
  ReviewBuilder& ApiVersion(const std::string& api_version) {
    api_version_ = api_version;
    return *this;
  }

  Json Obj() const {
    Json request = {{"uid", uid_},
                    {"kind", kind_},
                    {"resource", resource_},
                    {"operation", operation_},
                    {"dryRun", dry_run_}};
    const Json& source = object_.is_object() ? object_ : old_object_;
    const Json metadata = source.is_object() ? source.value("metadata", Json::object()) : Json();
    std::string name, ns;
    if (metadata.is_object()) {
      if (metadata.contains("name") && metadata["name"].is_string())
        name = metadata["name"].get<std::string>();
      if (metadata.contains("namespace") && metadata["namespace"].is_string())
        ns = metadata["namespace"].get<std::string>();
    }
    if (!name.empty()) request["name"] = name;
    request["namespace"] = ns.empty() ? "default" : ns;
    if (!object_.is_null()) request["object"] = object_;
    if (!old_object_.is_null()) request["oldObject"] = old_object_;
    return {{"apiVersion", api_version_}, {"kind", "AdmissionReview"}, {"request", request}};
  }
  std::string Text() const { return Obj().dump(); }

 private:
  std::string operation_ = "CREATE";
  Json object_;
  Json old_object_;
  std::string uid_ = "705ab4f5-6393-11e8-b7cc-42010a800002";
  bool dry_run_ = false;
  Json kind_ = {{"group", "jobset.x-k8s.io"}, {"version", "v1alpha2"}, {"kind", "JobSet"}};
  Json resource_ = {{"group", "jobset.x-k8s.io"}, {"version", "v1alpha2"}, {"resource", "jobsets"}};
  std::string api_version_ = "admission.k8s.io/v1";
};

inline ReviewBuilder MakeReview() { return ReviewBuilder(); }

}  // namespace jobset_webhook::testing

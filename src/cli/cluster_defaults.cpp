#include "jobset_webhook/cli/cluster_defaults.h"

#include <string>
#include <string_view>
#include <vector>

#include "cli/json_view_internal.h"
#include "jobset_webhook/decide.h"

namespace jobset_webhook::cli {
namespace {

struct SchemaDefault {
  std::string path;  // dotted; a segment ending in [] stands for every element of that list
  Json value;
};

// Every `default:` of the v0.12.0 CRD (config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml).
// The pod template's come from core/v1 markers that controller-gen copies into the CRD.
std::vector<SchemaDefault> build_table() {
  std::vector<SchemaDefault> table = {
      {"spec.failurePolicy.restartStrategy", "Recreate"},
      {"spec.replicatedJobs[].groupName", "default"},
      {"spec.replicatedJobs[].replicas", 1},
      {"spec.volumeClaimPolicies[].retentionPolicy.whenDeleted", "Delete"},
  };
  const std::string pod = "spec.replicatedJobs[].template.spec.template.spec.";
  for (const char* containers : {"containers", "ephemeralContainers", "initContainers"}) {
    const std::string c = pod + containers + "[].";
    table.push_back({c + "env[].valueFrom.configMapKeyRef.name", ""});
    table.push_back({c + "env[].valueFrom.fileKeyRef.optional", false});
    table.push_back({c + "env[].valueFrom.secretKeyRef.name", ""});
    table.push_back({c + "envFrom[].configMapRef.name", ""});
    table.push_back({c + "envFrom[].secretRef.name", ""});
    table.push_back({c + "livenessProbe.grpc.service", ""});
    table.push_back({c + "ports[].protocol", "TCP"});
    table.push_back({c + "readinessProbe.grpc.service", ""});
    table.push_back({c + "startupProbe.grpc.service", ""});
  }
  table.push_back({pod + "imagePullSecrets[].name", ""});
  const std::string v = pod + "volumes[].";
  table.push_back({v + "azureDisk.fsType", "ext4"});
  table.push_back({v + "azureDisk.readOnly", false});
  table.push_back({v + "cephfs.secretRef.name", ""});
  table.push_back({v + "cinder.secretRef.name", ""});
  table.push_back({v + "configMap.name", ""});
  table.push_back({v + "csi.nodePublishSecretRef.name", ""});
  table.push_back({v + "flexVolume.secretRef.name", ""});
  table.push_back({v + "iscsi.iscsiInterface", "default"});
  table.push_back({v + "iscsi.secretRef.name", ""});
  table.push_back({v + "projected.sources[].configMap.name", ""});
  table.push_back({v + "projected.sources[].secret.name", ""});
  table.push_back({v + "rbd.keyring", "/etc/ceph/keyring"});
  table.push_back({v + "rbd.pool", "rbd"});
  table.push_back({v + "rbd.secretRef.name", ""});
  table.push_back({v + "rbd.user", "admin"});
  table.push_back({v + "scaleIO.fsType", "xfs"});
  table.push_back({v + "scaleIO.secretRef.name", ""});
  table.push_back({v + "scaleIO.storageMode", "ThinProvisioned"});
  table.push_back({v + "storageos.secretRef.name", ""});
  return table;
}

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    out.push_back(
        path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

void apply(Json& node, const std::vector<std::string_view>& path, std::size_t i,
           const Json& value) {
  if (!node.is_object()) return;
  std::string_view name = path[i];
  const bool each = name.size() > 2 && name.substr(name.size() - 2) == "[]";
  if (each) name.remove_suffix(2);
  const auto it = node.find(name);
  if (i + 1 == path.size()) {
    if (it == node.end()) {
      node[std::string(name)] = value;
    } else if (it->is_null()) {
      *it = value;
    }
    return;
  }
  if (it == node.end()) return;
  if (!each) {
    apply(*it, path, i + 1, value);
  } else if (it->is_array()) {
    for (auto& element : *it) apply(element, path, i + 1, value);
  }
}

std::string metadata_name(const Json& object) {
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return {};
  const auto name = metadata->find("name");
  return name != metadata->end() && name->is_string() ? name->get<std::string>() : std::string();
}

}  // namespace

void apply_schema_defaults(Json& jobset) {
  static const std::vector<SchemaDefault> kTable = build_table();
  for (const auto& d : kTable) apply(jobset, segments(d.path), 0, d.value);
}

Result<Json> cluster_defaults(const Json& jobset, const Policy& policy) {
  Json stored = jobset;
  apply_schema_defaults(stored);
  auto view = ParsedView::of(stored);
  if (!view.ok()) return view.failure();
  AdmissionRequest request;
  request.hook = Hook::kMutating;
  request.operation = Operation::kCreate;
  request.object = view.value().root();
  request.name = metadata_name(stored);
  const Decision decision = decide(request, policy);
  if (decision.patch.empty()) return stored;
  try {
    stored = stored.patch(decision.patch);
  } catch (const std::exception& e) {
    return Failure{500, std::string("the mutating webhook's defaults do not apply: ") + e.what()};
  }
  apply_schema_defaults(stored);
  return stored;
}

}  // namespace jobset_webhook::cli

#include "jobset_schema.h"

namespace jobset_webhook::validation {
namespace {

SchemaNode field(std::string_view name, SchemaType type) {
  SchemaNode n;
  n.name = name;
  n.type = type;
  return n;
}

SchemaNode object(std::string_view name, std::vector<SchemaNode> properties,
                  std::vector<std::string_view> required = {}) {
  SchemaNode n = field(name, SchemaType::kObject);
  n.properties = std::move(properties);
  n.required = std::move(required);
  return n;
}

SchemaNode list(std::string_view name, SchemaNode items,
                std::optional<std::size_t> max_items = std::nullopt,
                std::string_view list_map_key = {}) {
  SchemaNode n = field(name, SchemaType::kArray);
  n.items.push_back(std::move(items));
  n.max_items = max_items;
  n.list_map_key = list_map_key;
  return n;
}

SchemaNode enumeration(std::string_view name, std::vector<std::string_view> values) {
  SchemaNode n = field(name, SchemaType::kString);
  n.enum_values = std::move(values);
  return n;
}

SchemaNode int32_field(std::string_view name, std::optional<std::int64_t> minimum = std::nullopt) {
  SchemaNode n = field(name, SchemaType::kInteger);
  n.minimum = minimum;
  n.int32 = true;
  return n;
}

// A field checked with the field-kinds table.
SchemaNode kinds(std::string_view name, const FieldKind* kind) {
  SchemaNode n = field(name, SchemaType::kObject);
  n.kind = kind;
  return n;
}

// An object whose keys are free (additionalProperties): nothing in it is pruned, and with kind
// set (a map of quantities), its values are checked as the field-kinds table says.
SchemaNode map_of(std::string_view name, const FieldKind* kind = nullptr) {
  SchemaNode n = field(name, SchemaType::kObject);
  n.kind = kind;
  return n;
}

SchemaNode string_list(std::string_view name) { return list(name, field("", SchemaType::kString)); }

// A volumeClaimPolicies template: a PersistentVolumeClaim whose metadata the CRD limits to the
// five fields of an embedded ObjectMeta (controller-gen's generateEmbeddedObjectMeta).
SchemaNode pvc_template() {
  const FieldKind* quantities =
      find_kind("template.spec.template.spec.containers[].resources.limits");
  SchemaNode condition =
      object("", {field("lastProbeTime", SchemaType::kString),
                  field("lastTransitionTime", SchemaType::kString),
                  field("message", SchemaType::kString), field("reason", SchemaType::kString),
                  field("status", SchemaType::kString), field("type", SchemaType::kString)});
  return object(
      "", {
              field("apiVersion", SchemaType::kString),
              field("kind", SchemaType::kString),
              object("metadata",
                     {map_of("annotations"), string_list("finalizers"), map_of("labels"),
                      field("name", SchemaType::kString), field("namespace", SchemaType::kString)}),
              kinds("spec", &pvc_spec_kind()),
              object("status",
                     {string_list("accessModes"), map_of("allocatedResourceStatuses"),
                      map_of("allocatedResources", quantities), map_of("capacity", quantities),
                      list("conditions", std::move(condition)),
                      field("currentVolumeAttributesClassName", SchemaType::kString),
                      object("modifyVolumeStatus",
                             {field("status", SchemaType::kString),
                              field("targetVolumeAttributesClassName", SchemaType::kString)}),
                      field("phase", SchemaType::kString)}),
          });
}

SchemaNode build_spec() {
  SchemaNode replicated_job = object("",
                                     {
                                         field("name", SchemaType::kString),
                                         field("groupName", SchemaType::kString),
                                         int32_field("replicas", 0),
                                         list("dependsOn",
                                              object("",
                                                     {field("name", SchemaType::kString),
                                                      enumeration("status", {"Ready", "Complete"})},
                                                     {"name", "status"}),
                                              5, "name"),
                                         kinds("template", replicated_job_kind().field("template")),
                                     },
                                     {"name", "template"});
  SchemaNode replicated_jobs =
      list("replicatedJobs", std::move(replicated_job), std::nullopt, "name");

  SchemaNode volume_claim_policy =
      object("", {object("retentionPolicy", {enumeration("whenDeleted", {"Delete", "Retain"})}),
                  list("templates", pvc_template(), 50)});
  SchemaNode volume_claim_policies =
      list("volumeClaimPolicies", std::move(volume_claim_policy), 50);

  return object(
      "spec",
      {
          std::move(replicated_jobs),
          object("network", {field("enableDNSHostnames", SchemaType::kBoolean),
                             field("subdomain", SchemaType::kString),
                             field("publishNotReadyAddresses", SchemaType::kBoolean)}),
          object("successPolicy",
                 {enumeration("operator", {"All", "Any"}),
                  list("targetReplicatedJobs", field("", SchemaType::kString))},
                 {"operator"}),
          object(
              "failurePolicy",
              {int32_field("maxRestarts"),
               enumeration("restartStrategy", {"Recreate", "BlockingRecreate", "InPlaceRestart"}),
               list("rules",
                    object("",
                           {field("name", SchemaType::kString),
                            enumeration("action", {"FailJobSet", "RestartJobSet",
                                                   "RestartJobSetAndIgnoreMaxRestarts",
                                                   "RestartJob", "RestartJobAndIgnoreMaxRestarts"}),
                            list("onJobFailureReasons", field("", SchemaType::kString)),
                            list("onJobFailureMessagePatterns", field("", SchemaType::kString)),
                            list("targetReplicatedJobs", field("", SchemaType::kString))},
                           {"action", "name"}))}),
          object("startupPolicy", {enumeration("startupPolicyOrder", {"AnyOrder", "InOrder"})},
                 {"startupPolicyOrder"}),
          field("suspend", SchemaType::kBoolean),
          object("coordinator",
                 {field("replicatedJob", SchemaType::kString),
                  field("jobIndex", SchemaType::kInteger), field("podIndex", SchemaType::kInteger)},
                 {"replicatedJob"}),
          std::move(volume_claim_policies),
          field("managedBy", SchemaType::kString),
          int32_field("ttlSecondsAfterFinished", 0),
      });
}

SchemaNode build_status() {
  SchemaNode condition = object(
      "", {field("lastTransitionTime", SchemaType::kString), field("message", SchemaType::kString),
           field("observedGeneration", SchemaType::kInteger), field("reason", SchemaType::kString),
           field("status", SchemaType::kString), field("type", SchemaType::kString)});
  SchemaNode replicated_job_status = object(
      "", {field("active", SchemaType::kInteger), field("failed", SchemaType::kInteger),
           list("jobRestarts", field("", SchemaType::kInteger)),
           list("jobRestartsCountTowardsMax", field("", SchemaType::kInteger)),
           field("name", SchemaType::kString), field("ready", SchemaType::kInteger),
           field("succeeded", SchemaType::kInteger), field("suspended", SchemaType::kInteger)});
  return object("status", {list("conditions", std::move(condition)),
                           field("currentInPlaceRestartAttempt", SchemaType::kInteger),
                           field("previousInPlaceRestartAttempt", SchemaType::kInteger),
                           list("replicatedJobsStatus", std::move(replicated_job_status)),
                           field("restarts", SchemaType::kInteger),
                           field("restartsCountTowardsMax", SchemaType::kInteger),
                           field("terminalState", SchemaType::kString)});
}

}  // namespace

const FieldKind& pvc_spec_kind() {
  static const FieldKind* const kind =
      find_kind("template.spec.template.spec.volumes[].ephemeral.volumeClaimTemplate.spec");
  return *kind;
}

const SchemaNode& status_schema() {
  static const SchemaNode schema = build_status();
  return schema;
}

const SchemaNode& spec_schema() {
  static const SchemaNode schema = build_spec();
  return schema;
}

}  // namespace jobset_webhook::validation

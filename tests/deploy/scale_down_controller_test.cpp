// manifests/components/scale-down-controller on top of manifests/base, rendered by
// `kubectl kustomize`: the Deployment starts a subcommand with flags this build accepts, the RBAC
// grants exactly what the controller calls, and the webhook's policy says the controller is
// installed. Skipped with a warning where kubectl is absent.

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "deploy/deploy_support.h"
#include "cli/documents.h"
#include "jobset_webhook/policy.h"

using jobset_webhook::Json;
using namespace jobset_webhook::testing;

namespace {

std::vector<Json> render_with_component(const ManifestsCopy& copy,
                                        const std::string& component = "scale-down-controller") {
  const auto dir = copy.root() / ("with-" + component);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kustomization.yaml") << "apiVersion: kustomize.config.k8s.io/v1beta1\n"
                                               "kind: Kustomization\n"
                                               "resources:\n- ../base\n"
                                               "components:\n"
                                               "- ../components/" +
                                                   component + "\n";
  return render(dir);
}

// What the controller calls on JobSets, Jobs, Pods, ReplicatedJobScalers and Events
// (scale-down-controller/rbac.yaml).
const std::set<std::string> kWatchedGrants = {
    "jobset.x-k8s.io jobsets get",
    "jobset.x-k8s.io jobsets list",
    "jobset.x-k8s.io jobsets watch",
    "jobset.x-k8s.io jobsets patch",
    "batch jobs list",
    "batch jobs watch",
    "batch jobs delete",
    "batch jobs patch",
    " pods list",
    " pods patch",
    "elastic.jobset-webhook.io replicatedjobscalers list",
    "elastic.jobset-webhook.io replicatedjobscalers watch",
    "elastic.jobset-webhook.io replicatedjobscalers create",
    "elastic.jobset-webhook.io replicatedjobscalers patch",
    "elastic.jobset-webhook.io replicatedjobscalers/status patch",
    " events create",
};

// "group resource verb" for every rule of a Role or ClusterRole, with " name" for each of the
// rule's resourceNames.
std::set<std::string> grants(const Json& role) {
  std::set<std::string> out;
  for (const auto& rule : role["rules"]) {
    const Json names = rule.value("resourceNames", Json::array({""}));
    for (const auto& group : rule["apiGroups"]) {
      for (const auto& resource : rule["resources"]) {
        for (const auto& verb : rule["verbs"]) {
          for (const auto& name : names) {
            const std::string n = name.get<std::string>();
            out.insert(group.get<std::string>() + " " + resource.get<std::string>() + " " +
                       verb.get<std::string>() + (n.empty() ? "" : " " + n));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("The scale-down controller component renders a Deployment, its RBAC and the policy",
          "[deploy][scale_down_controller]") {
  if (!have_kubectl()) {
    WARN("kubectl not found: skipped");
    return;
  }
  ManifestsCopy copy;
  const auto objects = render_with_component(copy);

  const Json cluster_role = one_of_kind(objects, "ClusterRole", "jobset-scale-down-controller");
  CHECK(grants(cluster_role) == kWatchedGrants);
  const Json role = one_of_kind(objects, "Role", "jobset-scale-down-controller-leader-election");
  CHECK(role["metadata"]["namespace"] == "jobset-system");
  CHECK(grants(role) ==
        std::set<std::string>{"coordination.k8s.io leases create",
                              "coordination.k8s.io leases get jobset-scale-down-controller",
                              "coordination.k8s.io leases update jobset-scale-down-controller"});
  for (const char* kind : {"ClusterRoleBinding", "RoleBinding"}) {
    const Json binding = one_of_kind(objects, kind);
    CHECK(binding["subjects"] ==
          Json::parse(R"([{"kind":"ServiceAccount","name":"jobset-scale-down-controller",)"
                      R"("namespace":"jobset-system"}])"));
  }

  const Json deployment = one_of_kind(objects, "Deployment", "jobset-scale-down-controller");
  const Json pod = deployment["spec"]["template"]["spec"];
  CHECK(pod["serviceAccountName"] == "jobset-scale-down-controller");
  CHECK(pod.value("automountServiceAccountToken", true));
  const auto args = pod["containers"][0]["args"].get<std::vector<std::string>>();
  REQUIRE(!args.empty());
  CHECK(args[0] == "scale-down-controller");
  // The Lease the Role names by resourceNames is the one the controller holds.
  CHECK(std::find(args.begin(), args.end(), "--lease-name=jobset-scale-down-controller") !=
        args.end());

  // The webhook mounts the component's policy, which says the controller is installed; the
  // controller mounts the same, for its notice default (--config).
  const auto policy_config_map = [](const Json& pod_spec) {
    for (const auto& v : pod_spec["volumes"]) {
      if (v["name"] == "policy") return v["configMap"]["name"].get<std::string>();
    }
    return std::string();
  };
  const Json webhook = one_of_kind(objects, "Deployment", "jobset-webhook");
  const std::string mounted = policy_config_map(webhook["spec"]["template"]["spec"]);
  CHECK(policy_config_map(pod) == mounted);
  const Json config_map = one_of_kind(objects, "ConfigMap", mounted);

  // The flags as written, the policy at its mount path replaced by the ConfigMap's file and a
  // kubeconfig that does not exist: the process gets past flag parsing (which would say "The
  // following argument was not expected" or similar) and reading the policy, and stops at
  // reading the configuration.
  const auto policy_file = copy.root() / "policy.yaml";
  std::ofstream(policy_file) << config_map["data"]["policy.yaml"].get<std::string>();
  const std::string mounted_config = "--config=/etc/jobset-webhook/policy/policy.yaml";
  CHECK(std::find(args.begin(), args.end(), mounted_config) != args.end());
  std::string command = std::string(JOBSET_WEBHOOK_BINARY);
  for (const auto& a : args)
    command += " '" + (a == mounted_config ? "--config=" + policy_file.string() : a) + "'";
  command += " --kubeconfig=/nonexistent/kubeconfig";
  const auto r = run_shell(command);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("kubeconfig /nonexistent/kubeconfig: cannot read") != std::string::npos);

  const auto docs = jobset_webhook::cli::parse_yaml_documents(
      config_map["data"]["policy.yaml"].get<std::string>(), "policy.yaml");
  REQUIRE(docs.ok());
  REQUIRE(docs.value().size() == 1);
  const auto policy = jobset_webhook::parse_policy(docs.value()[0]);
  REQUIRE(policy.ok());
  CHECK(policy.value().elastic.scale_down == jobset_webhook::Policy::ScaleDown::kController);
  CHECK(policy.value().elastic.replicas);
}

TEST_CASE("The namespaced variant grants the same rules in the one namespace it watches",
          "[deploy][scale_down_controller]") {
  if (!have_kubectl()) {
    WARN("kubectl not found: skipped");
    return;
  }
  ManifestsCopy copy;
  const auto objects = render_with_component(copy, "scale-down-controller-namespaced");
  for (const auto& o : objects) CHECK(o["kind"] != "ClusterRole");
  for (const auto& o : objects) CHECK(o["kind"] != "ClusterRoleBinding");
  const Json role = one_of_kind(objects, "Role", "jobset-scale-down-controller");
  CHECK(role["metadata"]["namespace"] == "default");
  CHECK(grants(role) == kWatchedGrants);
  const Json binding = one_of_kind(objects, "RoleBinding", "jobset-scale-down-controller");
  CHECK(binding["metadata"]["namespace"] == "default");
  CHECK(binding["roleRef"]["kind"] == "Role");
  const Json deployment = one_of_kind(objects, "Deployment", "jobset-scale-down-controller");
  const auto args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
                        .get<std::vector<std::string>>();
  CHECK(std::find(args.begin(), args.end(), "--namespace=default") != args.end());
  CHECK(std::find(args.begin(), args.end(), "--lease-name=jobset-scale-down-controller") !=
        args.end());
}

// manifests/components/scale-down-controller-monitoring beside components/monitoring and the
// controller, rendered by `kubectl kustomize` as an overlay adds them, with the overlays'
// `labels:` (which rewrite app.kubernetes.io/name on every object): each ServiceMonitor selects its
// own metrics Service only, each metrics Service the pods of its own Deployment only, on the port
// the process serves /metrics on; the controller's alerts read metrics the controller exports and
// point at a section of docs/observability.md. Needs kubectl: tagged [kubectl].

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "controller/controller_metrics.h"
#include "deploy/deploy_support.h"
#include "support/prometheus.h"

using jobset_webhook::Json;
using namespace jobset_webhook::testing;

namespace {

bool selects(const Json& selector, const Json& labels) {
  for (const auto& [k, v] : selector.items()) {
    if (labels.value(k, Json()) != v) return false;
  }
  return true;
}

std::vector<std::string> names_selected(const std::vector<Json>& objects, const Json& selector,
                                        const Json::json_pointer& labels) {
  std::vector<std::string> out;
  for (const auto& o : objects) {
    if (selects(selector, o.value(labels, Json::object()))) out.push_back(o["metadata"]["name"]);
  }
  return out;
}

std::vector<Json> render_with_monitoring(const ManifestsCopy& copy) {
  const auto dir = copy.root() / "with-controller-monitoring";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kustomization.yaml") << "apiVersion: kustomize.config.k8s.io/v1beta1\n"
                                               "kind: Kustomization\n"
                                               "namespace: jobset-system\n"
                                               "labels:\n"
                                               "- pairs:\n"
                                               "    app.kubernetes.io/name: jobset-webhook\n"
                                               "    app.kubernetes.io/part-of: jobset-webhook\n"
                                               "resources:\n- ../overlays/monitoring\n"
                                               "components:\n"
                                               "- ../components/scale-down-controller\n"
                                               "- ../components/scale-down-controller-monitoring\n";
  return render(dir);
}

}  // namespace

TEST_CASE("Each ServiceMonitor scrapes its own pods only: the webhook's and the controller's",
          "[deploy][scale_down_controller][kubectl]") {
  REQUIRE(have_kubectl());
  ManifestsCopy copy;
  const auto objects = render_with_monitoring(copy);
  const auto services = all_of_kind(objects, "Service");
  const auto deployments = all_of_kind(objects, "Deployment");
  struct Scrape {
    std::string monitor, service, deployment;
  };
  for (const auto& s :
       std::vector<Scrape>{{"jobset-webhook", "jobset-webhook-metrics", "jobset-webhook"},
                           {"jobset-scale-down-controller", "jobset-scale-down-controller-metrics",
                            "jobset-scale-down-controller"}}) {
    DYNAMIC_SECTION(s.monitor) {
      const Json monitor = one_of_kind(objects, "ServiceMonitor", s.monitor);
      CHECK(names_selected(services, monitor["spec"]["selector"]["matchLabels"],
                           Json::json_pointer("/metadata/labels")) ==
            std::vector<std::string>{s.service});
      const Json service = one_of_kind(objects, "Service", s.service);
      CHECK(names_selected(deployments, service["spec"]["selector"],
                           Json::json_pointer("/spec/template/metadata/labels")) ==
            std::vector<std::string>{s.deployment});
      REQUIRE(service["spec"]["ports"].size() == 1);
      const Json& port = service["spec"]["ports"][0];
      const Json container = one_of_kind(objects, "Deployment",
                                         s.deployment)["spec"]["template"]["spec"]["containers"][0];
      Json container_port;
      for (const auto& p : container["ports"]) {
        if (p["name"] == port["targetPort"]) container_port = p["containerPort"];
      }
      CHECK(container_port == 8080);
      const auto args = container["args"].get<std::vector<std::string>>();
      CHECK(std::find(args.begin(), args.end(), "--metrics-port=8080") != args.end());
      REQUIRE(monitor["spec"]["endpoints"].size() == 1);
      CHECK(monitor["spec"]["endpoints"][0]["port"] == port["name"]);
      CHECK(monitor["spec"]["endpoints"][0]["path"] == "/metrics");
    }
  }
  // And no other Service reaches the controller's pods (the webhook's answers admission only).
  const std::map<std::string, std::vector<std::string>> reached_by = {
      {"jobset-scale-down-controller", {"jobset-scale-down-controller-metrics"}},
      {"jobset-webhook", {"jobset-webhook", "jobset-webhook-metrics"}},
  };
  for (const auto& [deployment, want] : reached_by) {
    INFO(deployment);
    const Json pod_labels =
        one_of_kind(objects, "Deployment", deployment)["spec"]["template"]["metadata"]["labels"];
    std::vector<std::string> got;
    for (const auto& s : services) {
      if (selects(s["spec"]["selector"], pod_labels)) got.push_back(s["metadata"]["name"]);
    }
    std::sort(got.begin(), got.end());
    CHECK(got == want);
  }
}

TEST_CASE("The controller's alerts read metrics it exports and point at their section of the docs",
          "[deploy][scale_down_controller][kubectl]") {
  REQUIRE(have_kubectl());
  ManifestsCopy copy;
  const auto objects = render_with_monitoring(copy);
  const auto exported =
      parse_prometheus(jobset_webhook::controller::ControllerMetrics().text(0, 0, 0));
  REQUIRE(exported.error == "");
  const Json rule = one_of_kind(objects, "PrometheusRule", "jobset-scale-down-controller");
  REQUIRE(rule["spec"]["groups"].size() == 1);
  std::map<std::string, Json> alerts;
  for (const auto& a : rule["spec"]["groups"][0]["rules"]) alerts[a["alert"]] = a;

  std::ifstream docs_file(std::string(JOBSET_SOURCE_DIR) + "/docs/observability.md");
  std::stringstream docs;
  docs << docs_file.rdbuf();

  // The job is named after the metrics Service (the Prometheus Operator's default).
  const std::string job = "{job=\"jobset-scale-down-controller-metrics\"";
  const std::map<std::string, std::vector<std::string>> reads = {
      {"JobSetScaleDownControllerDown", {"up"}},
      {"JobSetScaleDownNoLeader", {"jobset_scale_down_leader"}},
      {"JobSetScaleDownReconcileErrors",
       {"jobset_scale_down_reconcile_errors_total", "jobset_scale_down_reconcile_total"}},
      {"JobSetScaleDownBlocked", {"jobset_scale_down_waiting_jobsets", "jobset_scale_down_leader"}},
      {"JobSetScaleDownNoticeOverdue",
       {"jobset_scale_down_notices_past_deadline", "jobset_scale_down_leader"}},
  };
  CHECK(alerts.size() == reads.size());
  for (const auto& [name, metrics] : reads) {
    INFO(name);
    REQUIRE(alerts.count(name) == 1);
    const Json& alert = alerts[name];
    const std::string expr = alert["expr"];
    for (const auto& metric : metrics) {
      INFO(metric);
      if (metric != "up") CHECK(exported.types.count(metric) == 1);  // up is Prometheus' own
      CHECK(expr.find(metric + job) != std::string::npos);
    }
    CHECK(alert.contains("for"));
    CHECK((alert["labels"]["severity"] == "critical" || alert["labels"]["severity"] == "warning"));
    CHECK(alert["annotations"].contains("summary"));
    CHECK(alert["annotations"].contains("description"));
    // GitHub's anchor of the heading "#### <alert name>".
    std::string anchor = name;
    std::transform(anchor.begin(), anchor.end(), anchor.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    CHECK(alert["annotations"]["runbook"] == "docs/observability.md#" + anchor);
    CHECK(docs.str().find("\n#### " + name + "\n") != std::string::npos);
  }
  // The one reason the alert on waiting JobSets leaves out is a reason the controller exports.
  CHECK(alerts["JobSetScaleDownBlocked"]["expr"].get<std::string>().find(
            "reason!=\"managed_elsewhere\"") != std::string::npos);
  CHECK(exported.value("jobset_scale_down_waiting_jobsets", {{"reason", "managed_elsewhere"}}) ==
        0.0);
}

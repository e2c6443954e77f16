#pragma once

// `jobset-webhook scale-down-controller`: watches JobSets and the Jobs that carry upstream's
// jobset.sigs.k8s.io/jobset-name label, and for one JobSet at a time deletes what
// plan_scale_down names, highest index first, with the planned propagation and a UID
// precondition, recording an Event on the JobSet for each Job deleted. A JobSet that asks for a
// scale-down notice has its leaving Jobs and its Pods told first (docs/elastic.md). Only the holder of the
// Lease acts (leader_election.h); every replica keeps its caches warm. Prometheus metrics and
// /healthz on a plain-HTTP port.

#include <cstdint>
#include <string>

#include "jobset_webhook/controller/leader_election.h"
#include "jobset_webhook/exit_codes.h"
#include "jobset_webhook/runtime/log.h"

namespace jobset_webhook::controller {

struct ControllerOptions {
  std::string kubeconfig;       // empty: in-cluster configuration
  std::string context;          // kubeconfig context; empty: current-context
  std::string watch_namespace;  // empty: all namespaces
  std::string lease_namespace;  // empty: the configuration's namespace
  std::string lease_name = "jobset-scale-down-controller";
  std::string identity;  // empty: <hostname>_<random>
  std::string bind = "0.0.0.0";
  int metrics_port = 8080;          // /metrics, /healthz and /readyz; 0: none; -1: any free port
  std::string log_level = "info";   // runtime::parse_log_level
  std::string log_format = "json";  // or text
  LeaseTimings lease;
  int watch_timeout_seconds = 300;
  // The scale-down notice of JobSets without their own annotation (the policy file's
  // elastic.scaleDownNoticeSeconds, scale_down_notice.h); 0: none.
  std::int64_t default_notice_seconds = 0;
};

// Runs until SIGTERM or SIGINT (runtime/signals.h: a second one ends the process at once), then
// finishes the pass in progress, hands its Lease over and stops. Must be called before the
// process starts any thread. Exit code (exit_codes.h): kExitOk after a clean stop,
// kExitUnusableInput when the configuration cannot be read, kExitFailed when the metrics port
// cannot be bound.
int run_scale_down_controller(const ControllerOptions& options, const runtime::Log& log);

}  // namespace jobset_webhook::controller

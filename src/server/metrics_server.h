#pragma once

// GET /metrics in Prometheus' text format (server_metrics.h), plain HTTP on its own port
// (`serve --metrics-port`), away from the admission port so that a scrape never needs the
// webhook's certificate or competes with the kube-apiserver for its connections.

#include <string>

#include "jobset_webhook/runtime/plain_http_server.h"
#include "server_metrics.h"

namespace jobset_webhook::server {

class MetricsServer {
 public:
  // metrics must outlive the server.
  explicit MetricsServer(const ServerMetrics& metrics);

  // Binds host:port (0: any free port) and serves on a thread. The bound port, or -1.
  int start(const std::string& host, int port) { return http_.start(host, port); }
  void stop() { http_.stop(); }

 private:
  runtime::PlainHttpServer http_;
};

}  // namespace jobset_webhook::server

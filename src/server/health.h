#pragma once

// The plain-HTTP health endpoints, on their own port so that the kubelet's probes need no TLS and
// never queue behind admission traffic:
//   GET /healthz  200 "ok" while the process serves at all
//   GET /readyz   200 "ok" once the certificates are loaded and the HTTPS server accepts
//                 connections; 503 before that and from the start of a shutdown (so that the
//                 Service stops sending new requests)

#include <atomic>
#include <string>

#include "jobset_webhook/runtime/plain_http_server.h"

namespace jobset_webhook::server {

class HealthServer {
 public:
  HealthServer();

  // Binds host:port (0: any free port) and serves on a thread. The bound port, or -1.
  int start(const std::string& host, int port) { return http_.start(host, port); }
  void set_ready(bool ready) { ready_ = ready; }
  void stop() { http_.stop(); }

 private:
  std::atomic<bool> ready_{false};
  runtime::PlainHttpServer http_;  // last: its thread stops before ready_ goes
};

}  // namespace jobset_webhook::server

#pragma once

// The plain-HTTP health endpoints, on their own port so that the kubelet's probes need no TLS and
// never queue behind admission traffic:
//   GET /healthz  200 "ok" while the process serves at all
//   GET /readyz   200 "ok" once the HTTPS server accepts connections, 503 before that and from
//                 the start of a shutdown (so that the Service stops sending new requests)

#include <atomic>
#include <string>
#include <thread>

#include <httplib.h>

namespace jobset_webhook::server {

class HealthServer {
 public:
  HealthServer();
  ~HealthServer();  // stop()
  HealthServer(const HealthServer&) = delete;
  HealthServer& operator=(const HealthServer&) = delete;

  // Binds host:port (0: any free port) and serves on a thread. The bound port, or -1.
  int start(const std::string& host, int port);
  void set_ready(bool ready) { ready_ = ready; }
  void stop();

 private:
  httplib::Server server_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace jobset_webhook::server

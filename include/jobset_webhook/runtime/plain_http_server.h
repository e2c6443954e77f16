#pragma once

// A small plain-HTTP server on its own thread, for the kubelet's probes and Prometheus' scrapes
// of both daemons (serve's health and metrics ports, the controller's metrics port): a few
// connection threads, a short keep-alive, and a port in use fails to bind (no SO_REUSEPORT).
// Routes are added on http() before start().

#include <httplib.h>

#include <atomic>
#include <string>
#include <thread>

namespace jobset_webhook::runtime {

class PlainHttpServer {
 public:
  PlainHttpServer();
  ~PlainHttpServer();  // stop()
  PlainHttpServer(const PlainHttpServer&) = delete;
  PlainHttpServer& operator=(const PlainHttpServer&) = delete;

  httplib::Server& http() { return server_; }

  // Binds host:port (0: any free port) and serves on a thread. The bound port, or -1.
  int start(const std::string& host, int port);
  void stop();

 private:
  httplib::Server server_;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace jobset_webhook::runtime

#pragma once

// `jobset-webhook serve` in one object: the HTTPS admission endpoints (routes.h) on an
// HttpsServer, the TLS files watched by a CredentialReloader, the plain-HTTP health endpoints
// (health.h) and the plain-HTTP metrics endpoint (metrics_server.h), all counting into one
// ServerMetrics.
//
//   auto server = AdmissionServer::start(options, log);   // serving, /readyz ready
//   ...
//   server.value()->shutdown(options.shutdown_delay, options.shutdown_grace);  // true: drained
//
// Shutdown, in order: /readyz answers 503; for the delay, connections are still accepted and
// requests answered as before, but every response says `Connection: close` and its connection
// closes after it; at the end of the delay idle connections close and the listener closes, so new
// connections are refused; then it waits, up to the grace period, for the last connection to
// finish. Requests already being received or answered are completed. Each phase is logged with
// its counts. /metrics answers until the end, so that the last scrape sees the shutdown.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "jobset_webhook/result.h"
#include "credential_reloader.h"
#include "health.h"
#include "https_server.h"
#include "jobset_webhook/runtime/log.h"
#include "large_body_buffers.h"
#include "memory_budget.h"
#include "metrics_server.h"
#include "jobset_webhook/server/options.h"
#include "server_metrics.h"

namespace jobset_webhook::server {

class AdmissionServer {
 public:
  // Loads the TLS files, binds the ports and starts serving. Failure kInvalidArgument: the TLS
  // files are unusable; kUnavailable: a port could not be bound. Sets SIGPIPE to be ignored: a
  // client that goes away while being answered must fail a write, not end the process. log must
  // outlive the server.
  static Result<std::unique_ptr<AdmissionServer>> start(const ServerOptions& options,
                                                        const runtime::Log& log);

  // shutdown(shutdown_grace) unless done, then waits for every thread.
  ~AdmissionServer();
  AdmissionServer(const AdmissionServer&) = delete;
  AdmissionServer& operator=(const AdmissionServer&) = delete;

  int port() const { return port_; }
  int health_port() const { return health_port_; }
  int metrics_port() const { return metrics_port_; }  // -1 without options.metrics_port
  const ServerMetrics& metrics() const { return *metrics_; }

  // The graceful shutdown above. True when every connection finished within grace (counted from
  // the end of the delay); the server's threads are then all gone. Later calls return the first
  // call's result. Blocks for the delay, then up to grace.
  bool shutdown(std::chrono::milliseconds delay, std::chrono::milliseconds grace);
  bool shutdown(std::chrono::milliseconds grace);  // without a delay

 private:
  AdmissionServer(const ServerOptions& options, const runtime::Log& log);

  const ServerOptions options_;
  const runtime::Log& log_;
  std::unique_ptr<ServerMetrics> metrics_;          // first: everything else counts into it
  std::unique_ptr<MemoryBudget> budget_;            // read by metrics_' scrapes, used by https_
  std::unique_ptr<LargeBodyBuffers> large_bodies_;  // used by https_
  std::unique_ptr<CredentialReloader> reloader_;
  ClientNameCheck client_names_;  // read by handshakes: outlives https_
  std::unique_ptr<HttpsServer> https_;
  std::unique_ptr<HealthServer> health_;
  std::unique_ptr<MetricsServer> metrics_server_;
  int port_ = -1;
  int health_port_ = -1;
  int metrics_port_ = -1;

  std::thread listen_thread_;
  std::mutex mutex_;
  std::condition_variable listen_returned_cv_;
  bool listen_returned_ = false;  // every connection of the HTTPS server has finished
  bool shut_down_ = false;
  bool drained_ = false;
};

}  // namespace jobset_webhook::server

#include "server.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <openssl/err.h>

#include "routes.h"

namespace jobset_webhook::server {
namespace {

Failure cannot_listen(const std::string& host, int port, int error) {
  return unavailable("cannot listen on " + host + ":" + std::to_string(port) + ": " +
                     (error != 0 ? std::strerror(error) : "address unavailable"));
}

}  // namespace

AdmissionServer::AdmissionServer(const ServerOptions& options, const runtime::Log& log)
    : options_(options),
      log_(log),
      metrics_(std::make_unique<ServerMetrics>()),
      budget_(std::make_unique<MemoryBudget>(options.max_inflight_bytes -
                                             kept_large_body_bytes(options.max_inflight_bytes))),
      large_bodies_(std::make_unique<LargeBodyBuffers>(
          kept_large_body_bytes(options.max_inflight_bytes) > 0 ? kKeptLargeBodies : 0,
          kKeptLargeBodyBytes)) {
  metrics_->watch_memory_budget(*budget_);
  // Process-wide, like the parsers: the last server started in a process sets it.
  admission::keep_large_parsers(large_bodies_->count(), kKeptLargeBodyBytes);
}

Result<std::unique_ptr<AdmissionServer>> AdmissionServer::start(const ServerOptions& options,
                                                                const runtime::Log& log) {
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<AdmissionServer> s(new AdmissionServer(options, log));
  auto reloader =
      CredentialReloader::start(options.tls, options.reload_interval, log, *s->metrics_);
  if (!reloader.ok()) return reloader.failure();
  s->reloader_ = std::move(reloader.value());

  s->client_names_ = ClientNameCheck{options.client_names, &log, s->metrics_.get()};
  s->https_ = std::make_unique<HttpsServer>(s->options_, *s->reloader_, s->client_names_, log);
  if (!s->https_->is_valid()) {
    const char* reason = ERR_reason_error_string(ERR_get_error());
    return invalid_argument(std::string("cannot set up TLS: ") +
                            (reason != nullptr ? reason : "unknown error"));
  }
  install_routes(*s->https_, s->options_, *s->metrics_, *s->budget_, *s->large_bodies_, log);
  errno = 0;
  s->port_ = s->https_->bind(options.bind_address, options.port);
  if (s->port_ < 0) return cannot_listen(options.bind_address, options.port, errno);
  s->health_ = std::make_unique<HealthServer>();
  errno = 0;
  s->health_port_ = s->health_->start(options.bind_address, options.health_port);
  if (s->health_port_ < 0) return cannot_listen(options.bind_address, options.health_port, errno);
  if (options.metrics_port) {
    s->metrics_server_ = std::make_unique<MetricsServer>(*s->metrics_);
    errno = 0;
    s->metrics_port_ = s->metrics_server_->start(options.bind_address, *options.metrics_port);
    if (s->metrics_port_ < 0)
      return cannot_listen(options.bind_address, *options.metrics_port, errno);
  }

  s->listen_thread_ = std::thread([raw = s.get()] {
    raw->https_->listen_after_bind();
    std::lock_guard lock(raw->mutex_);
    raw->listen_returned_ = true;
    raw->listen_returned_cv_.notify_all();
  });
  // Ready only once the accept loop runs: shutdown() can stop only a running server.
  for (;;) {
    if (s->https_->is_running()) break;
    std::lock_guard lock(s->mutex_);
    if (s->listen_returned_) return unavailable("the HTTPS listener stopped as it started");
    std::this_thread::yield();
  }
  s->health_->set_ready(true);
  log.info(
      "serving",
      {{"address", options.bind_address},
       {"port", s->port_},
       {"healthPort", s->health_port_},
       {"metricsPort", s->metrics_port_ >= 0 ? Json(s->metrics_port_) : Json("disabled")},
       {"minTLSVersion", options.min_tls_version == TlsVersion::k1_3 ? "1.3" : "1.2"},
       {"clientCertificates", options.tls.client_ca_file.empty() ? "not requested" : "required"},
       {"clientNames", options.client_names.empty() ? Json("any") : Json(options.client_names)},
       {"maxRequestBytes", options.max_request_bytes},
       {"maxInflightBytes", options.max_inflight_bytes},
       {"maxConnections", options.max_connections}});
  return s;
}

AdmissionServer::~AdmissionServer() {
  if (!listen_thread_.joinable()) return;  // never started, or shut down and drained
  shutdown(options_.shutdown_grace);
  // After a grace period that ran out: connections still finish, bounded by the read and write
  // timeouts.
  if (listen_thread_.joinable()) listen_thread_.join();
}

bool AdmissionServer::shutdown(std::chrono::milliseconds grace) {
  return shutdown(std::chrono::milliseconds(0), grace);
}

bool AdmissionServer::shutdown(std::chrono::milliseconds delay, std::chrono::milliseconds grace) {
  std::unique_lock lock(mutex_);
  if (shut_down_) return drained_;
  shut_down_ = true;
  health_->set_ready(false);
  https_->begin_drain();
  log_.info(
      "shutdown: not ready; every response now closes its connection",
      {{"delayMs", delay.count()}, {"openConnections", https_->drain_counts().connections_open}});
  if (delay.count() > 0) {
    // Endpoints are being removed from the Service while clients may still pick this Pod: serve
    // them all, each on a connection that closes after its response.
    lock.unlock();
    std::this_thread::sleep_for(delay);
    lock.lock();
  }
  const auto during_delay = https_->drain_counts();
  log_.info("shutdown: closing idle connections and the listener; finishing requests in flight",
            {{"requestsAnswered", during_delay.requests_answered},
             {"connectionsClosed", during_delay.connections_closed},
             {"openConnections", during_delay.connections_open},
             {"graceMs", grace.count()}});
  const auto deadline = std::chrono::steady_clock::now() + grace;
  https_->close_idle();
  https_->stop();
  drained_ = listen_returned_cv_.wait_until(lock, deadline, [this] { return listen_returned_; });
  lock.unlock();
  const auto counts = https_->drain_counts();
  if (!drained_) {
    log_.error("shutdown grace period ran out with connections still open",
               {{"graceMs", grace.count()}, {"openConnections", counts.connections_open}});
    return false;
  }
  listen_thread_.join();
  health_->stop();
  if (metrics_server_) metrics_server_->stop();
  log_.info("stopped", {{"requestsAnswered", counts.requests_answered},
                        {"connectionsClosed", counts.connections_closed},
                        {"idleConnectionsClosed", counts.idle_connections_closed}});
  return true;
}

}  // namespace jobset_webhook::server

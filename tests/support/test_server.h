#pragma once

// Test helper: the real AdmissionServer on 127.0.0.1, ephemeral ports, certificates from
// certs/generate-dev-certs, its log captured line by line.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "jobset_webhook/json.h"
#include "server/server.h"
#include "support/pki.h"

namespace jobset_webhook::testing {

inline server::ServerOptions test_options(const Pki& pki) {
  server::ServerOptions options;
  options.bind_address = "127.0.0.1";
  options.port = 0;
  options.health_port = 0;
  options.metrics_port = 0;
  options.tls.cert_file = pki.tls_crt();
  options.tls.private_key_file = pki.tls_key();
  options.reload_interval = std::chrono::milliseconds(50);
  options.shutdown_grace = std::chrono::seconds(20);
  return options;
}

class CapturedLog {
 public:
  CapturedLog()
      : log_(runtime::LogLevel::kDebug, [this](std::string_view line) {
          // JOBSET_TEST_LOG=1 shows the server's log while debugging a test.
          static const bool echo = std::getenv("JOBSET_TEST_LOG") != nullptr;
          if (echo) std::fwrite(line.data(), 1, line.size(), stderr);
          std::lock_guard lock(mutex_);
          lines_.emplace_back(line);
        }) {}
  const runtime::Log& log() const { return log_; }

  std::vector<Json> lines() const {
    std::lock_guard lock(mutex_);
    std::vector<Json> out;
    for (const auto& l : lines_) out.push_back(Json::parse(l));
    return out;
  }
  // Lines whose msg is msg, once there are at least count of them (an access-log line is written
  // just after its response is sent, so a client can be faster); waits at most 30 s.
  std::vector<Json> wait_for(const std::string& msg, std::size_t count) const {
    auto found = with_msg(msg);
    for (int i = 0; i < 3000 && found.size() < count; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      found = with_msg(msg);
    }
    return found;
  }

  // Lines whose msg is msg.
  std::vector<Json> with_msg(const std::string& msg) const {
    std::vector<Json> out;
    for (auto& l : lines()) {
      if (l.value("msg", "") == msg) out.push_back(l);
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
  runtime::Log log_;
};

class TestServer {
 public:
  explicit TestServer(const server::ServerOptions& options)
      : log_(std::make_unique<CapturedLog>()) {
    auto started = server::AdmissionServer::start(options, log_->log());
    if (!started.ok())
      throw std::runtime_error("server did not start: " + started.failure().message);
    server_ = std::move(started.value());
  }

  server::AdmissionServer& server() { return *server_; }
  int port() const { return server_->port(); }
  int health_port() const { return server_->health_port(); }
  int metrics_port() const { return server_->metrics_port(); }
  const CapturedLog& log() const { return *log_; }

  // A client that verifies the server against ca_file, as the kube-apiserver does with caBundle.
  std::unique_ptr<httplib::SSLClient> client(const std::string& ca_file) const {
    auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", port());
    c->set_ca_cert_path(ca_file.c_str());
    c->enable_server_certificate_verification(true);
    c->set_read_timeout(30, 0);
    c->set_write_timeout(30, 0);
    c->set_connection_timeout(30, 0);
    return c;
  }

 private:
  std::unique_ptr<CapturedLog> log_;  // outlives the server
  std::unique_ptr<server::AdmissionServer> server_;
};

}  // namespace jobset_webhook::testing

#pragma once

// Test helper: an HTTPS server on 127.0.0.1 (an ephemeral port) in place of the Kubernetes API
// server, for the client's tests. Every GET answers a small object; a GET with watch=true streams
// one ADDED event, then nothing until timeoutSeconds. It records what a test asks about: the
// Authorization header of each request, the TCP connections requests came on, the TLS handshakes.
// Its certificate can be replaced while it runs (new handshakes get the new one).

#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

namespace jobset_webhook::testing {

class FakeApiServer {
 public:
  // cert_base: a path without extension, of <cert_base>.crt and <cert_base>.key.
  explicit FakeApiServer(const std::string& cert_base) {
    serve_certificate(cert_base);
    server_ = std::make_unique<httplib::SSLServer>([this](SSL_CTX& ctx) {
      SSL_CTX_set_cert_cb(&ctx, &FakeApiServer::choose_certificate, this);
      return true;
    });
    if (!server_->is_valid()) throw std::runtime_error("FakeApiServer: no SSL_CTX");
    // As the API server (Go's net/http): no limit on requests per connection.
    server_->set_keep_alive_max_count(1000000);
    server_->set_keep_alive_timeout(60);
    server_->set_tcp_nodelay(true);  // as Go's
    server_->Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard lock(mu_);
        authorizations_.push_back(req.get_header_value("Authorization"));
        remote_ports_.insert(req.remote_port);
      }
      if (req.get_param_value("watch") == "true") {
        watch(req, res);
      } else {
        res.set_content(R"({"kind":"Pod","metadata":{"name":"p","resourceVersion":"5"}})",
                        "application/json");
      }
    });
    // A PATCH is answered as the API server answers one that admission webhooks warned about:
    // the object, and Warning headers, one per warning or several in one.
    server_->Patch(".*", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Warning", R"(299 - "replicatedJob \"workers\" scaled up")");
      res.set_header(
          "Warning",
          R"(299 - "a \\ b", 299 - "second in one header" "Sat, 05 Dec 2026 10:00:00 GMT")");
      res.set_content(R"({"kind":"Pod","metadata":{"name":"p","resourceVersion":"6"}})",
                      "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("FakeApiServer: cannot bind 127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    for (int i = 0; i < 500 && !server_->is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  ~FakeApiServer() {
    stopping_ = true;
    server_->stop();
    thread_.join();
    X509_free(cert_);
    EVP_PKEY_free(key_);
  }

  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  int port() const { return port_; }

  void serve_certificate(const std::string& cert_base) {
    X509* cert = nullptr;
    EVP_PKEY* key = nullptr;
    if (FILE* f = std::fopen((cert_base + ".crt").c_str(), "r")) {
      cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
      std::fclose(f);
    }
    if (FILE* f = std::fopen((cert_base + ".key").c_str(), "r")) {
      key = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
      std::fclose(f);
    }
    if (cert == nullptr || key == nullptr) throw std::runtime_error("cannot read " + cert_base);
    std::lock_guard lock(mu_);
    X509_free(cert_);
    EVP_PKEY_free(key_);
    cert_ = cert;
    key_ = key;
  }

  std::vector<std::string> authorizations() const {
    std::lock_guard lock(mu_);
    return authorizations_;
  }
  std::size_t requests() const { return authorizations().size(); }
  // Distinct client ports requests came from: the TCP connections that carried a request.
  std::size_t connections() const {
    std::lock_guard lock(mu_);
    return remote_ports_.size();
  }
  int handshakes() const { return handshakes_; }
  int watches_started() const { return watches_; }

 private:
  static int choose_certificate(SSL* ssl, void* arg) {
    auto* self = static_cast<FakeApiServer*>(arg);
    std::lock_guard lock(self->mu_);
    ++self->handshakes_;
    return SSL_use_certificate(ssl, self->cert_) == 1 && SSL_use_PrivateKey(ssl, self->key_) == 1;
  }

  void watch(const httplib::Request& req, httplib::Response& res) {
    ++watches_;
    const int timeout_seconds = std::stoi(req.get_param_value("timeoutSeconds"));
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    res.set_chunked_content_provider(
        "application/json", [this, until, sent = false](size_t, httplib::DataSink& sink) mutable {
          if (!sent) {
            const std::string event =
                R"({"type":"ADDED","object":{"metadata":{"name":"p","resourceVersion":"7"}}})"
                "\n";
            sent = true;
            return sink.write(event.data(), event.size());
          }
          if (stopping_ || std::chrono::steady_clock::now() >= until) {
            sink.done();
            return true;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          return true;
        });
  }

  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> handshakes_{0};
  std::atomic<int> watches_{0};
  mutable std::mutex mu_;
  X509* cert_ = nullptr;
  EVP_PKEY* key_ = nullptr;
  std::vector<std::string> authorizations_;
  std::set<int> remote_ports_;
};

}  // namespace jobset_webhook::testing

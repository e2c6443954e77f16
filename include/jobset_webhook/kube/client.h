#pragma once

// A client for the Kubernetes API server over HTTPS (cpp-httplib and OpenSSL): the Api of
// api.h, JSON in and out; no reconcile logic and no caching (see reflector.h). A watch that ends
// on cancel() or a broken stream answers with httplib's error alone (e.g. "Connection") or the
// TLS failure; the caller names the watch.
//
// Whom it trusts: the API server's certificate must chain to the configured CA alone
// (Config::ca_pem, or Config::ca_file as it is now) and name the host, an IP SAN for an IP, a DNS
// SAN otherwise, as kubectl (Go's crypto/tls) checks it. The host's trust store is never added,
// nor SSL_CERT_FILE or SSL_CERT_DIR. With no CA configured at all (and not
// insecure_skip_tls_verify), the host's trust store decides, as the system roots do for client-go.
// A refused server gets no request: the handshake fails, a kTransportError such as
//   GET /api/v1/namespaces/ns/pods: TLS handshake with 127.0.0.1:6443 failed: certificate verify
//   failed (unable to get local issuer certificate)
//
// Connections are kept alive and reused (up to 8 idle, closed after 90 s idle, as client-go's);
// after Config::ca_file changes, new ones are made with the new CA. token_file is read again for
// each request. Any number of threads may call at once.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/kube/api.h"
#include "jobset_webhook/kube/config.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::kube {

class Client : public Api {
 public:
  explicit Client(Config config);
  ~Client() override;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  Result<Json> get(const std::string& path) override;
  Result<ObjectList> list(const std::string& path, const std::string& label_selector = "",
                          int limit = 500) override;
  Result<std::string> watch(const std::string& path, const std::string& label_selector,
                            const std::string& resource_version, int timeout_seconds,
                            const std::function<bool(const WatchEvent&)>& on_event) override;
  Result<Json> create(const std::string& collection_path, const Json& object) override;
  Result<Json> update(const std::string& path, const Json& object) override;
  Result<Json> remove(const std::string& path, const DeleteOptions& options) override;
  Result<Json> patch(const std::string& path, const Json& merge_patch) override;
  Result<Json> json_patch(const std::string& path, const Json& operations,
                          std::vector<std::string>* warnings = nullptr) override;
  void cancel() override;
  void reset_cancel() override;

  const Config& config() const { return config_; }

 private:
  struct Trust;
  struct Connection;
  Result<std::shared_ptr<const Trust>> trust();
  std::unique_ptr<Connection> connect(std::shared_ptr<const Trust> trust);
  Result<std::unique_ptr<Connection>> take();
  void give_back(std::unique_ptr<Connection> c);
  // warnings, when not null, receives the Warning headers' texts of a 2xx answer.
  Result<Json> send(const std::string& method, const std::string& path, const Json* body,
                    const char* content_type = "application/json",
                    std::vector<std::string>* warnings = nullptr);

  Config config_;
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::shared_ptr<const Trust> trust_;             // the newest; under mu_
  std::set<Connection*> in_flight_;                // under mu_
  std::vector<std::unique_ptr<Connection>> idle_;  // most recently used last; under mu_
};

// Query-string escaping of one value (RFC 3986 unreserved characters kept).
std::string url_escape(const std::string& value);

}  // namespace jobset_webhook::kube

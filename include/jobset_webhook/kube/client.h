#pragma once

// A small client for the Kubernetes API server over HTTPS (cpp-httplib and OpenSSL): get, list
// (paginated), watch (a chunked stream of events, with bookmarks), create, update, delete with
// preconditions. JSON in and out; no reconcile logic and no caching (see reflector.h).
//
// Errors are values. A Failure's code is the API server's HTTP status (404 NotFound, 409
// Conflict, also for a failed precondition, 410 Gone for an expired resourceVersion, 422, 5xx),
// or kTransportError when no HTTP answer came (connection refused, TLS, timeout, cancelled); its
// message is the Status' message, e.g. `jobs.batch "js-workers-3" not found`.
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
#include "jobset_webhook/kube/config.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::kube {

inline constexpr int kTransportError = 0;

struct ObjectList {
  std::vector<Json> items;
  std::string resource_version;  // the list's metadata.resourceVersion: where a watch starts
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK (ERROR ends the watch as a Failure)
  Json object;
};

struct DeleteOptions {
  std::string propagation_policy;  // "Foreground", "Background", "Orphan" or "" (the default)
  std::string precondition_uid;    // preconditions.uid, or "" for none
};

class Client {
 public:
  explicit Client(Config config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // GET of one object, e.g. "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/js".
  Result<Json> get(const std::string& path);

  // Every item of a collection, following `continue` in pages of `limit`; label_selector may be
  // empty. The list's resourceVersion is that of the first page, as for client-go's pager.
  Result<ObjectList> list(const std::string& path, const std::string& label_selector = "",
                          int limit = 500);

  // Watches `path` from resource_version with allowWatchBookmarks, for at most timeout_seconds
  // (the server ends the stream then). on_event sees each event as it arrives; returning false
  // ends the watch. Returns the last resourceVersion seen (events and bookmarks), or a Failure:
  // 410 when the server answers or streams "too old resource version" (relist), another code
  // for other ERROR events and HTTP errors, kTransportError when the stream breaks or cancel()
  // (its message is then httplib's error alone, e.g. "Connection", or the TLS failure; the
  // caller names the watch).
  Result<std::string> watch(const std::string& path, const std::string& label_selector,
                            const std::string& resource_version, int timeout_seconds,
                            const std::function<bool(const WatchEvent&)>& on_event);

  Result<Json> create(const std::string& collection_path, const Json& object);
  Result<Json> update(const std::string& path, const Json& object);  // PUT
  Result<Json> remove(const std::string& path, const DeleteOptions& options);

  // Ends every request in flight (watches included) with kTransportError, now and until
  // reset_cancel(); for shutdown and for tests that cut the stream.
  void cancel();
  void reset_cancel();

  const Config& config() const { return config_; }

 private:
  struct Trust;
  struct Connection;
  Result<std::shared_ptr<const Trust>> trust();
  std::unique_ptr<Connection> connect(std::shared_ptr<const Trust> trust);
  Result<std::unique_ptr<Connection>> take();
  void give_back(std::unique_ptr<Connection> c);
  Result<Json> send(const std::string& method, const std::string& path, const Json* body);

  Config config_;
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::shared_ptr<const Trust> trust_;             // the newest; under mu_
  std::set<Connection*> in_flight_;                // under mu_
  std::vector<std::unique_ptr<Connection>> idle_;  // most recently used last; under mu_
};

// "/api/v1/namespaces/<ns>/<resource>[/<name>]" and "/apis/<group>/<version>/namespaces/...".
std::string core_path(const std::string& ns, const std::string& resource,
                      const std::string& name = "");
std::string group_path(const std::string& group_version, const std::string& ns,
                       const std::string& resource, const std::string& name = "");

// Query-string escaping of one value (RFC 3986 unreserved characters kept).
std::string url_escape(const std::string& value);

}  // namespace jobset_webhook::kube

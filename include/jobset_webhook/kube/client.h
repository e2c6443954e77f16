#pragma once

// A client for the Kubernetes API server over HTTPS (cpp-httplib and OpenSSL): the Api of
// api.h, JSON in and out; no reconcile logic and no caching (see reflector.h).

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
  void cancel() override;
  void reset_cancel() override;

  const Config& config() const { return config_; }

 private:
  struct Connection;
  std::unique_ptr<Connection> connect();
  void release(Connection* c);
  Result<Json> send(const std::string& method, const std::string& path, const Json* body);

  Config config_;
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::set<Connection*> in_flight_;
};

// Query-string escaping of one value (RFC 3986 unreserved characters kept).
std::string url_escape(const std::string& value);

}  // namespace jobset_webhook::kube

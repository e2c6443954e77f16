#include "jobset_webhook/kube/client.h"

#include <httplib.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include "jobset_webhook/json_access.h"
#include "jobset_webhook/kube/warning_header.h"

namespace jobset_webhook::kube {
namespace {

constexpr int kRequestTimeoutSeconds = 30;
constexpr int kConnectTimeoutSeconds = 5;
// client-go keeps up to 25 idle connections per host and closes them after 90 s; the controller
// calls from 4 threads, so a few suffice.
constexpr std::size_t kMaxIdleConnections = 8;
constexpr auto kIdleTimeout = std::chrono::seconds(90);
constexpr const char* kCancelled = "cancelled";

Failure transport(const std::string& what) { return api_error(kTransportError, what); }

// A Status object's message, or the body itself when it is not one.
Failure status_failure(int code, const std::string& body) {
  const Json status = Json::parse(body, nullptr, false);
  if (status.is_object()) {
    const auto m = status.find("message");
    if (m != status.end() && m->is_string()) return api_error(code, m->get<std::string>());
  }
  return api_error(
      code, "HTTP " + std::to_string(code) + (body.empty() ? "" : ": " + body.substr(0, 200)));
}

std::optional<std::string> file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string read_token(const Config& config) {
  if (config.token_file.empty()) return config.token;
  std::string token = file_text(config.token_file).value_or("");
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  return token.empty() ? config.token : token;
}

// The headers of every request; the token is read again each time, so that a rotated one is sent.
httplib::Headers request_headers(const Config& config) {
  httplib::Headers headers = {{"Accept", "application/json"},
                              {"User-Agent", "jobset-webhook-scale-down-controller"}};
  if (const std::string token = read_token(config); !token.empty())
    headers.emplace("Authorization", "Bearer " + token);
  return headers;
}

std::string host_port(const Config& config) {
  const bool v6 = config.host.find(':') != std::string::npos;
  return (v6 ? "[" + config.host + "]" : config.host) + ":" + std::to_string(config.port);
}

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Bio = std::unique_ptr<BIO, BioDeleter>;

Bio memory_bio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Every certificate of a PEM bundle in a new store (owned by the caller), or null when it holds
// none.
X509_STORE* store_from_pem(const std::string& pem) {
  X509_STORE* store = X509_STORE_new();
  Bio bio = memory_bio(pem);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  ERR_clear_error();  // the end of the bundle reads as a PEM error
  if (added == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

// The ex_data slot of an SSL_CTX where remember_verify_error writes.
int verify_error_slot() {
  static const int slot = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return slot;
}

// OpenSSL's verify callback: keeps the first reason a server's certificate was refused (the
// SSL_CTX's slot points into the Connection), as httplib reports a failed handshake only as
// Error::SSLConnection and frees the SSL before we could ask it.
int remember_verify_error(int ok, X509_STORE_CTX* store) {
  if (ok != 0) return ok;
  const auto* ssl = static_cast<const SSL*>(
      X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  if (ssl == nullptr) return ok;
  auto* error = static_cast<long*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), verify_error_slot()));
  if (error != nullptr && *error == X509_V_OK) *error = X509_STORE_CTX_get_error(store);
  return ok;
}

// httplib's error, or for a failed handshake what OpenSSL said, e.g. "TLS handshake with
// 127.0.0.1:6443 failed: certificate verify failed (unable to get local issuer certificate)".
// Empties this thread's OpenSSL error queue, which would otherwise mislead a later SSL_get_error.
std::string describe(httplib::Error error, long verify_error, const Config& config) {
  std::string reason;
  while (const unsigned long e = ERR_get_error()) {
    const char* r = ERR_reason_error_string(e);
    if (reason.empty() && r != nullptr) reason = r;
  }
  if (error != httplib::Error::SSLConnection) return httplib::to_string(error);
  std::string message = "TLS handshake with " + host_port(config) + " failed";
  if (!reason.empty()) message += ": " + reason;
  if (verify_error != X509_V_OK)
    message += std::string(" (") + X509_verify_cert_error_string(verify_error) + ")";
  return message;
}

}  // namespace

// What a connection trusts and presents, parsed once per version of the CA and shared by every
// connection made with it: parsing a bundle per connection was most of a request's CPU time.
struct Client::Trust {
  struct FileStamp {  // a version of a file: rewriting it or renaming another over it changes it
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = -1;
    timespec mtime{};
    bool operator==(const FileStamp& o) const {
      return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
             mtime.tv_nsec == o.mtime.tv_nsec;
    }
  };
  static std::optional<FileStamp> stamp(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
    return FileStamp{st.st_dev, st.st_ino, st.st_size, st.st_mtim};
  }

  Trust() = default;
  Trust(const Trust&) = delete;
  Trust& operator=(const Trust&) = delete;
  ~Trust() {
    X509_STORE_free(store);
    X509_free(client_cert);
    EVP_PKEY_free(client_key);
  }

  X509_STORE* store = nullptr;  // null with insecure_skip_tls_verify
  X509* client_cert = nullptr;
  EVP_PKEY* client_key = nullptr;
  std::optional<FileStamp> ca_stamp;  // of Config::ca_file when it was read
};

struct Client::Connection {
  long verify_error = X509_V_OK;  // written by remember_verify_error during a handshake
  std::shared_ptr<const Trust> trust;
  std::unique_ptr<httplib::SSLClient> http;  // its SSL_CTX points at verify_error
  std::chrono::steady_clock::time_point idle_since;
};

Client::Client(Config config) : config_(std::move(config)) {}
Client::~Client() = default;

Result<std::shared_ptr<const Client::Trust>> Client::trust() {
  const auto stamp = Trust::stamp(config_.ca_file);
  std::lock_guard lock(mu_);
  // A CA file that is missing or unreadable for a moment (being replaced) keeps the last one.
  if (trust_ && (!stamp || stamp == trust_->ca_stamp)) return trust_;
  auto t = std::make_shared<Trust>();
  if (!config_.insecure_skip_tls_verify) {
    if (config_.ca_pem.empty() && config_.ca_file.empty()) {
      // No CA named: the host's roots, as client-go (Go's system pool) uses then.
      t->store = X509_STORE_new();
      X509_STORE_set_default_paths(t->store);
    } else {
      const auto text = stamp ? file_text(config_.ca_file) : std::nullopt;
      t->store = store_from_pem(text.value_or(config_.ca_pem));
      if (t->store == nullptr) {
        if (trust_) return trust_;  // a CA file caught half written: read it again next time
        return transport("the CA bundle for " + config_.host + " holds no PEM certificate");
      }
      t->ca_stamp = stamp;
    }
  }
  if (!config_.client_cert_pem.empty()) {
    Bio cert_bio = memory_bio(config_.client_cert_pem);
    Bio key_bio = memory_bio(config_.client_key_pem);
    t->client_cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
    t->client_key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
    ERR_clear_error();
    if (t->client_cert == nullptr || t->client_key == nullptr)
      return transport("the client certificate or key for " + config_.host + " is not PEM");
  }
  trust_ = std::move(t);
  return trust_;
}

std::unique_ptr<Client::Connection> Client::connect(std::shared_ptr<const Trust> trust) {
  auto c = std::make_unique<Connection>();
  if (trust->client_cert != nullptr) {
    // SSL_CTX_use_certificate and SSL_CTX_use_PrivateKey take references of their own.
    c->http = std::make_unique<httplib::SSLClient>(config_.host, config_.port, trust->client_cert,
                                                   trust->client_key);
  } else {
    c->http = std::make_unique<httplib::SSLClient>(config_.host, config_.port);
  }
  if (!c->http->is_valid()) return nullptr;
  // httplib's own verification adds the host's trust store (SSL_CTX_set_default_verify_paths,
  // or SSL_CERT_FILE) to ours at each handshake, so a server signed by any public CA passed.
  // It is off; OpenSSL verifies the chain and the name during the handshake instead, against
  // the store of the configured CA alone, and a refused server never sees a request.
  c->http->enable_server_certificate_verification(false);
  if (trust->store != nullptr) {
    SSL_CTX* ctx = c->http->ssl_context();
    X509_STORE_up_ref(trust->store);
    SSL_CTX_set_cert_store(ctx, trust->store);
    // As Go's crypto/tls for kubectl: an IP is matched against IP SANs only, a name against DNS
    // SANs (a wildcard stands for a whole label), never against the subject's common name.
    X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_hostflags(
        param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, config_.host.c_str()) != 1 &&
        X509_VERIFY_PARAM_set1_host(param, config_.host.c_str(), config_.host.size()) != 1)
      return nullptr;
    SSL_CTX_set_ex_data(ctx, verify_error_slot(), &c->verify_error);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, remember_verify_error);
  }
  c->trust = std::move(trust);
  c->http->set_connection_timeout(kConnectTimeoutSeconds);
  c->http->set_read_timeout(kRequestTimeoutSeconds);
  c->http->set_write_timeout(kRequestTimeoutSeconds);
  c->http->set_keep_alive(true);
  // As Go's dialer: on a kept-alive connection, Nagle's algorithm held a request's body back
  // until the server's delayed acknowledgement of its headers, 40 ms later.
  c->http->set_tcp_nodelay(true);
  return c;
}

Result<std::unique_ptr<Client::Connection>> Client::take() {
  auto trust = this->trust();
  if (!trust.ok()) return trust.failure();
  std::vector<std::unique_ptr<Connection>> stale;  // closed after the lock is let go
  std::unique_ptr<Connection> c;
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return transport(kCancelled);
    const auto now = std::chrono::steady_clock::now();
    while (!c && !idle_.empty()) {
      auto last = std::move(idle_.back());
      idle_.pop_back();
      if (last->trust == trust.value() && now - last->idle_since < kIdleTimeout) {
        c = std::move(last);
      } else {
        stale.push_back(std::move(last));
      }
    }
  }
  if (!c) c = connect(trust.value());
  if (!c) return transport("cannot set up TLS to " + config_.host);
  std::lock_guard lock(mu_);
  if (cancelled_) return transport(kCancelled);
  in_flight_.insert(c.get());
  return c;
}

void Client::give_back(std::unique_ptr<Connection> c) {
  std::lock_guard lock(mu_);
  in_flight_.erase(c.get());
  // A connection stopped by cancel() or made under a CA since replaced is closed instead.
  if (cancelled_ || c->trust != trust_ || idle_.size() >= kMaxIdleConnections) return;
  c->idle_since = std::chrono::steady_clock::now();
  idle_.push_back(std::move(c));
}

void Client::cancel() {
  std::vector<std::unique_ptr<Connection>> idle;  // closed after the lock is let go
  std::lock_guard lock(mu_);
  cancelled_ = true;
  for (Connection* c : in_flight_) c->http->stop();
  idle.swap(idle_);
}

void Client::reset_cancel() { cancelled_ = false; }

Result<Json> Client::send(const std::string& method, const std::string& path, const Json* body,
                          const char* content_type, std::vector<std::string>* warnings) {
  httplib::Request req;
  req.method = method;
  req.path = path;
  req.headers = request_headers(config_);
  if (body != nullptr) {
    req.body = body->dump();
    req.set_header("Content-Type", content_type);
  }
  // stop() reaches a request only once its connection is up; this ends one that cancel()
  // missed, as soon as its answer starts.
  req.response_handler = [this](const httplib::Response&) { return !cancelled_; };
  for (int attempt = 0;; ++attempt) {
    auto taken = take();
    if (!taken.ok()) {
      const Failure& f = taken.failure();
      return f.message == kCancelled ? f : transport(method + " " + path + ": " + f.message);
    }
    auto c = std::move(taken).value();
    const bool reused = c->http->is_socket_open() != 0;
    c->verify_error = X509_V_OK;
    ERR_clear_error();
    const httplib::Result res = c->http->send(req);
    const std::string error = res ? "" : describe(res.error(), c->verify_error, config_);
    give_back(std::move(c));
    if (!res) {
      // The server closed a kept-alive connection as it was reused: a GET is sent again on
      // another, as Go's transport replays a request that may be replayed.
      const bool stale =
          res.error() == httplib::Error::Read || res.error() == httplib::Error::Write;
      if (reused && stale && method == "GET" && attempt == 0 && !cancelled_) continue;
      return transport(method + " " + path + ": " + error + (cancelled_ ? " (cancelled)" : ""));
    }
    if (res->status < 200 || res->status >= 300) return status_failure(res->status, res->body);
    Json parsed = Json::parse(res->body, nullptr, false);
    if (parsed.is_discarded()) return internal_error(method + " " + path + ": answer is not JSON");
    if (warnings != nullptr) {
      const auto [first, last] = res->headers.equal_range("Warning");
      for (auto it = first; it != last; ++it) {
        for (auto& text : parse_warning_header(it->second)) warnings->push_back(std::move(text));
      }
    }
    return parsed;
  }
}

Result<Json> Client::get(const std::string& path) { return send("GET", path, nullptr); }

Result<ObjectList> Client::list(const std::string& path, const std::string& label_selector,
                                int limit) {
  ObjectList out;
  std::string next;
  bool first = true;
  do {
    std::string query = path + "?limit=" + std::to_string(limit);
    if (!label_selector.empty()) query += "&labelSelector=" + url_escape(label_selector);
    if (!next.empty()) query += "&continue=" + url_escape(next);
    auto page = get(query);
    if (!page.ok()) return page.failure();
    const Json& body = page.value();
    const Json* meta = member(&body, "metadata");
    if (first) out.resource_version = string_at(meta, "resourceVersion");
    next = string_at(meta, "continue");
    const Json* items = member(&body, "items");
    if (items != nullptr && items->is_array()) {
      for (const auto& item : *items) out.items.push_back(item);
    }
    first = false;
  } while (!next.empty());
  return out;
}

Result<std::string> Client::watch(const std::string& path, const std::string& label_selector,
                                  const std::string& resource_version, int timeout_seconds,
                                  const std::function<bool(const WatchEvent&)>& on_event) {
  std::string query = path + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=" +
                      std::to_string(timeout_seconds);
  if (!resource_version.empty()) query += "&resourceVersion=" + url_escape(resource_version);
  if (!label_selector.empty()) query += "&labelSelector=" + url_escape(label_selector);

  int status = 0;
  std::string buffer;  // bytes of the event being received
  std::string last_version = resource_version;
  std::optional<Failure> ended;
  bool stopped = false;
  auto on_line = [&](const std::string& line) {
    if (line.empty()) return true;
    Json event = Json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("type") || !event["type"].is_string()) {
      ended = internal_error("watch " + path + ": event is not JSON");
      return false;
    }
    WatchEvent e{event["type"].get<std::string>(), std::move(event["object"])};
    if (e.type == "ERROR") {
      // A Status: 410 Gone ("too old resource version") means relist.
      const int code = static_cast<int>(integer_at(&e.object, "code").value_or(500));
      ended = status_failure(code, e.object.dump());
      return false;
    }
    if (std::string version = string_at(member(&e.object, "metadata"), "resourceVersion");
        !version.empty()) {
      last_version = std::move(version);
    }
    if (!on_event(e)) {
      stopped = true;
      return false;
    }
    return true;
  };
  httplib::Request req;
  req.method = "GET";
  req.path = query;
  req.headers = request_headers(config_);
  // cancel() may come before the connection is up, when stop() cannot reach it.
  req.response_handler = [&](const httplib::Response& r) {
    status = r.status;
    return !cancelled_;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (cancelled_) return false;
    if (status != 200) {
      buffer.append(data, n);  // a Status to report
      return buffer.size() < (1 << 20);
    }
    buffer.append(data, n);
    std::size_t start = 0;
    for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (!on_line(buffer.substr(start, nl - start))) return false;
    }
    buffer.erase(0, start);
    return true;
  };
  auto taken = take();
  if (!taken.ok()) return taken.failure();
  auto c = std::move(taken).value();
  c->http->set_read_timeout(timeout_seconds + kRequestTimeoutSeconds);
  c->verify_error = X509_V_OK;
  ERR_clear_error();
  const httplib::Result res = c->http->send(req);
  const std::string error = res ? "" : describe(res.error(), c->verify_error, config_);
  c->http->set_read_timeout(kRequestTimeoutSeconds);
  give_back(std::move(c));
  if (ended) return *ended;
  if (stopped) return last_version;
  if (status != 0 && status != 200) return status_failure(status, buffer);
  if (!res) return transport(error + (cancelled_ ? " (cancelled)" : ""));
  if (!buffer.empty() && !on_line(buffer) && ended) return *ended;
  return last_version;  // the server closed the stream at timeoutSeconds
}

Result<Json> Client::create(const std::string& collection_path, const Json& object) {
  return send("POST", collection_path, &object);
}

Result<Json> Client::update(const std::string& path, const Json& object) {
  return send("PUT", path, &object);
}

Result<Json> Client::remove(const std::string& path, const DeleteOptions& options) {
  Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (!options.precondition_uid.empty())
    body["preconditions"] = {{"uid", options.precondition_uid}};
  return send("DELETE", path, &body);
}

Result<Json> Client::patch(const std::string& path, const Json& merge_patch) {
  return send("PATCH", path, &merge_patch, "application/merge-patch+json");
}

Result<Json> Client::json_patch(const std::string& path, const Json& operations,
                                std::vector<std::string>* warnings) {
  return send("PATCH", path, &operations, "application/json-patch+json", warnings);
}

Failure api_error(int http_status, std::string message) {
  StatusCode code = StatusCode::kUnavailable;
  switch (http_status) {
    case 400:
    case 422: code = StatusCode::kInvalidArgument; break;
    case 403: code = StatusCode::kPermissionDenied; break;
    case 404: code = StatusCode::kNotFound; break;
    case 409: code = StatusCode::kAborted; break;
    case 410: code = StatusCode::kOutOfRange; break;
    default: break;
  }
  return Failure{code, std::move(message), http_status};
}

std::string core_path(const std::string& ns, const std::string& resource, const std::string& name) {
  std::string p = "/api/v1/namespaces/" + ns + "/" + resource;
  if (!name.empty()) p += "/" + name;
  return p;
}

std::string group_path(const std::string& group_version, const std::string& ns,
                       const std::string& resource, const std::string& name) {
  std::string p = "/apis/" + group_version;
  if (!ns.empty()) p += "/namespaces/" + ns;
  p += "/" + resource;
  if (!name.empty()) p += "/" + name;
  return p;
}

std::string url_escape(const std::string& value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : value) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace jobset_webhook::kube

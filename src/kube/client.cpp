#include "jobset_webhook/kube/client.h"

#include <httplib.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

namespace jobset_webhook::kube {
namespace {

constexpr int kRequestTimeoutSeconds = 30;
constexpr int kConnectTimeoutSeconds = 5;

Failure transport(const std::string& what) { return Failure{kTransportError, what}; }

// A Status object's message, or the body itself when it is not one.
Failure status_failure(int code, const std::string& body) {
  const Json status = Json::parse(body, nullptr, false);
  if (status.is_object()) {
    const auto m = status.find("message");
    if (m != status.end() && m->is_string()) return Failure{code, m->get<std::string>()};
  }
  return Failure{code,
                 "HTTP " + std::to_string(code) + (body.empty() ? "" : ": " + body.substr(0, 200))};
}

std::string read_token(const Config& config) {
  if (config.token_file.empty()) return config.token;
  std::ifstream in(config.token_file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  std::string token = out.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  return token.empty() ? config.token : token;
}

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Bio = std::unique_ptr<BIO, BioDeleter>;

Bio memory_bio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Every certificate of a PEM bundle in a new store (owned by the caller until handed over).
X509_STORE* store_from_pem(const std::string& pem) {
  X509_STORE* store = X509_STORE_new();
  Bio bio = memory_bio(pem);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  if (added == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

}  // namespace

struct Client::Connection {
  std::unique_ptr<httplib::SSLClient> http;
};

Client::Client(Config config) : config_(std::move(config)) {}
Client::~Client() = default;

std::unique_ptr<Client::Connection> Client::connect() {
  auto c = std::make_unique<Connection>();
  if (!config_.client_cert_pem.empty()) {
    Bio cert_bio = memory_bio(config_.client_cert_pem);
    Bio key_bio = memory_bio(config_.client_key_pem);
    X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
    EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
    if (cert != nullptr && key != nullptr) {
      // SSL_CTX_use_certificate and SSL_CTX_use_PrivateKey take references of their own.
      c->http = std::make_unique<httplib::SSLClient>(config_.host, config_.port, cert, key);
    }
    X509_free(cert);
    EVP_PKEY_free(key);
    if (!c->http) return nullptr;
  } else {
    c->http = std::make_unique<httplib::SSLClient>(config_.host, config_.port);
  }
  if (!c->http->is_valid()) return nullptr;
  if (config_.insecure_skip_tls_verify) {
    c->http->enable_server_certificate_verification(false);
  } else {
    c->http->enable_server_certificate_verification(true);
    if (!config_.ca_pem.empty()) {
      X509_STORE* store = store_from_pem(config_.ca_pem);
      if (store == nullptr) return nullptr;
      c->http->set_ca_cert_store(store);  // the SSL_CTX owns it from here
    }
  }
  c->http->set_connection_timeout(kConnectTimeoutSeconds);
  c->http->set_read_timeout(kRequestTimeoutSeconds);
  c->http->set_write_timeout(kRequestTimeoutSeconds);
  c->http->set_keep_alive(false);
  httplib::Headers headers = {{"Accept", "application/json"},
                              {"User-Agent", "jobset-webhook-scale-down-controller"}};
  if (const std::string token = read_token(config_); !token.empty())
    headers.emplace("Authorization", "Bearer " + token);
  c->http->set_default_headers(std::move(headers));
  std::lock_guard lock(mu_);
  if (cancelled_) return nullptr;
  in_flight_.insert(c.get());
  return c;
}

void Client::release(Connection* c) {
  std::lock_guard lock(mu_);
  in_flight_.erase(c);
}

void Client::cancel() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  for (Connection* c : in_flight_) c->http->stop();
}

void Client::reset_cancel() { cancelled_ = false; }

Result<Json> Client::send(const std::string& method, const std::string& path, const Json* body) {
  auto c = connect();
  if (!c) return transport(cancelled_ ? "cancelled" : "cannot set up TLS to " + config_.host);
  httplib::Request req;
  req.method = method;
  req.path = path;
  if (body != nullptr) {
    req.body = body->dump();
    req.set_header("Content-Type", "application/json");
  }
  const httplib::Result res = c->http->send(req);
  release(c.get());
  if (!res) {
    return transport(method + " " + path + ": " + httplib::to_string(res.error()) +
                     (cancelled_ ? " (cancelled)" : ""));
  }
  if (res->status < 200 || res->status >= 300) return status_failure(res->status, res->body);
  Json parsed = Json::parse(res->body, nullptr, false);
  if (parsed.is_discarded()) return Failure{500, method + " " + path + ": answer is not JSON"};
  return parsed;
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
    const auto meta = body.find("metadata");
    next.clear();
    if (meta != body.end() && meta->is_object()) {
      if (first) out.resource_version = meta->value("resourceVersion", "");
      next = meta->value("continue", "");
    }
    const auto items = body.find("items");
    if (items != body.end() && items->is_array()) {
      // Items of a list carry no kind; the watch's objects do. Keep them alike.
      for (const auto& item : *items) out.items.push_back(item);
    }
    first = false;
  } while (!next.empty());
  return out;
}

Result<std::string> Client::watch(const std::string& path, const std::string& label_selector,
                                  const std::string& resource_version, int timeout_seconds,
                                  const std::function<bool(const WatchEvent&)>& on_event) {
  auto c = connect();
  if (!c) return transport(cancelled_ ? "cancelled" : "cannot set up TLS to " + config_.host);
  c->http->set_read_timeout(timeout_seconds + kRequestTimeoutSeconds);
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
      ended = Failure{500, "watch " + path + ": event is not JSON"};
      return false;
    }
    WatchEvent e{event["type"].get<std::string>(), std::move(event["object"])};
    if (e.type == "ERROR") {
      // A Status: 410 Gone ("too old resource version") means relist.
      const int code =
          e.object.is_object() && e.object.contains("code") && e.object["code"].is_number_integer()
              ? e.object["code"].get<int>()
              : 500;
      ended = status_failure(code, e.object.dump());
      return false;
    }
    if (e.object.is_object() && e.object.contains("metadata") && e.object["metadata"].is_object()) {
      last_version = e.object["metadata"].value("resourceVersion", last_version);
    }
    if (!on_event(e)) {
      stopped = true;
      return false;
    }
    return true;
  };
  const httplib::Result res = c->http->Get(
      query, httplib::Headers{},
      [&](const httplib::Response& r) {
        status = r.status;
        return true;
      },
      [&](const char* data, size_t n) {
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
      });
  release(c.get());
  if (ended) return *ended;
  if (stopped) return last_version;
  if (status != 0 && status != 200) return status_failure(status, buffer);
  if (!res) return transport(httplib::to_string(res.error()) + (cancelled_ ? " (cancelled)" : ""));
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

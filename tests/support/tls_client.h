#pragma once

// Test helper: a TLS client written directly on OpenSSL, for what httplib::SSLClient hides or does
// for us: chosen protocol versions, several requests on one connection with no silent reconnect,
// a request sent in pieces, and the certificate the server presented.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "support/process.h"

namespace jobset_webhook::testing {

// Bounds every wait of the helpers: a test that would hang fails instead.
inline constexpr std::chrono::seconds kClientTimeout{30};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

inline std::string http_request(
    const std::string& method, const std::string& path, const std::string& body,
    const std::string& extra_headers = "Content-Type: application/json\r\n") {
  return method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// A connected TCP socket to 127.0.0.1:port, or -1.
inline int connect_tcp(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  // As Go's net package does for every TCP connection, the kube-apiserver's included. Without it a
  // request sent right after a TLS 1.3 handshake can sit in the client's Nagle buffer until the
  // server's delayed ACK, and a test that begins a shutdown "after the request was sent" would
  // begin it before the request arrived.
  const int yes = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  timeval tv{static_cast<time_t>(kClientTimeout.count()), 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return fd;
}

// Reads one HTTP/1.1 response through read(buf, n) (returns bytes, 0 at EOF, <0 on error).
template <typename Read>
std::optional<HttpResponse> read_http_response(Read read) {
  std::string data;
  char buf[4096];
  std::size_t head_end;
  while ((head_end = data.find("\r\n\r\n")) == std::string::npos) {
    const int n = read(buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    data.append(buf, static_cast<std::size_t>(n));
  }
  HttpResponse r;
  const auto status_line_end = data.find("\r\n");
  const auto status_line = data.substr(0, status_line_end);
  if (status_line.size() < 12) return std::nullopt;
  r.status = std::stoi(status_line.substr(9, 3));
  std::size_t pos = status_line_end + 2;
  while (pos < head_end) {
    const auto eol = data.find("\r\n", pos);
    const auto line = data.substr(pos, eol - pos);
    const auto colon = line.find(':');
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    r.headers[name] = value;
    pos = eol + 2;
  }
  r.body = data.substr(head_end + 4);
  if (r.status / 100 == 1) return r;  // an interim response has no body
  if (r.headers.count("content-length")) {
    const auto length = std::stoul(r.headers["content-length"]);
    while (r.body.size() < length) {
      const int n =
          read(buf, static_cast<int>(std::min<std::size_t>(sizeof buf, length - r.body.size())));
      if (n <= 0) return std::nullopt;
      r.body.append(buf, static_cast<std::size_t>(n));
    }
  } else {
    for (int n; (n = read(buf, sizeof buf)) > 0;) r.body.append(buf, static_cast<std::size_t>(n));
  }
  return r;
}

// Built as TlsClientOptions().trust(ca).host(name).client_certificate(crt, key).versions(a, b).
struct TlsClientOptions {
  int min_version = 0;  // 0: OpenSSL's default; TLS1_VERSION, TLS1_1_VERSION, ...
  int max_version = 0;
  bool allow_legacy = false;        // security level 0, so that TLS 1.0/1.1 can be offered at all
  std::string ca_file;              // non-empty: verify the server against it
  std::string verify_host;          // with ca_file: the name or IP the certificate must carry
  std::string cert_file, key_file;  // a client certificate
  std::string groups;               // non-empty: the key exchange groups offered, e.g. "X25519"

  TlsClientOptions& trust(std::string ca) {
    ca_file = std::move(ca);
    return *this;
  }
  TlsClientOptions& host(std::string name) {
    verify_host = std::move(name);
    return *this;
  }
  TlsClientOptions& client_certificate(std::string cert, std::string key) {
    cert_file = std::move(cert);
    key_file = std::move(key);
    return *this;
  }
  TlsClientOptions& versions(int min, int max) {
    min_version = min;
    max_version = max;
    return *this;
  }
  TlsClientOptions& offer_groups(std::string list) {
    groups = std::move(list);
    return *this;
  }
  TlsClientOptions& legacy() {
    allow_legacy = true;
    return *this;
  }
};

class TlsConnection {
 public:
  // Connects and completes the handshake; nullptr (and error) when either fails.
  static std::unique_ptr<TlsConnection> open(int port, const TlsClientOptions& options,
                                             std::string* error = nullptr) {
    auto c = std::unique_ptr<TlsConnection>(new TlsConnection());
    c->ctx_ = SSL_CTX_new(TLS_client_method());
    if (options.allow_legacy) {
      SSL_CTX_set_security_level(c->ctx_, 0);
      SSL_CTX_set_cipher_list(c->ctx_, "DEFAULT:@SECLEVEL=0");
    }
    if (options.min_version != 0) SSL_CTX_set_min_proto_version(c->ctx_, options.min_version);
    if (options.max_version != 0) SSL_CTX_set_max_proto_version(c->ctx_, options.max_version);
    if (!options.groups.empty()) SSL_CTX_set1_groups_list(c->ctx_, options.groups.c_str());
    if (!options.cert_file.empty()) {
      SSL_CTX_use_certificate_chain_file(c->ctx_, options.cert_file.c_str());
      SSL_CTX_use_PrivateKey_file(c->ctx_, options.key_file.c_str(), SSL_FILETYPE_PEM);
    }
    if (!options.ca_file.empty()) {
      SSL_CTX_load_verify_locations(c->ctx_, options.ca_file.c_str(), nullptr);
      SSL_CTX_set_verify(c->ctx_, SSL_VERIFY_PEER, nullptr);
    }
    c->fd_ = connect_tcp(port);
    if (c->fd_ < 0) {
      if (error) *error = "connect failed";
      return nullptr;
    }
    c->ssl_ = SSL_new(c->ctx_);
    SSL_set_fd(c->ssl_, c->fd_);
    if (!options.verify_host.empty()) {
      SSL_set_tlsext_host_name(c->ssl_, options.verify_host.c_str());
      SSL_set1_host(c->ssl_, options.verify_host.c_str());
    }
    ERR_clear_error();
    if (SSL_connect(c->ssl_) != 1) {
      if (error) {
        const unsigned long e = ERR_get_error();
        const char* reason = e != 0 ? ERR_reason_error_string(e) : nullptr;
        *error = reason != nullptr ? reason : "handshake failed";
      }
      ERR_clear_error();
      return nullptr;
    }
    // With TLS 1.3 the client's handshake ends before the server has checked the client's
    // certificate: a refusal shows on the first read, not here.
    return c;
  }

  ~TlsConnection() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  }

  bool send(std::string_view data) {
    ERR_clear_error();
    return SSL_write(ssl_, data.data(), static_cast<int>(data.size())) ==
           static_cast<int>(data.size());
  }

  std::optional<HttpResponse> read_response() {
    return read_http_response([this](char* buf, int n) {
      ERR_clear_error();
      return SSL_read(ssl_, buf, n);
    });
  }

  std::optional<HttpResponse> request(const std::string& raw) {
    if (!send(raw)) return std::nullopt;
    return read_response();
  }

  // True when the server closes the connection (or it fails) within the client timeout, without
  // sending anything more.
  bool closed_by_server() {
    char byte;
    ERR_clear_error();
    return SSL_read(ssl_, &byte, 1) <= 0;
  }

  // SHA-256 of the certificate the server presented.
  std::string peer_fingerprint() const {
    X509* cert = SSL_get1_peer_certificate(ssl_);
    std::string fp = fingerprint(cert);
    X509_free(cert);
    return fp;
  }

  int protocol_version() const { return SSL_version(ssl_); }
  SSL* ssl() const { return ssl_; }  // for what the helpers do not cover
  int fd() const { return fd_; }     // for poll(): has the server sent anything (or closed)?

  static std::string fingerprint(X509* cert) {
    if (cert == nullptr) return "";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    X509_digest(cert, EVP_sha256(), md, &n);
    return std::string(reinterpret_cast<char*>(md), n);
  }

  static std::string file_fingerprint(const std::string& pem_file) {
    FILE* f = std::fopen(pem_file.c_str(), "r");
    if (f == nullptr) return "";
    X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
    std::fclose(f);
    std::string fp = fingerprint(cert);
    X509_free(cert);
    return fp;
  }

 private:
  TlsConnection() = default;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
};

// Sends raw bytes over plain TCP and reads one HTTP response (for plaintext-to-TLS-port tests).
inline std::optional<HttpResponse> plain_http_exchange(int port, const std::string& raw) {
  const int fd = connect_tcp(port);
  if (fd < 0) return std::nullopt;
  ::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL);
  auto r = read_http_response([fd](char* buf, int n) {
    return static_cast<int>(::recv(fd, buf, static_cast<std::size_t>(n), 0));
  });
  ::close(fd);
  return r;
}

}  // namespace jobset_webhook::testing

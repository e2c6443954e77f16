// What `jobset-webhook certs` writes works for TLS as the kube-apiserver uses it: `serve
// --cert-dir` on that directory, a client that trusts only ca.crt, verifies the Service's name
// and POSTs an AdmissionReview.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include <catch2/catch.hpp>
#include <openssl/ssl.h>

#include "jobset_webhook/server/endpoints.h"
#include "support/process.h"
#include "support/serve_process.h"
#include "support/x509_verify.h"

namespace fs = std::filesystem;
namespace server = jobset_webhook::server;
using jobset_webhook::Json;
using jobset_webhook::testing::run_cli;
using jobset_webhook::testing::ServeProcess;
using jobset_webhook::testing::slurp;
using jobset_webhook::testing::ossl::Deleter;

namespace {

using SslCtx = std::unique_ptr<SSL_CTX, Deleter<SSL_CTX_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO_free_all>>;

const std::string kHost = "jobset-webhook.jobset-system.svc";

struct CertDir {
  fs::path path = fs::temp_directory_path() / ("jobset-webhook-tls-" + std::to_string(::getpid()) +
                                               "-" + std::to_string(std::rand()));
  explicit CertDir(const std::string& key_type) {
    const auto r = run_cli("certs --service jobset-webhook --namespace jobset-system --key-type " +
                           key_type + " --out " + path.string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  ~CertDir() { fs::remove_all(path); }
  std::string file(std::string_view name) const { return (path / name).string(); }
};

// `jobset-webhook serve --cert-dir` on what `certs` wrote; its HTTPS port.
class Serving {
 public:
  explicit Serving(const CertDir& certs)
      : process_(ServeProcess::serve_args({"--cert-dir", certs.path.string()})) {
    const Json serving = process_.wait_serving();
    INFO(slurp(process_.log_file()));
    REQUIRE_FALSE(serving.is_null());
    port_ = serving["port"];
  }
  int port() const { return port_; }

 private:
  ServeProcess process_;
  int port_ = 0;
};

struct ClientResult {
  std::string error;     // "" when the handshake and the request succeeded
  std::string response;  // the raw HTTP response to an AdmissionReview
};

// Connects to 127.0.0.1:port as the apiserver connects to a webhook: TLS 1.2 or later, SNI and
// the verified name are host, trusted roots are only ca_file, and the Common Name is never
// consulted. Then POSTs an AdmissionReview to the validating webhook.
ClientResult connect(int port, const std::string& ca_file, const std::string& host) {
  SslCtx ctx(SSL_CTX_new(TLS_client_method()));
  REQUIRE(ctx);
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  REQUIRE(SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr) == 1);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  Bio bio(BIO_new_ssl_connect(ctx.get()));
  REQUIRE(bio);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  BIO_set_conn_hostname(bio.get(), address.c_str());
  SSL* ssl = nullptr;
  BIO_get_ssl(bio.get(), &ssl);
  REQUIRE(ssl != nullptr);
  SSL_set_tlsext_host_name(ssl, host.c_str());
  SSL_set_hostflags(ssl, X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
  REQUIRE(SSL_set1_host(ssl, host.c_str()) == 1);

  ClientResult result;
  if (BIO_do_connect(bio.get()) <= 0 || BIO_do_handshake(bio.get()) <= 0) {
    const long verify = SSL_get_verify_result(ssl);
    result.error = verify != X509_V_OK ? X509_verify_cert_error_string(verify) : "handshake failed";
    ERR_clear_error();
    return result;
  }
  const std::string review = slurp(std::string(JOBSET_TESTDATA_DIR) + "/sample-review.json");
  const std::string request =
      "POST " + std::string(server::kValidatePath) + " HTTP/1.1\r\nHost: " + host +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(review.size()) +
      "\r\nConnection: close\r\n\r\n" + review;
  REQUIRE(BIO_write(bio.get(), request.data(), static_cast<int>(request.size())) ==
          static_cast<int>(request.size()));
  char buf[4096];
  int n = 0;
  while ((n = BIO_read(bio.get(), buf, sizeof buf)) > 0)
    result.response.append(buf, static_cast<std::size_t>(n));
  ERR_clear_error();
  return result;
}

}  // namespace

TEST_CASE("A client trusting only ca.crt connects to tls.crt and tls.key for the Service's name",
          "[deploy][tls]") {
  for (const std::string key_type : {"ecdsa-p256", "rsa-2048"}) {
    DYNAMIC_SECTION(key_type) {
      const CertDir certs(key_type);
      const Serving tls(certs);
      const auto r = connect(tls.port(), certs.file(server::kCaFileName), kHost);
      CHECK(r.error == "");
      CHECK(r.response.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
      CHECK(r.response.find(R"({"kind":"AdmissionReview")") != std::string::npos);
    }
  }
}

TEST_CASE("The handshake fails for a name the certificate does not carry", "[deploy][tls]") {
  const CertDir certs("ecdsa-p256");
  const Serving tls(certs);
  CHECK(connect(tls.port(), certs.file(server::kCaFileName), "jobset-webhook.other-namespace.svc")
            .error == "hostname mismatch");
}

TEST_CASE("The handshake fails for a client trusting another CA (a stale caBundle)",
          "[deploy][tls]") {
  const CertDir certs("ecdsa-p256");
  const CertDir other("ecdsa-p256");
  const Serving tls(certs);
  CHECK(connect(tls.port(), other.file(server::kCaFileName), kHost).error ==
        "unable to get local issuer certificate");
}

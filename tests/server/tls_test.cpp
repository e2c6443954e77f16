// TLS as the kube-apiserver meets it: the serving certificate checked against the caBundle for
// the Service's name, client certificates when asked for, TLS 1.2 and up only, no plaintext.

#include <thread>

#include <catch2/catch.hpp>

#include "support/sample_reviews.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace t = jobset_webhook::testing;
using namespace std::chrono_literals;

namespace {

using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::sample_review;
const std::string kServiceName = "jobset-webhook.jobset-system.svc";

// True when a request over a connection with these options gets an answer. A refused client
// certificate shows either in the handshake (TLS 1.2) or as a closed connection on the first read
// (TLS 1.3, where the client's handshake ends before the server has checked its certificate).
bool answered(int port, const t::TlsClientOptions& options, std::string* error = nullptr) {
  const auto conn = t::TlsConnection::open(port, options, error);
  if (!conn) return false;
  const auto res = conn->request(t::http_request("POST", kValidate, sample_review()));
  return res && res->status == 200;
}

// An httplib SSLServer that accepts TLS 1.0 with the same certificate: shows that the legacy
// client of these tests can connect at all, so a refusal by our server is our server's doing.
class LegacyTlsServer {
 public:
  explicit LegacyTlsServer(const t::Pki& pki)
      : server_([&](SSL_CTX& ctx) {
          SSL_CTX_set_security_level(&ctx, 0);
          SSL_CTX_set_min_proto_version(&ctx, TLS1_VERSION);
          SSL_CTX_set_cipher_list(&ctx, "DEFAULT:@SECLEVEL=0");
          return SSL_CTX_use_certificate_chain_file(&ctx, pki.tls_crt().c_str()) == 1 &&
                 SSL_CTX_use_PrivateKey_file(&ctx, pki.tls_key().c_str(), SSL_FILETYPE_PEM) == 1;
        }) {
    server_.Post(kValidate, [](const httplib::Request&, httplib::Response& res) {
      res.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~LegacyTlsServer() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  httplib::SSLServer server_;
  int port_ = -1;
  std::thread thread_;
};

}  // namespace

TEST_CASE("The serving certificate verifies against the CA for the Service's DNS name",
          "[server][tls]") {
  const auto pki = t::make_pki();
  const auto other = t::make_pki();
  t::TestServer server(t::test_options(pki));

  httplib::SSLClient client(kServiceName, server.port());
  client.set_hostname_addr_map({{kServiceName, "127.0.0.1"}});
  client.set_ca_cert_path(pki.ca_crt().c_str());
  client.enable_server_certificate_verification(true);
  const auto res = client.Post(kValidate.c_str(), sample_review(), "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);

  std::string error;
  CHECK(t::TlsConnection::open(server.port(),
                               t::TlsClientOptions().trust(pki.ca_crt()).host(kServiceName)));
  CHECK(t::TlsConnection::open(
      server.port(),
      t::TlsClientOptions().trust(pki.ca_crt()).host(kServiceName + ".cluster.local")));
  CHECK(t::TlsConnection::open(server.port(),
                               t::TlsClientOptions().trust(pki.ca_crt()).host("localhost")));
  // The checks are real: another name, or another CA, fails.
  CHECK_FALSE(t::TlsConnection::open(
      server.port(), t::TlsClientOptions().trust(pki.ca_crt()).host("other.example"), &error));
  CHECK(error == "certificate verify failed");
  CHECK_FALSE(t::TlsConnection::open(
      server.port(), t::TlsClientOptions().trust(other.ca_crt()).host(kServiceName), &error));
  CHECK(error == "certificate verify failed");
}

TEST_CASE("With a client CA, a client certificate it signed is required", "[server][tls][mtls]") {
  const auto pki = t::make_pki();
  const auto other = t::make_pki();
  auto options = t::test_options(pki);
  options.tls.client_ca_file = pki.ca_crt();
  t::TestServer server(options);
  for (const int version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    DYNAMIC_SECTION("TLS version " << std::hex << version) {
      const auto good = t::TlsClientOptions()
                            .versions(version, version)
                            .trust(pki.ca_crt())
                            .client_certificate(pki.client_crt(), pki.client_key());
      std::string error;
      CHECK(answered(server.port(), good, &error));
      INFO(error);
      auto none = good;
      none.cert_file = none.key_file = "";
      CHECK_FALSE(answered(server.port(), none));
      auto foreign = good;
      foreign.cert_file = other.client_crt();
      foreign.key_file = other.client_key();
      CHECK_FALSE(answered(server.port(), foreign));
    }
  }
  httplib::SSLClient client("127.0.0.1", server.port(), pki.client_crt(), pki.client_key());
  client.set_ca_cert_path(pki.ca_crt().c_str());
  client.enable_server_certificate_verification(true);
  const auto res = client.Post(kValidate.c_str(), sample_review(), "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  const auto refusals = server.log().wait_for("TLS handshake failed", 1);
  REQUIRE_FALSE(refusals.empty());
}

TEST_CASE("Without a client CA, no client certificate is asked for", "[server][tls][mtls]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  CHECK(answered(server.port(), t::TlsClientOptions().trust(pki.ca_crt())));
}

TEST_CASE("TLS 1.0 and 1.1 are refused, TLS 1.2 and 1.3 accepted", "[server][tls]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  LegacyTlsServer legacy(pki);
  for (const int version : {TLS1_VERSION, TLS1_1_VERSION}) {
    DYNAMIC_SECTION("TLS version " << std::hex << version) {
      const auto old = t::TlsClientOptions().versions(version, version).legacy();
      std::string error;
      CHECK(t::TlsConnection::open(legacy.port(), old, &error));
      INFO(error);
      CHECK_FALSE(t::TlsConnection::open(server.port(), old, &error));
    }
  }
  for (const int version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    DYNAMIC_SECTION("TLS version " << std::hex << version) {
      const auto conn =
          t::TlsConnection::open(server.port(), t::TlsClientOptions().versions(version, version));
      REQUIRE(conn);
      CHECK(conn->protocol_version() == version);
      const auto res = conn->request(t::http_request("POST", kValidate, sample_review()));
      REQUIRE(res);
      CHECK(res->status == 200);
    }
  }
}

TEST_CASE("Only the key exchange groups Go offers are accepted", "[server][tls]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  // TLS 1.3, where the group is only the key exchange's: in TLS 1.2 the same list also names the
  // curves an ECDSA certificate may use, and the test certificate is P-256.
  for (const std::string group : {"X25519", "P-256", "P-384", "P-521"}) {
    DYNAMIC_SECTION(group) {
      CHECK(answered(server.port(),
                     t::TlsClientOptions().versions(TLS1_3_VERSION, 0).offer_groups(group)));
    }
  }
  // X448 and the finite-field groups OpenSSL would accept by default: ffdhe8192 costs the
  // server hundreds of times the CPU of X25519 per handshake.
  for (const std::string group : {"X448", "ffdhe2048", "ffdhe8192"}) {
    DYNAMIC_SECTION(group << " refused") {
      CHECK_FALSE(t::TlsConnection::open(
          server.port(), t::TlsClientOptions().versions(TLS1_3_VERSION, 0).offer_groups(group)));
    }
  }
}

TEST_CASE("With --tls-min-version 1.3, TLS 1.2 is refused", "[server][tls]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.min_tls_version = jobset_webhook::server::TlsVersion::k1_3;
  t::TestServer server(options);
  CHECK_FALSE(t::TlsConnection::open(
      server.port(), t::TlsClientOptions().versions(TLS1_2_VERSION, TLS1_2_VERSION)));
  CHECK(answered(server.port(), t::TlsClientOptions().versions(TLS1_3_VERSION, 0)));
}

TEST_CASE("Plain HTTP to the HTTPS port is refused with a plain-HTTP explanation",
          "[server][tls]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto res =
      t::plain_http_exchange(server.port(), t::http_request("POST", kValidate, sample_review()));
  REQUIRE(res);
  CHECK(res->status == 400);
  CHECK(res->body == "Client sent an HTTP request to an HTTPS server.\n");
  CHECK(server.log().with_msg("request").empty());  // nothing was judged
  httplib::Client plain("127.0.0.1", server.port());
  const auto via_httplib = plain.Post(kValidate.c_str(), sample_review(), "application/json");
  CHECK((!via_httplib || via_httplib->status == 400));
}

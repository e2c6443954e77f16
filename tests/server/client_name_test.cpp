// --client-name: with a client CA, only a client certificate whose subject CN or one of whose DNS
// SANs is an allowed name gets in; any other is refused during the handshake, logged with the
// subject it presented and counted. A cluster CA signs many clients besides the kube-apiserver.

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>

#include "support/sample_reviews.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace fs = std::filesystem;
namespace t = jobset_webhook::testing;
using namespace std::chrono_literals;

namespace {

using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::sample_review;

struct ClientCert {
  std::string crt, key;
};

// A client certificate signed by the CA of pki, with subject CN cn (none when empty) and the
// subjectAltName extension sans ("DNS:a,DNS:b"; none when empty).
ClientCert client_cert(const t::Pki& pki, const std::string& cn, const std::string& sans) {
  static std::atomic<int> serial{1};
  const auto dir = t::fresh_temp_dir("client-cert");
  const ClientCert c{(dir / "c.crt").string(), (dir / "c.key").string()};
  {
    std::ofstream ext(dir / "c.ext");
    ext << "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
           "extendedKeyUsage=clientAuth\n";
    if (!sans.empty()) ext << "subjectAltName=" << sans << "\n";
  }
  const std::string d = dir.string();
  const std::string cmd =
      "set -e; cd " + d +
      "; openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out c.key 2>/dev/null" +
      "; openssl req -new -key c.key -subj '/" + (cn.empty() ? "O=no common name" : "CN=" + cn) +
      "' -out c.csr; openssl x509 -req -in c.csr -CA " + pki.ca_crt() + " -CAkey " +
      (pki.dir / "ca.key").string() + " -set_serial " +
      std::to_string(static_cast<long long>(::getpid()) * 1000 + serial++) +
      " -days 2 -sha256 -extfile c.ext -out c.crt 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return c;
}

t::TlsClientOptions presenting(const t::Pki& server_pki, const ClientCert& c) {
  return t::TlsClientOptions().trust(server_pki.ca_crt()).client_certificate(c.crt, c.key);
}

// A refused client certificate shows either in the handshake (TLS 1.2) or as a closed
// connection on the first read (TLS 1.3).
bool answered(int port, const t::TlsClientOptions& options) {
  const auto conn = t::TlsConnection::open(port, options);
  if (!conn) return false;
  const auto res = conn->request(t::http_request("POST", kValidate, sample_review()));
  return res && res->status == 200;
}

std::string refusals_metric(t::TestServer& server) {
  const auto text = server.server().metrics().scrape();
  const std::string name = "\njobset_webhook_client_certificate_name_refusals_total ";
  const auto at = text.find(name);
  if (at == std::string::npos) return "absent";
  return text.substr(at + name.size(), text.find('\n', at + 1) - at - name.size());
}

jobset_webhook::server::ServerOptions with_names(const t::Pki& pki,
                                                 std::vector<std::string> names) {
  auto options = t::test_options(pki);
  options.tls.client_ca_file = pki.ca_crt();
  options.client_names = std::move(names);
  return options;
}

}  // namespace

TEST_CASE("--client-name: a certificate whose CN is an allowed name is accepted",
          "[server][tls][mtls][client-name]") {
  const auto pki = t::make_pki();
  t::TestServer server(with_names(pki, {"kube-apiserver"}));
  CHECK(answered(server.port(), presenting(pki, client_cert(pki, "kube-apiserver", ""))));
  CHECK(refusals_metric(server) == "0");
  const auto serving = server.log().with_msg("serving");
  REQUIRE(serving.size() == 1);
  CHECK(serving[0]["clientNames"] == jobset_webhook::Json::array({"kube-apiserver"}));
}

TEST_CASE("--client-name: another name signed by the same CA is refused, logged and counted",
          "[server][tls][mtls][client-name]") {
  const auto pki = t::make_pki();
  t::TestServer server(with_names(pki, {"kube-apiserver"}));
  CHECK_FALSE(answered(
      server.port(), presenting(pki, client_cert(pki, "system:kube-scheduler", "DNS:scheduler"))));
  // Prefixes, suffixes and other cases of the name are other names.
  CHECK_FALSE(answered(server.port(), presenting(pki, client_cert(pki, "kube-apiserver-x", ""))));
  CHECK_FALSE(answered(server.port(), presenting(pki, client_cert(pki, "Kube-Apiserver", ""))));
  const auto lines = server.log().wait_for("client certificate refused: name not allowed", 3);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["subject"] == "CN=system:kube-scheduler");
  CHECK(lines[0]["names"] == jobset_webhook::Json::array({"system:kube-scheduler", "scheduler"}));
  CHECK(lines[0]["allowedNames"] == jobset_webhook::Json::array({"kube-apiserver"}));
  CHECK(refusals_metric(server) == "3");
  // The certificate the CA signed for the allowed name still gets in.
  CHECK(answered(server.port(), presenting(pki, client_cert(pki, "kube-apiserver", ""))));
}

TEST_CASE("--client-name: a client without a certificate is refused",
          "[server][tls][mtls][client-name]") {
  const auto pki = t::make_pki();
  t::TestServer server(with_names(pki, {"kube-apiserver"}));
  CHECK_FALSE(answered(server.port(), t::TlsClientOptions().trust(pki.ca_crt())));
  // Refused by the CA requirement before any name is looked at.
  CHECK(refusals_metric(server) == "0");
}

TEST_CASE("--client-name: a name found only in a DNS SAN is accepted",
          "[server][tls][mtls][client-name]") {
  const auto pki = t::make_pki();
  t::TestServer server(with_names(pki, {"webhook-client", "kube-apiserver"}));
  CHECK(answered(server.port(),
                 presenting(pki, client_cert(pki, "", "DNS:example.com,DNS:kube-apiserver"))));
  CHECK(answered(server.port(),
                 presenting(pki, client_cert(pki, "someone-else", "DNS:webhook-client"))));
  CHECK_FALSE(
      answered(server.port(), presenting(pki, client_cert(pki, "", "DNS:kube-apiserver.example"))));
  CHECK(refusals_metric(server) == "1");
}

TEST_CASE("--client-name: names are checked against whatever CA is current after a reload",
          "[server][tls][mtls][client-name][rotation]") {
  const auto a = t::make_pki();
  const auto b = t::make_pki();
  const auto ca_dir = t::fresh_temp_dir("client-ca");
  const auto ca_file = (ca_dir / "ca.crt").string();
  fs::copy_file(a.ca_crt(), ca_file);
  auto options = with_names(a, {"kube-apiserver"});
  options.tls.client_ca_file = ca_file;
  t::TestServer server(options);
  const auto a_allowed = presenting(a, client_cert(a, "kube-apiserver", ""));
  const auto b_allowed = presenting(a, client_cert(b, "kube-apiserver", ""));
  const auto b_other = presenting(a, client_cert(b, "someone-else", ""));
  CHECK(answered(server.port(), a_allowed));
  CHECK_FALSE(answered(server.port(), b_allowed));

  // As a Secret volume updates a file: a new one renamed over the old.
  fs::copy_file(b.ca_crt(), ca_dir / "ca.crt.new");
  fs::rename(ca_dir / "ca.crt.new", ca_file);
  REQUIRE(server.log().wait_for("reloaded client CA", 1).size() == 1);
  CHECK(answered(server.port(), b_allowed));
  CHECK_FALSE(answered(server.port(), b_other));
  CHECK_FALSE(answered(server.port(), a_allowed));
  // Only b_other chained to a CA in use and was refused for its name.
  CHECK(refusals_metric(server) == "1");
}

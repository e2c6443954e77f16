#include "cli/x509.h"

#include <arpa/inet.h>

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "support/x509_verify.h"

namespace cli = jobset_webhook::cli;
namespace ossl = jobset_webhook::cli::ossl;
using jobset_webhook::testing::certificates_of;
using jobset_webhook::testing::verify_serving_certificate;

namespace {

cli::ServingCertificates issue(cli::KeyType type = cli::KeyType::kEcdsaP256,
                               std::vector<std::string> extra = {}) {
  auto issued = cli::issue_serving_certificates(
      {"jobset-webhook", "jobset-system", std::move(extra), 30, type});
  INFO((issued.ok() ? "" : issued.failure().message));
  REQUIRE(issued.ok());
  return issued.value();
}

ossl::X509Ptr only_certificate(const std::string& pem) {
  auto certs = certificates_of(pem);
  REQUIRE(certs.size() == 1);
  return std::move(certs[0]);
}

// "DNS:name" and "IP:address" for every subjectAltName, in order.
std::vector<std::string> subject_alt_names(X509* cert) {
  std::vector<std::string> out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      out.push_back(
          "DNS:" +
          std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName)),
                      static_cast<std::size_t>(ASN1_STRING_length(name->d.dNSName))));
    } else if (name->type == GEN_IPADD) {
      char text[INET6_ADDRSTRLEN] = {};
      const int len = ASN1_STRING_length(name->d.iPAddress);
      inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(name->d.iPAddress), text,
                sizeof text);
      out.push_back(std::string("IP:") + text);
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

}  // namespace

TEST_CASE("A Service is reached by its name, NAME.NS, NAME.NS.svc and the cluster-local name",
          "[cli][x509]") {
  CHECK(cli::service_dns_names("jobset-webhook", "jobset-system") ==
        std::vector<std::string>{"jobset-webhook", "jobset-webhook.jobset-system",
                                 "jobset-webhook.jobset-system.svc",
                                 "jobset-webhook.jobset-system.svc.cluster.local"});
}

TEST_CASE("Extra SANs are IP literals or lowercase DNS names", "[cli][x509]") {
  struct Case {
    std::string san;
    bool ip;
    bool dns;
  };
  const std::vector<Case> cases = {
      {"127.0.0.1", true, false},
      {"::1", true, false},
      {"fd00::10:96:0:1", true, false},
      {"webhook.example.com", false, true},
      {"localhost", false, true},
      {"*.example.com", false, true},
      {"Webhook.example.com", false, false},
      {"a b", false, false},
      {"-bad.example.com", false, false},
      {"bad-.example.com", false, false},
      {"example..com", false, false},
      {"", false, false},
      {"fe80::1%eth0", false, false},
      {"DNS:x,IP:1.2.3.4", false, false},
      {std::string(64, 'a') + ".com", false, false},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.san) {
      CHECK(cli::is_ip_literal(c.san) == c.ip);
      CHECK(cli::is_dns_name(c.san) == c.dns);
    }
  }
}

TEST_CASE("The serving certificate verifies against its CA for every Service name, as a TLS server",
          "[cli][x509]") {
  for (const auto type : {cli::KeyType::kEcdsaP256, cli::KeyType::kRsa2048}) {
    DYNAMIC_SECTION((type == cli::KeyType::kRsa2048 ? "rsa-2048" : "ecdsa-p256")) {
      const auto c = issue(type);
      for (const auto& host : cli::service_dns_names("jobset-webhook", "jobset-system")) {
        INFO(host);
        CHECK(verify_serving_certificate(c.cert_pem, c.ca_pem, host) == "");
      }
      CHECK(verify_serving_certificate(c.cert_pem, c.ca_pem, "other.jobset-system.svc") ==
            "hostname mismatch");
      CHECK(verify_serving_certificate(c.cert_pem, issue(type).ca_pem,
                                       "jobset-webhook.jobset-system.svc") ==
            "unable to get local issuer certificate");
    }
  }
}

TEST_CASE("The serving certificate is serverAuth only, CA:FALSE, keyEncipherment only with RSA",
          "[cli][x509]") {
  for (const auto type : {cli::KeyType::kEcdsaP256, cli::KeyType::kRsa2048}) {
    const bool rsa = type == cli::KeyType::kRsa2048;
    DYNAMIC_SECTION((rsa ? "rsa-2048" : "ecdsa-p256")) {
      const auto cert = only_certificate(issue(type).cert_pem);
      CHECK(X509_check_ca(cert.get()) == 0);
      CHECK(X509_get_extended_key_usage(cert.get()) == XKU_SSL_SERVER);
      CHECK(X509_get_key_usage(cert.get()) ==
            (rsa ? KU_DIGITAL_SIGNATURE | KU_KEY_ENCIPHERMENT : KU_DIGITAL_SIGNATURE));
      CHECK(EVP_PKEY_get_base_id(X509_get0_pubkey(cert.get())) ==
            (rsa ? EVP_PKEY_RSA : EVP_PKEY_EC));
      CHECK(EVP_PKEY_get_bits(X509_get0_pubkey(cert.get())) == (rsa ? 2048 : 256));
      CHECK(X509_get_signature_nid(cert.get()) ==
            (rsa ? NID_sha256WithRSAEncryption : NID_ecdsa_with_SHA256));
    }
  }
}

TEST_CASE("The CA is CA:TRUE with path length 0 and may only sign", "[cli][x509]") {
  const auto ca = only_certificate(issue().ca_pem);
  CHECK(X509_check_ca(ca.get()) == 1);
  CHECK(X509_get_pathlen(ca.get()) == 0);
  CHECK(X509_get_key_usage(ca.get()) == (KU_KEY_CERT_SIGN | KU_CRL_SIGN));
  CHECK(X509_check_issued(ca.get(), ca.get()) == X509_V_OK);
}

TEST_CASE("The private key is PKCS#8 and belongs to the serving certificate", "[cli][x509]") {
  const auto c = issue();
  CHECK(c.key_pem.rfind("-----BEGIN "
                        "PRIVATE KEY-----\n",
                        0) == 0);
  ossl::Bio bio(BIO_new_mem_buf(c.key_pem.data(), static_cast<int>(c.key_pem.size())));
  ossl::Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  REQUIRE(key);
  CHECK(X509_check_private_key(only_certificate(c.cert_pem).get(), key.get()) == 1);
  CHECK(X509_check_private_key(only_certificate(c.ca_pem).get(), key.get()) == 0);
  ERR_clear_error();
}

TEST_CASE("Extra SANs follow the Service names: IPs as iPAddress, duplicates once", "[cli][x509]") {
  const auto cert =
      only_certificate(issue(cli::KeyType::kEcdsaP256,
                             {"127.0.0.1", "localhost", "::1", "jobset-webhook.jobset-system.svc"})
                           .cert_pem);
  CHECK(subject_alt_names(cert.get()) ==
        std::vector<std::string>{"DNS:jobset-webhook", "DNS:jobset-webhook.jobset-system",
                                 "DNS:jobset-webhook.jobset-system.svc",
                                 "DNS:jobset-webhook.jobset-system.svc.cluster.local",
                                 "IP:127.0.0.1", "DNS:localhost", "IP:::1"});
}

TEST_CASE("Both certificates run from an hour ago to the same instant days from now",
          "[cli][x509]") {
  const auto c = issue();
  const auto ca = only_certificate(c.ca_pem);
  const auto leaf = only_certificate(c.cert_pem);
  int days = 0;
  int seconds = 0;
  REQUIRE(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(leaf.get()),
                         X509_get0_notAfter(leaf.get())) == 1);
  CHECK(days == 30);
  CHECK(seconds == 3600);
  CHECK(ASN1_TIME_compare(X509_get0_notAfter(ca.get()), X509_get0_notAfter(leaf.get())) == 0);
  CHECK(ASN1_TIME_compare(X509_get0_notBefore(ca.get()), X509_get0_notBefore(leaf.get())) == 0);
}

TEST_CASE("A request with a bad name, SAN or validity fails with a message naming it",
          "[cli][x509]") {
  struct Case {
    std::string name;
    cli::ServingCertificateRequest request;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"service",
       {"Web_Hook", "ns", {}, 30, {}},
       R"(service "Web_Hook" is not a DNS label (lowercase letters, digits and '-', at most 63))"},
      {"namespace",
       {"svc", "", {}, 30, {}},
       R"(namespace "" is not a DNS label (lowercase letters, digits and '-', at most 63))"},
      {"extra SAN",
       {"svc", "ns", {"a,DNS:evil"}, 30, {}},
       R"(extra SAN "a,DNS:evil" is neither a DNS name (lowercase) nor an IP address)"},
      {"zero days", {"svc", "ns", {}, 0, {}}, "days must be between 1 and 3650, got 0"},
      {"too many days", {"svc", "ns", {}, 3651, {}}, "days must be between 1 and 3650, got 3651"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto issued = cli::issue_serving_certificates(c.request);
      REQUIRE_FALSE(issued.ok());
      CHECK(issued.failure().code == jobset_webhook::StatusCode::kInvalidArgument);
      CHECK(issued.failure().message == c.want);
    }
  }
}

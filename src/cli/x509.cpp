#include "x509.h"

#include <arpa/inet.h>

#include <algorithm>
#include <ctime>
#include <string>

#include <openssl/pem.h>

#include "openssl_internal.h"

namespace jobset_webhook::cli {
namespace {

constexpr int kMaxDays = 3650;
// Backdating notBefore keeps a certificate valid on a node whose clock runs behind ours.
constexpr long kBackdateSeconds = 3600;
// X.520's upper bound for a Common Name; OpenSSL refuses longer ones.
constexpr std::size_t kMaxCommonName = 64;

bool is_dns_label(std::string_view label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
    return false;
  return std::all_of(label.begin(), label.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

Failure openssl_failure(const std::string& what) {
  return internal_error(ossl::error_message(what));
}

Result<ossl::Pkey> generate_key(KeyType type) {
  const bool ec = type == KeyType::kEcdsaP256;
  ossl::PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, ec ? "EC" : "RSA", nullptr));
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0) return openssl_failure("key generation");
  const int set = ec ? EVP_PKEY_CTX_set_group_name(ctx.get(), "P-256")
                     : EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), 2048);
  EVP_PKEY* raw = nullptr;
  if (set <= 0 || EVP_PKEY_generate(ctx.get(), &raw) <= 0) return openssl_failure("key generation");
  return ossl::Pkey(raw);
}

// A random positive 127-bit serial: unique without bookkeeping, as RFC 5280 asks of one CA.
bool set_random_serial(X509* cert) {
  ossl::Bignum bn(BN_new());
  return bn && BN_rand(bn.get(), 127, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) == 1 &&
         BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) != nullptr;
}

// An extension from OpenSSL's configuration syntax; only ever given the constant strings below.
bool add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ossl::X509Extension ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

// subjectAltName built field by field rather than through the configuration syntax, so that no
// user-supplied name is ever parsed as configuration.
bool add_subject_alt_names(X509* cert, const std::vector<std::string>& sans) {
  ossl::GeneralNames names(sk_GENERAL_NAME_new_null());
  if (!names) return false;
  for (const auto& san : sans) {
    const bool ip = is_ip_literal(san);
    ossl::GeneralName name(GENERAL_NAME_new());
    ossl::Asn1String value(ip ? a2i_IPADDRESS(san.c_str()) : ASN1_IA5STRING_new());
    if (!name || !value) return false;
    if (!ip && ASN1_STRING_set(value.get(), san.data(), static_cast<int>(san.size())) != 1)
      return false;
    GENERAL_NAME_set0_value(name.get(), ip ? GEN_IPADD : GEN_DNS, value.release());
    if (sk_GENERAL_NAME_push(names.get(), name.get()) == 0) return false;
    name.release();  // the stack owns it now
  }
  return X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) == 1;
}

// Everything both certificates share: version 3, serial, subject CN, validity, public key,
// subjectKeyIdentifier.
Result<ossl::X509Ptr> new_certificate(const std::string& common_name, EVP_PKEY* key,
                                      std::time_t now, int days) {
  ossl::X509Ptr cert(X509_new());
  if (!cert) return openssl_failure("certificate");
  const auto* cn = reinterpret_cast<const unsigned char*>(common_name.c_str());
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1 || !set_random_serial(cert.get()) ||
      X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_UTF8, cn, -1, -1,
                                 0) != 1 ||
      X509_time_adj_ex(X509_getm_notBefore(cert.get()), 0, -kBackdateSeconds, &now) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(cert.get()), days, 0, &now) == nullptr ||
      X509_set_pubkey(cert.get(), key) != 1 ||
      !add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash")) {
    return openssl_failure("certificate " + common_name);
  }
  return cert;
}

std::string pem_of(X509* cert) {
  ossl::Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return {};
  return ossl::bio_contents(bio.get());
}

std::string pem_of(EVP_PKEY* key) {
  ossl::Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return {};
  return ossl::bio_contents(bio.get());
}

Result<std::vector<std::string>> subject_alt_names(const ServingCertificateRequest& request) {
  if (!is_dns_label(request.service)) {
    return invalid_argument(
        "service \"" + request.service +
        "\" is not a DNS label (lowercase letters, digits and '-', at most 63)");
  }
  if (!is_dns_label(request.ns)) {
    return invalid_argument(
        "namespace \"" + request.ns +
        "\" is not a DNS label (lowercase letters, digits and '-', at most 63)");
  }
  auto sans = service_dns_names(request.service, request.ns);
  for (const auto& extra : request.extra_sans) {
    if (!is_ip_literal(extra) && !is_dns_name(extra)) {
      return invalid_argument("extra SAN \"" + extra +
                              "\" is neither a DNS name (lowercase) nor an IP address");
    }
    if (std::find(sans.begin(), sans.end(), extra) == sans.end()) sans.push_back(extra);
  }
  return sans;
}

}  // namespace

std::vector<std::string> service_dns_names(std::string_view service, std::string_view ns) {
  const std::string qualified = std::string(service) + "." + std::string(ns);
  return {std::string(service), qualified, qualified + ".svc", qualified + ".svc.cluster.local"};
}

bool is_ip_literal(std::string_view san) {
  const std::string s(san);
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

bool is_dns_name(std::string_view san) {
  if (san.rfind("*.", 0) == 0) san.remove_prefix(2);
  if (san.empty() || san.size() > 253) return false;
  while (true) {
    const auto dot = san.find('.');
    const auto label = san.substr(0, dot);
    if (!is_dns_label(label)) return false;
    // An all-digit last label would let an IPv4 literal pass as a name (RFC 3696, section 2).
    if (dot == std::string_view::npos)
      return !std::all_of(label.begin(), label.end(), [](char c) { return c >= '0' && c <= '9'; });
    san.remove_prefix(dot + 1);
  }
}

Result<ServingCertificates> issue_serving_certificates(const ServingCertificateRequest& request) {
  if (request.days < 1 || request.days > kMaxDays) {
    return invalid_argument("days must be between 1 and " + std::to_string(kMaxDays) + ", got " +
                            std::to_string(request.days));
  }
  auto sans = subject_alt_names(request);
  if (!sans.ok()) return sans.failure();
  ERR_clear_error();
  const std::time_t now = std::time(nullptr);

  auto ca_key = generate_key(request.key_type);
  if (!ca_key.ok()) return ca_key.failure();
  // A CA subject unique per run: during a rotation the caBundle holds the old and the new CA.
  char stamp[32];
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  auto ca = new_certificate(std::string("jobset-webhook CA ") + stamp, ca_key.value().get(), now,
                            request.days);
  if (!ca.ok()) return ca.failure();
  X509* ca_cert = ca.value().get();
  if (X509_set_issuer_name(ca_cert, X509_get_subject_name(ca_cert)) != 1 ||
      !add_extension(ca_cert, ca_cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
      !add_extension(ca_cert, ca_cert, NID_key_usage, "critical,keyCertSign,cRLSign") ||
      !add_extension(ca_cert, ca_cert, NID_authority_key_identifier, "keyid:always") ||
      X509_sign(ca_cert, ca_key.value().get(), EVP_sha256()) <= 0) {
    return openssl_failure("CA certificate");
  }

  auto key = generate_key(request.key_type);
  if (!key.ok()) return key.failure();
  // Go ignores the Common Name; it is there for people reading the certificate.
  const std::string& svc_name = sans.value()[2];
  auto leaf = new_certificate(svc_name.size() <= kMaxCommonName ? svc_name : request.service,
                              key.value().get(), now, request.days);
  if (!leaf.ok()) return leaf.failure();
  X509* cert = leaf.value().get();
  // keyEncipherment only means something for RSA key exchange; an ECDSA key only signs.
  const char* usage = request.key_type == KeyType::kRsa2048
                          ? "critical,digitalSignature,keyEncipherment"
                          : "critical,digitalSignature";
  if (X509_set_issuer_name(cert, X509_get_subject_name(ca_cert)) != 1 ||
      !add_extension(cert, ca_cert, NID_basic_constraints, "critical,CA:FALSE") ||
      !add_extension(cert, ca_cert, NID_key_usage, usage) ||
      !add_extension(cert, ca_cert, NID_ext_key_usage, "serverAuth") ||
      !add_extension(cert, ca_cert, NID_authority_key_identifier, "keyid:always") ||
      !add_subject_alt_names(cert, sans.value()) ||
      X509_sign(cert, ca_key.value().get(), EVP_sha256()) <= 0) {
    return openssl_failure("serving certificate");
  }

  ServingCertificates out{pem_of(ca_cert), pem_of(cert), pem_of(key.value().get())};
  if (out.ca_pem.empty() || out.cert_pem.empty() || out.key_pem.empty())
    return openssl_failure("PEM encoding");
  return out;
}

}  // namespace jobset_webhook::cli

#include "credentials.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <vector>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

namespace jobset_webhook::server {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using UniqueBio = std::unique_ptr<BIO, BioFree>;

// The reason of the most recent OpenSSL error on this thread, and an empty error queue.
std::string openssl_reason() {
  unsigned long last = 0;
  while (const unsigned long e = ERR_get_error()) last = e;
  const char* reason = last != 0 ? ERR_reason_error_string(last) : nullptr;
  return reason != nullptr ? reason : "unknown error";
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_argument("cannot read " + path + ": " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// PEM readers ask for a passphrase on the terminal by default; an encrypted key is refused instead.
int no_passphrase(char*, int, int, void*) { return 0; }

// True when the only error queued is "no more PEM blocks", which ends a read loop normally.
bool at_end_of_pem() {
  const unsigned long e = ERR_peek_last_error();
  const bool end = ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
  if (end) ERR_clear_error();
  return end;
}

// Every certificate in text, in order; Failure when one is malformed.
Result<std::vector<X509*>> read_certificates(const std::string& text, const std::string& path) {
  ERR_clear_error();
  UniqueBio bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  std::vector<X509*> certs;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr))
    certs.push_back(cert);
  if (!at_end_of_pem()) {
    for (X509* c : certs) X509_free(c);
    return invalid_argument(path + ": malformed certificate: " + openssl_reason());
  }
  if (certs.empty()) return invalid_argument(path + ": no PEM certificate found");
  return certs;
}

std::string not_after_of(X509* cert) {
  std::tm t{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &t) != 1) return {};
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02dZ", t.tm_year + 1900, t.tm_mon + 1,
                t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec);
  return text;
}

std::int64_t not_after_unix_of(X509* cert) {
  std::tm t{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &t) != 1) return 0;
  return static_cast<std::int64_t>(timegm(&t));
}

}  // namespace

std::string certificate_subject(X509* cert) {
  UniqueBio out(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(out.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  const long n = BIO_get_mem_data(out.get(), &data);
  return n > 0 ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

ServingCertificate::~ServingCertificate() {
  X509_free(leaf);
  sk_X509_pop_free(chain, X509_free);
  EVP_PKEY_free(private_key);
}

ClientCa::~ClientCa() {
  X509_STORE_free(store);
  sk_X509_NAME_pop_free(names, X509_NAME_free);
}

Result<std::shared_ptr<const ServingCertificate>> load_serving_certificate(
    const std::string& cert_file, const std::string& key_file) {
  const auto cert_text = read_file(cert_file);
  if (!cert_text.ok()) return cert_text.failure();
  const auto key_text = read_file(key_file);
  if (!key_text.ok()) return key_text.failure();
  auto certs = read_certificates(cert_text.value(), cert_file);
  if (!certs.ok()) return certs.failure();

  auto loaded = std::make_shared<ServingCertificate>();
  loaded->leaf = certs.value().front();
  loaded->chain = sk_X509_new_null();
  for (std::size_t i = 1; i < certs.value().size(); ++i)
    sk_X509_push(loaded->chain, certs.value()[i]);

  ERR_clear_error();
  UniqueBio key_bio(
      BIO_new_mem_buf(key_text.value().data(), static_cast<int>(key_text.value().size())));
  loaded->private_key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, no_passphrase, nullptr);
  if (loaded->private_key == nullptr) {
    return invalid_argument(key_file + ": no usable PEM private key: " + openssl_reason());
  }
  if (X509_check_private_key(loaded->leaf, loaded->private_key) != 1) {
    ERR_clear_error();
    return invalid_argument(cert_file + " and " + key_file +
                            ": the private key does not match the certificate");
  }
  loaded->subject = certificate_subject(loaded->leaf);
  loaded->not_after = not_after_of(loaded->leaf);
  loaded->not_after_unix = not_after_unix_of(loaded->leaf);
  return std::shared_ptr<const ServingCertificate>(std::move(loaded));
}

Result<std::shared_ptr<const ClientCa>> load_client_ca(const std::string& ca_file) {
  const auto text = read_file(ca_file);
  if (!text.ok()) return text.failure();
  auto certs = read_certificates(text.value(), ca_file);
  if (!certs.ok()) return certs.failure();

  auto loaded = std::make_shared<ClientCa>();
  loaded->store = X509_STORE_new();
  loaded->names = sk_X509_NAME_new_null();
  for (X509* cert : certs.value()) {
    const auto not_after = not_after_unix_of(cert);
    if (loaded->not_after_unix == 0 || not_after < loaded->not_after_unix)
      loaded->not_after_unix = not_after;
    X509_STORE_add_cert(loaded->store, cert);  // takes its own reference
    sk_X509_NAME_push(loaded->names, X509_NAME_dup(X509_get_subject_name(cert)));
    X509_free(cert);
  }
  ERR_clear_error();  // adding a certificate twice queues a harmless error
  loaded->certificates = certs.value().size();
  return std::shared_ptr<const ClientCa>(std::move(loaded));
}

}  // namespace jobset_webhook::server

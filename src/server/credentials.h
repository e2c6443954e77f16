#pragma once

// TLS material read from PEM files and checked before it is used: the serving certificate with
// its private key, and the CA bundle that client certificates must chain to. Once loaded a value
// is immutable, so handshakes on many threads share it while a reload builds the next one.

#include <cstdint>
#include <memory>
#include <string>

#include <openssl/ssl.h>

#include "jobset_webhook/result.h"

namespace jobset_webhook::server {

struct ServingCertificate {
  ServingCertificate() = default;
  ServingCertificate(const ServingCertificate&) = delete;
  ServingCertificate& operator=(const ServingCertificate&) = delete;
  ~ServingCertificate();

  X509* leaf = nullptr;
  STACK_OF(X509) * chain = nullptr;  // intermediates after the leaf in the file; may be empty
  EVP_PKEY* private_key = nullptr;
  std::string subject;              // for logs: "CN=jobset-webhook.jobset-system.svc"
  std::string not_after;            // for logs: "2027-11-30T11:46:05Z"
  std::int64_t not_after_unix = 0;  // the same, in seconds since the epoch, for metrics
};

struct ClientCa {
  ClientCa() = default;
  ClientCa(const ClientCa&) = delete;
  ClientCa& operator=(const ClientCa&) = delete;
  ~ClientCa();

  X509_STORE* store = nullptr;            // verifies client certificates
  STACK_OF(X509_NAME) * names = nullptr;  // sent in the CertificateRequest
  std::size_t certificates = 0;
  std::int64_t not_after_unix = 0;  // the earliest notAfter of the bundle, seconds since the epoch
};

// The subject of cert as RFC 2253 text, for logs: "CN=kube-apiserver,O=system:masters".
std::string certificate_subject(X509* cert);

// Reads a certificate chain and its private key. Failure (kInvalidArgument) names the file and the
// reason: unreadable, no certificate, no key, or a key that does not match the certificate.
Result<std::shared_ptr<const ServingCertificate>> load_serving_certificate(
    const std::string& cert_file, const std::string& key_file);

// Reads every certificate of a PEM bundle. Failure (kInvalidArgument) when the file is
// unreadable, holds no certificate, or holds something that is not one.
Result<std::shared_ptr<const ClientCa>> load_client_ca(const std::string& ca_file);

}  // namespace jobset_webhook::server

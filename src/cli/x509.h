#pragma once

// The X.509 work behind `jobset-webhook certs`: a private CA and a serving certificate it signs,
// made in memory with the OpenSSL 3 API and returned as PEM text. Writing the files is the
// caller's job (src/cli/certs.cpp).
//
// The serving certificate is what the kube-apiserver accepts from a webhook Service: the Service's
// DNS names as subjectAltNames (Go ignores the Common Name: "x509: certificate relies on legacy
// Common Name field"), extended key usage serverAuth, key usage digitalSignature (plus
// keyEncipherment for RSA keys), basicConstraints CA:FALSE. The CA has CA:TRUE, pathlen 0,
// keyCertSign and cRLSign. Both are valid from one hour ago (clock skew between nodes) until the
// same instant `days` days from now. The CA's private key never leaves this function.

#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

enum class KeyType { kEcdsaP256, kRsa2048 };

struct ServingCertificateRequest {
  std::string service;                  // the Service's name, e.g. jobset-webhook
  std::string ns;                       // its namespace, e.g. jobset-system
  std::vector<std::string> extra_sans;  // more DNS names, or IP literals (become IP SANs)
  int days = 365;
  KeyType key_type = KeyType::kEcdsaP256;
};

struct ServingCertificates {
  std::string ca_pem;    // ca.crt: what the webhook configurations' caBundle holds
  std::string cert_pem;  // tls.crt: the serving certificate
  std::string key_pem;   // tls.key: its private key, PKCS#8
};

// The names a Service is reached by from inside the cluster, in this order:
// NAME, NAME.NS, NAME.NS.svc (the one the apiserver dials and verifies), NAME.NS.svc.cluster.local.
std::vector<std::string> service_dns_names(std::string_view service, std::string_view ns);

// True when san is an IPv4 or IPv6 literal, which goes into an iPAddress SAN, not a dNSName.
bool is_ip_literal(std::string_view san);

// True when san is a DNS name a certificate may carry: lowercase RFC 1123 labels separated by
// dots, at most 253 bytes, the last one not all digits, optionally starting with a "*." wildcard.
bool is_dns_name(std::string_view san);

// A fresh CA and a serving certificate for the request's Service, signed with SHA-256. Duplicate
// names are listed once. Fails (kInvalidArgument) on an extra SAN that is neither a DNS name nor
// an IP literal, or days outside 1..3650; fails (kInternal) naming the OpenSSL error if a step
// fails.
[[nodiscard]] Result<ServingCertificates> issue_serving_certificates(
    const ServingCertificateRequest& request);

}  // namespace jobset_webhook::cli

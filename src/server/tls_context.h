#pragma once

// The server's OpenSSL context: TLS 1.2 or 1.3 and up (1.0 and 1.1 are always refused), forward-
// secret AEAD ciphers for TLS 1.2, no compression or renegotiation. The certificate is not fixed
// here: on every handshake a certificate callback installs the reloader's current pair and, with
// a client CA, requires a client certificate verified against the reloader's current CA and, with
// client names, carrying one of them.

#include <string>
#include <vector>

#include <openssl/ssl.h>

#include "credential_reloader.h"
#include "jobset_webhook/runtime/log.h"
#include "jobset_webhook/server/options.h"
#include "server_metrics.h"

namespace jobset_webhook::server {

// Which client certificates a verified chain may end in, and where a refusal is reported.
struct ClientNameCheck {
  std::vector<std::string> names;  // empty: any
  const runtime::Log* log = nullptr;
  ServerMetrics* metrics = nullptr;
};

// The names a certificate answers to for ClientNameCheck: its subject's CNs, then its DNS SANs.
std::vector<std::string> certificate_names(X509* cert);

// Returns false when OpenSSL refuses a setting. reloader and names must outlive ctx. A certificate
// refused for its name fails the handshake (the client gets a bad_certificate alert), is logged
// (`client certificate refused: name not allowed`, with its subject and DNS names) and counted in
// jobset_webhook_client_certificate_name_refusals_total.
bool configure_tls_context(SSL_CTX& ctx, TlsVersion min_version, const CredentialReloader& reloader,
                           bool require_client_certificate, const ClientNameCheck& names);

}  // namespace jobset_webhook::server

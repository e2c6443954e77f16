#pragma once

// The server's OpenSSL context: TLS 1.2 or 1.3 and up (1.0 and 1.1 are always refused), forward-
// secret AEAD ciphers for TLS 1.2, no compression or renegotiation. The certificate is not fixed
// here: on every handshake a certificate callback installs the reloader's current pair and, with
// a client CA, requires a client certificate verified against the reloader's current CA.

#include <openssl/ssl.h>

#include "jobset_webhook/server/credential_reloader.h"
#include "jobset_webhook/server/options.h"

namespace jobset_webhook::server {

// Returns false when OpenSSL refuses a setting. reloader must outlive ctx.
bool configure_tls_context(SSL_CTX& ctx, TlsVersion min_version, const CredentialReloader& reloader,
                           bool require_client_certificate);

}  // namespace jobset_webhook::server

#include "tls_context.h"

#include <algorithm>
#include <memory>

#include <openssl/x509v3.h>

#include "credentials.h"

namespace jobset_webhook::server {
namespace {

// TLS 1.2 suites with ECDHE key exchange and AEAD only, as Go's crypto/tls (the kube-apiserver's
// side) prefers. TLS 1.3 suites are OpenSSL's defaults, all of which qualify.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// Key exchange groups: Go's crypto/tls defaults (what the kube-apiserver offers). OpenSSL would
// also accept X448 and the finite-field groups ffdhe2048 to ffdhe8192; a client choosing
// ffdhe8192 makes each handshake cost the server hundreds of times the CPU of X25519.
constexpr const char* kGroups = "X25519:P-256:P-384:P-521";

// Runs during each handshake, before the server picks its certificate: installs the pair that is
// current now, so a rotation takes effect at the next handshake.
int install_current_credentials(SSL* ssl, void* arg) {
  const auto& reloader = *static_cast<const CredentialReloader*>(arg);
  const auto certificate = reloader.certificate();
  if (!certificate) return 0;
  // SSL_use_cert_and_key takes its own references: the handshake keeps the pair alive even if a
  // reload replaces it meanwhile.
  if (SSL_use_cert_and_key(ssl, certificate->leaf, certificate->private_key, certificate->chain,
                           1) != 1)
    return 0;
  if (SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER) {
    const auto ca = reloader.client_ca();
    if (!ca || SSL_set1_verify_cert_store(ssl, ca->store) != 1) return 0;
    STACK_OF(X509_NAME)* names = SSL_dup_CA_list(ca->names);
    if (names == nullptr) return 0;
    SSL_set_client_CA_list(ssl, names);  // takes ownership
  }
  return 1;
}

// Where the context keeps its ClientNameCheck for the verify callback.
int client_names_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

std::string text_of(const ASN1_STRING* s) {
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<std::size_t>(ASN1_STRING_length(s)));
}

// Runs for each certificate of the client's chain after OpenSSL's own checks. Only the leaf is
// judged by name, and only once its chain verified: a name is worth nothing without the CA.
// As Gatekeeper's --client-cn-name, but a DNS SAN counts too (certificates without a CN exist).
int verify_client_name(int preverified, X509_STORE_CTX* store) {
  if (preverified != 1 || X509_STORE_CTX_get_error_depth(store) != 0) return preverified;
  auto* ssl =
      static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  if (ssl == nullptr) return 0;
  const auto* check = static_cast<const ClientNameCheck*>(
      SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), client_names_index()));
  if (check == nullptr || check->names.empty()) return 1;
  X509* cert = X509_STORE_CTX_get_current_cert(store);
  const auto presented = certificate_names(cert);
  for (const auto& name : presented) {
    if (std::find(check->names.begin(), check->names.end(), name) != check->names.end()) return 1;
  }
  X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
  if (check->metrics != nullptr) check->metrics->count_client_name_refusal();
  if (check->log != nullptr) {
    check->log->info("client certificate refused: name not allowed",
                     {{"subject", certificate_subject(cert)},
                      {"names", Json(presented)},
                      {"allowedNames", Json(check->names)}});
  }
  return 0;
}

}  // namespace

std::vector<std::string> certificate_names(X509* cert) {
  std::vector<std::string> names;
  const X509_NAME* subject = X509_get_subject_name(cert);
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) >= 0;)
    names.push_back(text_of(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i))));
  auto* sans =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; sans != nullptr && i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* san = sk_GENERAL_NAME_value(sans, i);
    if (san->type == GEN_DNS) names.push_back(text_of(san->d.dNSName));
  }
  GENERAL_NAMES_free(sans);
  return names;
}

bool configure_tls_context(SSL_CTX& ctx, TlsVersion min_version, const CredentialReloader& reloader,
                           bool require_client_certificate, const ClientNameCheck& names) {
  const int min = min_version == TlsVersion::k1_3 ? TLS1_3_VERSION : TLS1_2_VERSION;
  if (SSL_CTX_set_min_proto_version(&ctx, min) != 1) return false;
  if (SSL_CTX_set_cipher_list(&ctx, kTls12Ciphers) != 1) return false;
  if (SSL_CTX_set1_groups_list(&ctx, kGroups) != 1) return false;
  SSL_CTX_set_options(
      &ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // Idle keep-alive connections give their read and write buffers back.
  SSL_CTX_set_mode(&ctx, SSL_MODE_RELEASE_BUFFERS);
  // No read-ahead (one read(2) for a record's header, one for the rest): with it, and more so
  // with a buffer larger than a record, a few more system calls per request were saved at the
  // price of the allocator's arenas left fragmented after large bodies (up to 14 MiB more resident
  // after the hostile rounds of tests/server/memory_test, one run in four).
  // No session resumption: a resumed session skips the certificates, so a client verified against
  // a client CA that has since been rotated away could go on resuming. The kube-apiserver keeps
  // its connections open, so full handshakes are rare anyway.
  SSL_CTX_set_session_cache_mode(&ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_TICKET);
  if (SSL_CTX_set_num_tickets(&ctx, 0) != 1) return false;
  if (require_client_certificate) {
    if (SSL_CTX_set_ex_data(&ctx, client_names_index(), const_cast<ClientNameCheck*>(&names)) != 1)
      return false;
    SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verify_client_name);
  }
  SSL_CTX_set_cert_cb(&ctx, install_current_credentials,
                      const_cast<CredentialReloader*>(&reloader));
  return true;
}

}  // namespace jobset_webhook::server

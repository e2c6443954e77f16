#pragma once

// Test helper: verifies a serving certificate as the kube-apiserver (Go's crypto/x509) does:
// chain to the given CAs only, the host name against the subjectAltNames only (never the Common
// Name), extended key usage serverAuth, validity now.

#include <algorithm>
#include <string>
#include <vector>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>

#include "cli/openssl_internal.h"

namespace jobset_webhook::testing {

namespace ossl = jobset_webhook::cli::ossl;

// Standard base64 (a caBundle, a Secret's data) decoded. Line breaks are skipped, as Go's decoder
// skips them: kustomize folds long Secret data.
inline std::string base64_decode(std::string text) {
  text.erase(
      std::remove_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }),
      text.end());
  std::string out(text.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return "<not base64>";
  // EVP_DecodeBlock counts the bytes that '=' padding stands for.
  const auto padding = text.size() - text.find_last_not_of('=') - 1;
  out.resize(static_cast<std::size_t>(n) - padding);
  return out;
}

// Every certificate in a PEM text (a caBundle may hold several).
inline std::vector<ossl::X509Ptr> certificates_of(const std::string& pem) {
  std::vector<ossl::X509Ptr> out;
  ossl::Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr))
    out.emplace_back(cert);
  ERR_clear_error();  // the read that ends the loop queues a "no start line" error
  return out;
}

// "" when cert_pem verifies for host against the CAs in ca_pem, else OpenSSL's reason.
inline std::string verify_serving_certificate(const std::string& cert_pem,
                                              const std::string& ca_pem, const std::string& host) {
  const auto leaf = certificates_of(cert_pem);
  const auto cas = certificates_of(ca_pem);
  if (leaf.size() != 1) return "expected one certificate, got " + std::to_string(leaf.size());
  if (cas.empty()) return "no CA certificate";
  ossl::X509Store store(X509_STORE_new());
  for (const auto& ca : cas) X509_STORE_add_cert(store.get(), ca.get());
  ossl::X509StoreCtx ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf[0].get(), nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
  X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
  if (X509_verify_cert(ctx.get()) == 1) return "";
  return X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
}

}  // namespace jobset_webhook::testing

#pragma once

// Owning handles for the OpenSSL objects the X.509 code uses, so that every early return frees
// what was allocated. Also used by the tests that verify what `certs` writes.

#include <memory>
#include <string>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace jobset_webhook::cli::ossl {

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};

using Asn1Integer = std::unique_ptr<ASN1_INTEGER, Deleter<ASN1_INTEGER_free>>;
// IA5String (a dNSName) and OCTET STRING (an iPAddress) are both ASN1_STRING.
using Asn1String = std::unique_ptr<ASN1_STRING, Deleter<ASN1_STRING_free>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using GeneralName = std::unique_ptr<GENERAL_NAME, Deleter<GENERAL_NAME_free>>;
using GeneralNames = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES_free>>;
using Pkey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using X509Extension = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;
using X509Store = std::unique_ptr<X509_STORE, Deleter<X509_STORE_free>>;
using X509StoreCtx = std::unique_ptr<X509_STORE_CTX, Deleter<X509_STORE_CTX_free>>;

// "<what>: <OpenSSL's queued errors>" and the queue emptied, so the next failure starts clean.
inline std::string error_message(const std::string& what) {
  std::string out = what;
  const char* sep = ": ";
  while (const unsigned long code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    out += sep;
    out += buf;
    sep = "; ";
  }
  return out;
}

// The whole content of a memory BIO.
inline std::string bio_contents(BIO* bio) {
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  return len > 0 ? std::string(data, static_cast<std::size_t>(len)) : std::string();
}

}  // namespace jobset_webhook::cli::ossl

#pragma once
// PEM certificates and keys as owned OpenSSL objects: shared by the serving side (--tls-* files) and
// the API client (kubeconfig data and files).
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string_view>

namespace kext {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PrivateKeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PrivateKeyPtr = std::unique_ptr<EVP_PKEY, PrivateKeyFree>;

// The first certificate in `pem`, or null.
X509Ptr pem_certificate(std::string_view pem);
// An unencrypted private key, or null: an encrypted one fails instead of prompting on a terminal.
PrivateKeyPtr pem_private_key(std::string_view pem);

}  // namespace kext

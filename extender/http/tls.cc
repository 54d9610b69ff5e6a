#include "extender/http/tls.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <stdexcept>

namespace kext {

namespace {

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Deleter {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

std::unique_ptr<BIO, BioDeleter> open_file(const std::string& path) {
  return std::unique_ptr<BIO, BioDeleter>(BIO_new_file(path.c_str(), "r"));
}

std::string check_files(const TlsConfig& tls) {
  auto cert_bio = open_file(tls.cert_file);
  if (!cert_bio) return "--tls-cert-file " + tls.cert_file + ": cannot open file";
  std::unique_ptr<X509, X509Deleter> cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return "--tls-cert-file " + tls.cert_file + ": no PEM certificate in the file";

  auto key_bio = open_file(tls.key_file);
  if (!key_bio) return "--tls-private-key-file " + tls.key_file + ": cannot open file";
  // An empty passphrase callback result: an encrypted key fails here instead of prompting on a tty.
  auto no_passphrase = [](char*, int, int, void*) -> int { return 0; };
  std::unique_ptr<EVP_PKEY, KeyDeleter> key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) return "--tls-private-key-file " + tls.key_file + ": no unencrypted PEM private key in the file";
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return "--tls-private-key-file " + tls.key_file + ": does not match the certificate in --tls-cert-file " +
           tls.cert_file;
  }

  if (!tls.client_ca_file.empty()) {
    auto ca_bio = open_file(tls.client_ca_file);
    if (!ca_bio) return "--client-ca-file " + tls.client_ca_file + ": cannot open file";
    std::unique_ptr<X509, X509Deleter> ca(PEM_read_bio_X509(ca_bio.get(), nullptr, nullptr, nullptr));
    if (!ca) return "--client-ca-file " + tls.client_ca_file + ": no PEM certificate in the file";
  }
  return {};
}

}  // namespace

void check_tls_flags(const TlsConfig& tls) {
  if (!tls.cert_file.empty() && tls.key_file.empty()) {
    throw std::invalid_argument("--tls-cert-file needs --tls-private-key-file");
  }
  if (tls.cert_file.empty() && !tls.key_file.empty()) {
    throw std::invalid_argument("--tls-private-key-file needs --tls-cert-file");
  }
  if (!tls.client_ca_file.empty() && tls.cert_file.empty()) {
    throw std::invalid_argument("--client-ca-file needs TLS: set --tls-cert-file and --tls-private-key-file");
  }
}

std::string validate_tls_files(const TlsConfig& tls) {
  if (!tls.enabled()) return {};
  std::string error = check_files(tls);
  ERR_clear_error();  // leave no stale errors for the server's own OpenSSL calls
  return error;
}

std::unique_ptr<httplib::Server> make_http_server(const TlsConfig& tls) {
  if (!tls.enabled()) return std::make_unique<httplib::Server>();
  auto server = std::make_unique<httplib::SSLServer>(
      tls.cert_file.c_str(), tls.key_file.c_str(), tls.client_ca_file.empty() ? nullptr : tls.client_ca_file.c_str());
  // cpp-httplib 0.11 still allows TLS 1.1; Kubernetes components require 1.2 at least.
  if (server->is_valid()) SSL_CTX_set_min_proto_version(server->ssl_context(), TLS1_2_VERSION);
  return server;
}

}  // namespace kext

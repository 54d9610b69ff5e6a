#include "extender/http/tls.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <stdexcept>

#include "extender/pem.h"
#include "extender/read_file.h"

namespace kext {

namespace {

std::string check_files(const TlsConfig& tls) {
  std::string pem;
  if (!read_whole_file(tls.cert_file, pem)) return "--tls-cert-file " + tls.cert_file + ": cannot open file";
  X509Ptr cert = pem_certificate(pem);
  if (!cert) return "--tls-cert-file " + tls.cert_file + ": no PEM certificate in the file";

  if (!read_whole_file(tls.key_file, pem)) return "--tls-private-key-file " + tls.key_file + ": cannot open file";
  PrivateKeyPtr key = pem_private_key(pem);
  if (!key) return "--tls-private-key-file " + tls.key_file + ": no unencrypted PEM private key in the file";
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return "--tls-private-key-file " + tls.key_file + ": does not match the certificate in --tls-cert-file " +
           tls.cert_file;
  }

  if (!tls.client_ca_file.empty()) {
    if (!read_whole_file(tls.client_ca_file, pem)) return "--client-ca-file " + tls.client_ca_file + ": cannot open file";
    if (!pem_certificate(pem)) return "--client-ca-file " + tls.client_ca_file + ": no PEM certificate in the file";
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

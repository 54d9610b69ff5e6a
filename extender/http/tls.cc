#include "extender/http/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <stdexcept>

#include "common/pem.h"
#include "common/read_file.h"

namespace kext {

namespace {

std::string check_files(const TlsConfig& tls) {
  std::string pem;
  if (!read_whole_file(tls.cert_file, pem)) return "--tls-cert-file " + tls.cert_file + ": cannot open file";
  X509Ptr cert = pem_certificate(pem);
  if (!cert) return "--tls-cert-file " + tls.cert_file + ": no PEM certificate in the file";

  if (!read_whole_file(tls.key_file, pem))
    return "--tls-private-key-file " + tls.key_file + ": cannot open file";
  PrivateKeyPtr key = pem_private_key(pem);
  if (!key) return "--tls-private-key-file " + tls.key_file + ": no unencrypted PEM private key in the file";
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return "--tls-private-key-file " + tls.key_file + ": does not match the certificate in --tls-cert-file " +
           tls.cert_file;
  }

  if (!tls.client_ca_file.empty()) {
    if (!read_whole_file(tls.client_ca_file, pem))
      return "--client-ca-file " + tls.client_ca_file + ": cannot open file";
    if (!pem_certificate(pem))
      return "--client-ca-file " + tls.client_ca_file + ": no PEM certificate in the file";
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

SslCtxPtr make_server_tls_context(const TlsConfig& tls) {
  if (!tls.enabled()) return nullptr;
  if (std::string error = validate_tls_files(tls); !error.empty()) throw std::runtime_error(error);
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) throw std::runtime_error("TLS: cannot create an OpenSSL context");
  // Kubernetes components require TLS 1.2 at least.
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // The transport writes without blocking: a reply may go out in pieces, retried from another buffer.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), tls.cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx.get(), tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    ERR_clear_error();
    throw std::runtime_error("TLS: cannot load --tls-cert-file " + tls.cert_file +
                             " / --tls-private-key-file " + tls.key_file);
  }
  if (!tls.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx.get(), tls.client_ca_file.c_str(), nullptr) != 1) {
      ERR_clear_error();
      throw std::runtime_error("--client-ca-file " + tls.client_ca_file + ": cannot load");
    }
    // Names the acceptable CAs in the handshake, as Go's tls.Config.ClientCAs does.
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca_file.c_str())) {
      SSL_CTX_set_client_CA_list(ctx.get(), names);
    }
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  ERR_clear_error();
  return ctx;
}

}  // namespace kext

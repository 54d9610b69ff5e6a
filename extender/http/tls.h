#pragma once
// Serving over TLS, optionally requiring client certificates (mTLS). Plain HTTP when no cert is set.
#include <openssl/ssl.h>

#include <memory>
#include <string>

namespace kext {

struct TlsConfig {
  std::string cert_file;       // --tls-cert-file (PEM, may hold the chain)
  std::string key_file;        // --tls-private-key-file (PEM, unencrypted)
  std::string client_ca_file;  // --client-ca-file: only clients with a certificate signed by it get in
  bool enabled() const { return !cert_file.empty(); }
};

// Flag combinations alone (no file access); throws std::invalid_argument naming the flag.
void check_tls_flags(const TlsConfig& tls);

// Opens and parses the files so start-up fails with a message naming the flag and the file, rather
// than with cpp-httplib's silent "invalid server". Empty string when fine or TLS is off.
std::string validate_tls_files(const TlsConfig& tls);

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

// The server's TLS context (TLS 1.2 or later; with client_ca_file, a client certificate signed by it
// is required). Null when TLS is off; throws std::runtime_error naming the flag when a file is unusable.
SslCtxPtr make_server_tls_context(const TlsConfig& tls);

}  // namespace kext

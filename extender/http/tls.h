#pragma once
// Serving over TLS, optionally requiring client certificates (mTLS). Plain HTTP when no cert is set.
#include <memory>
#include <string>

namespace httplib {
class Server;
}

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

// An httplib::SSLServer when TLS is enabled (check is_valid()), else a plain httplib::Server.
std::unique_ptr<httplib::Server> make_http_server(const TlsConfig& tls);

}  // namespace kext

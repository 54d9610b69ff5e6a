#include "kube/client/api_client.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <poll.h>

#include <algorithm>

#include "common/pem.h"
#include "json/json.h"
#include "kube/client/transport_error.h"

namespace kext::kube {

namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

Bio bio_of(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
}

// A fresh store per client: SSLClient takes ownership of it.
X509_STORE* store_from_pem(const std::string& pem) {
  Bio bio = bio_of(pem);
  X509_STORE* store = X509_STORE_new();
  int n = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, cert);
    X509_free(cert);
    ++n;
  }
  if (n == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

void set_timeout(httplib::ClientImpl& c, std::chrono::milliseconds connect, std::chrono::milliseconds read) {
  c.set_connection_timeout(connect.count() / 1000, (connect.count() % 1000) * 1000);
  c.set_read_timeout(read.count() / 1000, (read.count() % 1000) * 1000);
  c.set_write_timeout(10, 0);
}

std::string status_message(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.data(), body.size());
  if (!d.HasParseError() && d.IsObject()) {
    auto m = d.FindMember("message");
    if (m != d.MemberEnd() && m->value.IsString()) return m->value.GetString();
  }
  std::string text = body.substr(0, 200);
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return text;
}

// Why OpenSSL failed the chain during a handshake (SSL_VERIFY_PEER without cpp-httplib's own check):
// the handshake runs on the requesting thread, which reads it once the request has failed.
thread_local std::string t_verify_error;

int remember_verify_error(int ok, X509_STORE_CTX* ctx) {
  if (!ok && t_verify_error.empty())
    t_verify_error = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
  return ok;
}

// Before each request: nothing left over from an earlier one on this thread.
void clear_tls_errors() {
  ERR_clear_error();
  t_verify_error.clear();
}

// OpenSSL's reason for a failed handshake: cpp-httplib's own check of the chain and the name, or the
// first error queued on this thread (later ones are the shutdown that followed) with the chain's verdict.
std::string tls_reason(httplib::ClientImpl& c, const std::string& error, const std::string& host) {
  std::string out;
  if (error == "SSLServerVerification") {
    const auto* ssl = dynamic_cast<httplib::SSLClient*>(&c);
    const long v = ssl ? ssl->get_openssl_verify_result() : X509_V_OK;
    out = v != X509_V_OK ? std::string("certificate verify failed: ") + X509_verify_cert_error_string(v)
                         : "the certificate is not valid for " + host;
  } else if (const unsigned long e = ERR_peek_error(); e != 0) {
    const char* reason = ERR_reason_error_string(e);
    char code[128];
    ERR_error_string_n(e, code, sizeof code);
    out = reason ? reason : code;
    if (!t_verify_error.empty()) out += ": " + t_verify_error;
  }
  clear_tls_errors();
  return out;
}

}  // namespace

std::string ApiResponse::describe() const {
  if (status == 0) return !detail.empty() ? detail : error.empty() ? "no response" : error;
  return "HTTP " + std::to_string(status) + (body.empty() ? "" : ": " + status_message(body));
}

bool ApiResponse::never_sent() const {
  // The names of httplib.h to_string(Error) for a request that never left this side.
  return status == 0 && (error == "Connection" || error == "ConnectionTimeout" || error == "SSLConnection" ||
                         error == "SSLServerVerification" || error == "BindIPAddress");
}

void StreamCanceller::cancel() {
  cancelled_.store(true);
  std::lock_guard lock(mu_);
  if (active_) active_->stop();
}

ApiClient::ApiClient(ApiConfig cfg, Timeouts timeouts) : cfg_(std::move(cfg)), timeouts_(timeouts) {
  if (cfg_.scheme == "https") {
    if (!cfg_.ca_pem.empty()) {
      X509_STORE* s = store_from_pem(cfg_.ca_pem);
      if (!s) throw ConfigError("certificate authority: no PEM certificate found");
      X509_STORE_free(s);
    }
    if (!cfg_.client_cert_pem.empty()) {
      if (!pem_certificate(cfg_.client_cert_pem))
        throw ConfigError("client certificate: not a PEM certificate");
      if (!pem_private_key(cfg_.client_key_pem)) throw ConfigError("client key: not a PEM private key");
    }
  }
}

ApiClient::~ApiClient() = default;

std::unique_ptr<httplib::ClientImpl> ApiClient::make_client(std::chrono::milliseconds read_timeout) const {
  std::unique_ptr<httplib::ClientImpl> c;
  if (cfg_.scheme == "https") {
    std::unique_ptr<httplib::SSLClient> ssl;
    if (!cfg_.client_cert_pem.empty()) {
      // SSLClient up-references the certificate and key; ours are freed on scope exit.
      X509Ptr cert = pem_certificate(cfg_.client_cert_pem);
      PrivateKeyPtr key = pem_private_key(cfg_.client_key_pem);
      ssl = std::make_unique<httplib::SSLClient>(cfg_.host, cfg_.port, cert.get(), key.get());
    } else {
      ssl = std::make_unique<httplib::SSLClient>(cfg_.host, cfg_.port);
    }
    if (!cfg_.ca_pem.empty()) {
      ssl->set_ca_cert_store(store_from_pem(cfg_.ca_pem));
      // Given no CA file or directory, httplib adds OpenSSL's default verify paths (the system bundle)
      // to this store on the first connection: every public CA would be trusted besides the
      // kubeconfig's, and every client would parse the whole bundle (each watch and list page makes
      // one). A "directory" that cannot hold certificates stops that, so the kubeconfig's CA is the
      // only root, as in client-go (k8s.io/client-go/transport/transport.go: RootCAs is built from
      // CAData alone when a CA is given).
      ssl->set_ca_cert_path("", "/dev/null");
    }
    if (!cfg_.verify_hostname && !cfg_.insecure_skip_tls_verify) {
      // httplib verifies the chain and the name together; OpenSSL alone checks the chain during the
      // handshake, against the store set above (PARTIAL_CHAIN: a pinned leaf or intermediate is an anchor).
      ssl->enable_server_certificate_verification(false);
      if (X509_STORE* store = SSL_CTX_get_cert_store(ssl->ssl_context())) {
        X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
      }
      SSL_CTX_set_verify(ssl->ssl_context(), SSL_VERIFY_PEER, remember_verify_error);
    } else {
      ssl->enable_server_certificate_verification(!cfg_.insecure_skip_tls_verify);
    }
    c = std::move(ssl);
  } else {
    c = std::make_unique<httplib::ClientImpl>(cfg_.host, cfg_.port);
  }
  set_timeout(*c, timeouts_.connect, read_timeout);
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);
  return c;
}

std::string ApiClient::bearer_token() {
  if (cfg_.token_file.empty()) return cfg_.token;
  std::lock_guard lock(token_mu_);
  // Kubelet rotates projected tokens well before expiry; a minute of staleness is safe and keeps
  // file reads off the bind path.
  auto now = std::chrono::steady_clock::now();
  if (token_.empty() || now - token_read_ > std::chrono::seconds(60)) {
    try {
      std::string t = read_config_file(cfg_.token_file, "token file");
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
      token_ = std::move(t);
      token_read_ = now;
    } catch (const ConfigError&) {
      // Keep the last good token; the API's 401 will say the rest.
    }
  }
  return token_;
}

namespace {
// An idle keep-alive connection has nothing to read, so anything readable (a TLS close_notify, end of
// stream, a reset) means the server has closed it. httplib counts a connection with a pending
// close_notify as alive and writes the next request into it, which fails ("Write" or "Read"); a
// request that changes something (a Binding) is not retried (as in client-go,
// k8s.io/client-go/rest/request.go retries only GETs), so such connections must not be reused.
bool closed_by_server(const httplib::ClientImpl& c) {
  const auto sock = c.socket();
  if (sock == INVALID_SOCKET) return false;  // not connected yet: it connects on its first request
  pollfd p{sock, POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;
}
}  // namespace

std::unique_ptr<httplib::ClientImpl> ApiClient::take_pooled(bool* reused) {
  std::vector<std::unique_ptr<httplib::ClientImpl>> closed;  // shut down after the lock is released
  {
    std::lock_guard lock(pool_mu_);
    while (!pool_.empty()) {
      auto c = std::move(pool_.back());
      pool_.pop_back();
      if (!closed_by_server(*c)) {
        *reused = true;
        return c;
      }
      closed.push_back(std::move(c));
    }
  }
  *reused = false;
  return make_client(timeouts_.request);
}

void ApiClient::give_back(std::unique_ptr<httplib::ClientImpl> c) {
  std::lock_guard lock(pool_mu_);
  if (pool_.size() < 8) pool_.push_back(std::move(c));
}

namespace {
httplib::Headers headers_with(const std::string& token) {
  httplib::Headers h{{"Accept", "application/json"}, {"User-Agent", "kube-extender/" KEXT_VERSION}};
  if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
  return h;
}

ApiResponse from_result(const httplib::Result& r) {
  ApiResponse out;
  if (!r) {
    out.error = httplib::to_string(r.error());
    return out;
  }
  out.status = r->status;
  out.body = r->body;
  return out;
}
}  // namespace

void ApiClient::explain_failure(const httplib::Result& r, httplib::ClientImpl& c,
                                std::chrono::milliseconds timeout, std::chrono::steady_clock::duration took,
                                ApiResponse& out) const {
  TransportFacts facts;
  facts.error = out.error;
  facts.timeout = timeout;
  if (r.error() == httplib::Error::Connection) {
    // cpp-httplib gives one name to a refused, unreachable or unresolvable server: a connect of our own
    // tells them apart (a second at most; the request has failed already).
    facts.timeout = std::min(timeouts_.connect, std::chrono::milliseconds(1000));
    facts.connect_errno = probe_connect(cfg_.host, cfg_.port, facts.timeout, &facts.resolve_error);
  } else if (r.error() == httplib::Error::ConnectionTimeout) {
    facts.timeout = timeouts_.connect;
  } else if (out.error.starts_with("SSL")) {
    facts.tls_reason = tls_reason(c, out.error, cfg_.host);
  } else if (r.error() == httplib::Error::Read) {
    facts.timed_out = took + std::chrono::milliseconds(100) >= timeout;
  }
  const TransportFailure f = describe_transport_failure(facts, cfg_.server_url());
  out.cause = f.label;
  out.detail = f.words;
}

void ApiClient::report(const char* method, const std::string& path, const ApiResponse& r, Expected expected) {
  if (r.ok() || expected.contains(r.status) || r.cause == "cancelled") return;
  errors_.report(ApiFailure{method, path, r.status_label(), r.describe()});
}

// A pooled keep-alive connection may have been closed by the server while it sat idle (an API server
// closes idle connections, and all of them when it restarts); cpp-httplib then fails the request with
// Error::Write (Bind.ABindAfterTheServerClosedTheIdleConnectionSucceeds), or with Error::Read when the
// close crossed the request on the wire (ApiClient.AGetTheServerClosedItsConnectionOnGoesAgain). As Go's
// net/http Transport does (transport.go, persistConn.shouldRetryRequest): a request whose write failed
// never reached the server whole and goes again, once, on a new connection; a GET also goes again when
// the connection closed without an answer, since reading twice changes nothing. Any other failure may
// have reached the server (a bind may have happened) and is returned.
ApiResponse ApiClient::send_pooled(const std::function<httplib::Result(httplib::ClientImpl&)>& send,
                                   std::chrono::milliseconds read_timeout, Replay replay) {
  bool reused = false;
  auto c = take_pooled(&reused);
  set_timeout(*c, timeouts_.connect, read_timeout);
  clear_tls_errors();
  auto started = std::chrono::steady_clock::now();
  auto r = send(*c);
  const auto closed_unanswered = [&] {
    // A read that failed well before its timeout: the connection closed, it did not time out.
    return r.error() == httplib::Error::Read &&
           std::chrono::steady_clock::now() - started + std::chrono::milliseconds(100) < read_timeout;
  };
  if (!r && reused &&
      (r.error() == httplib::Error::Write || (replay == Replay::kIfNoResponse && closed_unanswered()))) {
    c = make_client(read_timeout);
    clear_tls_errors();
    started = std::chrono::steady_clock::now();
    r = send(*c);
  }
  ApiResponse out = from_result(r);
  if (out.status != 0) {
    give_back(std::move(c));
  } else {
    explain_failure(r, *c, read_timeout, std::chrono::steady_clock::now() - started, out);
  }
  return out;
}

ApiResponse ApiClient::get(const std::string& path, Expected expected) {
  ApiResponse out = send_pooled(
      [&](httplib::ClientImpl& c) { return c.Get(full_path(path), headers_with(bearer_token())); },
      timeouts_.request, Replay::kIfNoResponse);
  report("GET", path, out, expected);
  return out;
}

ApiResponse ApiClient::post(const std::string& path, std::string_view json_body,
                            std::chrono::milliseconds read_timeout, Expected expected) {
  ApiResponse out = send_pooled(
      [&](httplib::ClientImpl& c) {
        return c.Post(full_path(path), headers_with(bearer_token()), json_body.data(), json_body.size(),
                      "application/json");
      },
      read_timeout, Replay::kIfUnsent);
  report("POST", path, out, expected);
  return out;
}

ApiResponse ApiClient::put(const std::string& path, const std::string& json_body, Expected expected) {
  ApiResponse out = send_pooled(
      [&](httplib::ClientImpl& c) {
        return c.Put(full_path(path), headers_with(bearer_token()), json_body, "application/json");
      },
      timeouts_.request, Replay::kIfUnsent);
  report("PUT", path, out, expected);
  return out;
}

ApiResponse ApiClient::patch(const std::string& path, const std::string& json_body, Expected expected) {
  ApiResponse out = send_pooled(
      [&](httplib::ClientImpl& c) {
        return c.Patch(full_path(path), headers_with(bearer_token()), json_body,
                       "application/merge-patch+json");
      },
      timeouts_.request, Replay::kIfUnsent);
  report("PATCH", path, out, expected);
  return out;
}

ApiResponse ApiClient::stream(const std::string& path, std::chrono::milliseconds idle_timeout,
                              const std::function<bool(std::string_view)>& on_data,
                              StreamCanceller* canceller, Expected expected) {
  auto c = make_client(idle_timeout);
  c->set_keep_alive(false);
  if (canceller) {
    std::lock_guard lock(canceller->mu_);
    if (canceller->cancelled()) return ApiResponse{0, "", "cancelled", "cancelled", "cancelled"};
    canceller->active_ = c.get();
  }
  ApiResponse out;
  clear_tls_errors();
  const auto started = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_data = started;
  auto r = c->Get(
      full_path(path), headers_with(bearer_token()),
      [&](const httplib::Response& res) {
        out.status = res.status;
        return true;
      },
      [&](const char* data, size_t n) {
        last_data = std::chrono::steady_clock::now();
        if (out.status < 200 || out.status >= 300) {
          if (out.body.size() < 65536) out.body.append(data, n);
          return true;
        }
        return on_data(std::string_view(data, n));
      });
  if (canceller) {
    std::lock_guard lock(canceller->mu_);
    canceller->active_ = nullptr;
  }
  if (!r) {
    // The stream may have broken after the status line: the status stays, the error is reported with it.
    out.error = httplib::to_string(r.error());
    explain_failure(r, *c, idle_timeout, std::chrono::steady_clock::now() - last_data, out);
    if (canceller && canceller->cancelled()) out.cause = "cancelled";
  }
  if (out.status == 0 || !out.ok()) report("GET", path, out, expected);
  return out;
}

bool resource_absent(ApiClient& api, std::string_view list_path) {
  return absent_status(api.get(std::string(list_path) + "?limit=1", Expected{404, 403}).status);
}

std::string server_git_version(ApiClient& api) {
  // Its failure is the caller's to report: an error at start-up, or a warning with the default minor.
  const ApiResponse r = api.get("/version", Expected::any());
  if (r.status == 0) throw ConfigError("GET /version: " + r.describe());
  const std::string where = "GET /version from " + api.config().server_url();
  if (!r.ok()) throw ConfigError(where + ": " + r.describe());
  rapidjson::Document d;
  d.Parse(r.body.data(), r.body.size());
  const json::Value* git =
      !d.HasParseError() && d.IsObject() ? json::find_non_null(d, "gitVersion") : nullptr;
  if (git == nullptr || !git->IsString() || git->GetStringLength() == 0)
    throw ConfigError(where + ": no gitVersion in the reply");
  return std::string(json::view(*git));
}

}  // namespace kext::kube

#pragma once
// HTTP(S) to the Kubernetes API with the credentials of an ApiConfig: short requests on pooled
// keep-alive connections (lists, binds) and long streaming GETs (watches) that another thread can cancel.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client/api_config.h"

namespace httplib {
class ClientImpl;
class Result;
}  // namespace httplib

namespace kext::kube {

struct ApiResponse {
  int status = 0;  // 0: no HTTP response; see error
  std::string body;
  std::string error;  // transport error ("Connection refused", "Read timeout")
  bool ok() const { return status >= 200 && status < 300; }
  // No HTTP status, and the request never reached the server (no connection, a failed TLS handshake):
  // it cannot have been acted on, so sending it again is safe.
  bool never_sent() const;
  // "HTTP 403: <message from the Status body>" or the transport error.
  std::string describe() const;
};

// A response without an HTTP status (ApiResponse::error, one of cpp-httplib's Error names) in words, with
// the server it was for: "connection refused or unreachable: https://10.0.0.1:6443".
std::string describe_transport_error(const std::string& error, const std::string& server_url);

// Ends a stream() in progress from another thread (shutdown).
class StreamCanceller {
 public:
  void cancel();
  bool cancelled() const { return cancelled_.load(); }
  void reset() { cancelled_.store(false); }

 private:
  friend class ApiClient;
  std::mutex mu_;
  httplib::ClientImpl* active_ = nullptr;
  std::atomic<bool> cancelled_{false};
};

class ApiClient {
 public:
  struct Timeouts {
    std::chrono::milliseconds connect{5000};
    std::chrono::milliseconds request{60000};
  };

  // Parses the PEM material once: bad certificates or keys are start-up errors (ConfigError).
  explicit ApiClient(ApiConfig cfg, Timeouts timeouts);
  explicit ApiClient(ApiConfig cfg) : ApiClient(std::move(cfg), Timeouts{}) {}
  ~ApiClient();

  ApiResponse get(const std::string& path);
  ApiResponse post(const std::string& path, std::string_view json_body) {
    return post(path, json_body, timeouts_.request);
  }
  // With its own time limit for the reply (the connect timeout stays the client's).
  ApiResponse post(const std::string& path, std::string_view json_body,
                   std::chrono::milliseconds read_timeout);
  ApiResponse put(const std::string& path, const std::string& json_body);

  // A GET whose body is handed to on_data piece by piece as it arrives (a watch). on_status sees the
  // HTTP status first; for a non-2xx status the body is collected into the response instead. Silence
  // longer than idle_timeout ends the stream with an error. on_data returning false ends it.
  ApiResponse stream(const std::string& path, std::chrono::milliseconds idle_timeout,
                     const std::function<bool(std::string_view)>& on_data, StreamCanceller* canceller);

  const ApiConfig& config() const { return cfg_; }

 private:
  std::unique_ptr<httplib::ClientImpl> make_client(std::chrono::milliseconds read_timeout) const;
  // reused: whether it comes from the pool (the server may have closed it since).
  std::unique_ptr<httplib::ClientImpl> take_pooled(bool* reused);
  ApiResponse send_pooled(const std::function<httplib::Result(httplib::ClientImpl&)>& send,
                          std::chrono::milliseconds read_timeout);
  void give_back(std::unique_ptr<httplib::ClientImpl> c);
  std::string bearer_token();
  std::string full_path(const std::string& path) const { return cfg_.base_path + path; }

  ApiConfig cfg_;
  Timeouts timeouts_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<httplib::ClientImpl>> pool_;
  std::mutex token_mu_;
  std::string token_;
  std::chrono::steady_clock::time_point token_read_{};
};

// Whether a list's answer says an optional resource (a CRD) is absent from the cluster: not served
// (404), or not granted to this client's role (403). Any other answer, an error or none, is not
// absence: the reflector that lists it retries.
inline bool absent_status(int status) { return status == 404 || status == 403; }
// absent_status of a one-item list of `list_path`: the probe before watching an optional resource.
bool resource_absent(ApiClient& api, std::string_view list_path);

// GET /version (k8s.io/apimachinery pkg/version/types.go Info, which kube-apiserver serves to every
// client through the system:public-info-viewer role): its gitVersion, "v1.36.3". Throws ConfigError
// naming the server when there is no answer, an error status, or no gitVersion in the reply.
std::string server_git_version(ApiClient& api);

}  // namespace kext::kube

#pragma once
// HTTP(S) to the Kubernetes API with the credentials of an ApiConfig: short requests on pooled
// keep-alive connections (lists, binds) and long streaming GETs (watches) that another thread can cancel.
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client/api_config.h"
#include "kube/client/api_errors.h"

namespace httplib {
class ClientImpl;
class Result;
}  // namespace httplib

namespace kext::kube {

struct ApiResponse {
  int status = 0;  // 0: no HTTP response; see error
  std::string body;
  std::string error;  // cpp-httplib's Error name for a transport failure ("Connection", "Read")
  // For a transport failure: transport_error.h's label ("refused", "tls", ...) and words ("cannot connect
  // to https://10.0.0.1:6443: connection refused").
  std::string cause, detail;
  bool ok() const { return status >= 200 && status < 300; }
  // No HTTP status, and the request never reached the server (no connection, a failed TLS handshake):
  // it cannot have been acted on, so sending it again is safe.
  bool never_sent() const;
  // "HTTP 403: <message from the Status body>" or the transport failure in words.
  std::string describe() const;
  // kube_extender_api_errors_total's status label: "404", or the transport cause.
  std::string status_label() const { return status != 0 ? std::to_string(status) : cause; }
};

// HTTP statuses a caller takes as an answer rather than a failure (a Lease's 404 before any replica
// created it, a watch's 410 Gone, a conflict with another replica's write): not reported to
// ApiClient::errors(). any(): the caller reports every failure itself (a start-up check that throws).
class Expected {
 public:
  constexpr Expected() = default;
  constexpr Expected(std::initializer_list<int> statuses) {
    size_t i = 0;
    for (int s : statuses) {
      if (i < statuses_.size()) statuses_[i++] = s;
    }
  }
  static constexpr Expected any() {
    Expected e;
    e.any_ = true;
    return e;
  }
  constexpr bool contains(int status) const {
    if (any_) return true;
    for (int s : statuses_) {
      if (s != 0 && s == status) return true;
    }
    return false;
  }

 private:
  std::array<int, 4> statuses_{};
  bool any_ = false;
};

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

  // Each request's failure (no answer, or a status that is neither 2xx nor `expected`) goes to errors().
  ApiResponse get(const std::string& path, Expected expected = {});
  ApiResponse post(const std::string& path, std::string_view json_body, Expected expected = {}) {
    return post(path, json_body, timeouts_.request, expected);
  }
  // With its own time limit for the reply (the connect timeout stays the client's).
  ApiResponse post(const std::string& path, std::string_view json_body,
                   std::chrono::milliseconds read_timeout, Expected expected = {});
  ApiResponse put(const std::string& path, const std::string& json_body, Expected expected = {});
  // A JSON merge patch (application/merge-patch+json, RFC 7386), as client-go's MergePatchType sends.
  ApiResponse patch(const std::string& path, const std::string& json_body, Expected expected = {});

  // A GET whose body is handed to on_data piece by piece as it arrives (a watch). on_status sees the
  // HTTP status first; for a non-2xx status the body is collected into the response instead. Silence
  // longer than idle_timeout ends the stream with an error. on_data returning false ends it. Only a
  // failure before the body is reported: how a stream that began ends is for the caller to judge.
  ApiResponse stream(const std::string& path, std::chrono::milliseconds idle_timeout,
                     const std::function<bool(std::string_view)>& on_data, StreamCanceller* canceller,
                     Expected expected = {});

  const ApiConfig& config() const { return cfg_; }
  // Where every failed request is counted and logged (kube_extender_api_errors_total).
  ApiErrorReporter& errors() { return errors_; }

 private:
  std::unique_ptr<httplib::ClientImpl> make_client(std::chrono::milliseconds read_timeout) const;
  // reused: whether it comes from the pool (the server may have closed it since).
  std::unique_ptr<httplib::ClientImpl> take_pooled(bool* reused);
  // Which failures on a reused connection send the request again on a new one.
  enum class Replay {
    kIfUnsent,      // only a request that was not written whole (it cannot have been acted on)
    kIfNoResponse,  // also one the server closed the connection on without answering (a GET)
  };
  ApiResponse send_pooled(const std::function<httplib::Result(httplib::ClientImpl&)>& send,
                          std::chrono::milliseconds read_timeout, Replay replay);
  // A result without a response in words (transport_error.h), from what c and this thread know of it.
  void explain_failure(const httplib::Result& r, httplib::ClientImpl& c, std::chrono::milliseconds timeout,
                       std::chrono::steady_clock::duration took, ApiResponse& out) const;
  void report(const char* method, const std::string& path, const ApiResponse& r, Expected expected);
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
  ApiErrorReporter errors_;
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

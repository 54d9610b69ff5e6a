#pragma once
// Every failed call to the Kubernetes API, counted by resource and status and logged with its cause: the
// method, the path, the status and the server's message (the Status body's `message`), as client-go
// logs each failed attempt (k8s.io/client-go/tools/leaderelection/leaderelection.go tryAcquireOrRenew:
// "error retrieving resource lock", "Failed to update lock"; tools/cache/reflector.go: "Failed to watch").
// A cause that repeats (a replica retrying its Lease every 2 s, a watch reconnecting) is logged at most
// once a minute, the next line saying how many more there were. ApiClient reports every request it
// sends; callers report what only they see (a watch's ERROR event, a stream the server broke).
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext::kube {

struct ApiFailure {
  std::string method;   // "GET", "POST", "PUT"
  std::string path;     // as sent, the query included ("?watch=1" makes it a watch)
  std::string status;   // "404", or a transport label (transport_error.h): "refused", "tls", ...
  std::string message;  // "HTTP 404: namespaces \"kube-extender\" not found", or the transport cause
};

// The resource a path names, as kube_extender_api_errors_total's `resource` label: "leases" for
// /apis/coordination.k8s.io/v1/namespaces/NS/leases/NAME, "pods/binding" for a pod's binding
// subresource (as RBAC names it), "namespaces" for /api/v1/namespaces/NS; a path outside /api and /apis
// is its own ("/version").
std::string api_resource(std::string_view path);

class ApiErrorReporter {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    std::function<Clock::time_point()> now;     // Clock::now when empty
    std::function<void(std::string_view)> log;  // log_line (stderr) when empty
    std::chrono::seconds interval{60};          // one line per cause at most this often
  };
  struct Count {
    std::string resource, status;
    uint64_t count = 0;
    bool operator==(const Count&) const = default;
  };

  ApiErrorReporter() : ApiErrorReporter(Options{}) {}
  explicit ApiErrorReporter(Options options) { configure(std::move(options)); }

  // A clock and a log of the tests' own.
  void configure(Options options);
  // Off: nothing counted or logged (a client that talks to another replica, not to the API server).
  void set_enabled(bool enabled);

  void report(const ApiFailure& failure);

  // By resource, then status.
  std::vector<Count> counts() const;
  uint64_t count(std::string_view resource, std::string_view status) const;

 private:
  struct Logged {
    Clock::time_point at;
    uint64_t since = 0;  // failures of this cause not logged since
  };

  mutable std::mutex mu_;
  Options options_;
  bool enabled_ = true;
  std::map<std::pair<std::string, std::string>, uint64_t, std::less<>> counts_;
  std::map<std::string, Logged, std::less<>> logged_;  // by method, resource and status
};

}  // namespace kext::kube

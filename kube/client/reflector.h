#pragma once
// List then watch one resource the way client-go's reflector does: paginated list, watch from the
// list's resourceVersion with bookmarks, relist on 410 Gone, reconnect with capped exponential backoff
// and jitter after a dropped or silent stream, and re-watch when the server's timeout ends a stream.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "kube/client/api_client.h"
#include "kube/client/event_splitter.h"
#include "kube/client/resource_sink.h"

namespace kext::kube {

struct ReflectorOptions {
  std::string resource;  // "pods", for logs and metrics
  std::string path;      // "/api/v1/pods"
  size_t page_size = 500;
  std::chrono::milliseconds backoff_initial{800};
  std::chrono::milliseconds backoff_max{30000};
  // A stream silent this long is dead (the API sends bookmarks about every minute).
  std::chrono::milliseconds idle_timeout{150000};
  // Each watch asks the server to end it after a random time in [min, 2·min), as client-go does, so
  // connections rebalance across API servers.
  std::chrono::seconds watch_timeout_min{300};
};

struct ReflectorStatus {
  bool synced = false;
  std::string resource_version;
  uint64_t lists = 0;
  uint64_t gone = 0;  // 410s that forced a relist
  uint64_t watches = 0;
  uint64_t failures = 0;  // dropped, silent or refused streams and failed lists
  uint64_t events = 0;
  uint64_t bookmarks = 0;
  uint64_t bad_objects = 0;  // objects that did not decode (skipped)
  std::chrono::steady_clock::time_point last_activity{};
  std::string last_error;
};

class Reflector {
 public:
  Reflector(ApiClient& api, ReflectorOptions opts, ResourceSink& sink);
  ~Reflector();

  void start();
  void stop();
  ReflectorStatus status() const;
  const std::string& resource() const { return opts_.resource; }

 private:
  enum class WatchEnd { Expired, Gone, Failed, Stopped };

  // One watch stream's progress (reflector.go watchHandler's state).
  struct WatchStream {
    EventSplitter splitter;
    bool gone = false;         // a 410 ERROR event: relist
    std::string failure;       // why the stream is no good, when it is not
    std::string error_status;  // an ERROR event's code ("500"): the server ended the stream
    uint64_t events = 0, bookmarks = 0, bad = 0;
    std::chrono::steady_clock::time_point started, last_data;
  };
  // Why a watch failed, and as kube_extender_api_errors_total's status ("" when only this side knows:
  // an event that does not parse).
  struct WatchFailure {
    std::string why;
    std::string status;
    bool reported = false;  // ApiClient has counted and logged it (no stream began)
  };

  void run();
  bool list();
  WatchEnd watch();
  // The watch request's path: from rv_, with bookmarks and a spread server-side timeout.
  std::string watch_path();
  // One event of the stream (reflector.go watchHandler's switch on event.Type): to the sink, its
  // resourceVersion kept.
  void handle_event(std::string_view text, WatchStream& s);
  // Why the stream that ended with `resp` failed; why is "" when the server's timeout ended it.
  WatchFailure watch_failure(const ApiResponse& resp, const WatchStream& s) const;
  // Returns false when stopped while waiting.
  bool backoff();
  // Logs what went wrong and keeps it for status(); record_error only keeps it (errors() has logged it).
  void note_error(const std::string& what);
  void record_error(const std::string& what);
  void touch();

  ApiClient& api_;
  ReflectorOptions opts_;
  ResourceSink& sink_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  StreamCanceller canceller_;
  std::mt19937_64 rng_;
  std::chrono::milliseconds next_backoff_;

  mutable std::mutex status_mu_;
  ReflectorStatus status_;
  std::string rv_;  // only the reflector thread touches it
};

}  // namespace kext::kube

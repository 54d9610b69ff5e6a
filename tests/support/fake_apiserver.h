#pragma once
// An in-repo Kubernetes API server for tests and benchmarks: list (paginated, consistent snapshots,
// expiring continue tokens) and watch (chunked stream, one JSON event per line, bookmarks, 410 for a
// compacted resourceVersion) of every resource the extender watches (kube::watched_resources(): nodes,
// pods, poddisruptionbudgets, namespaces, services, ...), pod bindings, over TLS with a
// client certificate; and faults to inject.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace httplib {
class Server;
class DataSink;
}  // namespace httplib

namespace kext::testing {

class FakeApiServer {
 public:
  struct Options {
    bool tls = true;
    bool require_client_cert = true;  // client.crt from tests/fixtures/certs
    std::string token;                // when set, requests need "Authorization: Bearer <token>"
    // A watch holds a thread until an event, its deadline or a fault: one the client abandoned (idle
    // timeout, reconnect) too, since the socket's close goes unseen while nothing is written. Eight
    // watched resources, most of them silent in tests, abandon and reopen often with the tests' short
    // idle timeout.
    size_t threads = 256;
  };

  FakeApiServer();
  explicit FakeApiServer(Options o);
  ~FakeApiServer();

  int port() const { return port_; }
  std::string url() const;
  // A kubeconfig for this server with the test certificates (as files, or inline as *-data).
  std::string kubeconfig(bool inline_data = false) const;

  // Objects. resource: one of kube::watched_resources()' names ("nodes", "pods", "poddisruptionbudgets",
  // "namespaces", "services", ...); key: "namespace/name" or "name".
  void put(const std::string& resource, const std::string& json);
  void remove(const std::string& resource, const std::string& key);
  std::map<std::string, std::string> objects(const std::string& resource) const;
  std::optional<std::string> object(const std::string& resource, const std::string& key) const;
  // Read-modify-write in one step, as an update carrying the object's resourceVersion is: f gets the stored
  // object and returns its new version (nullopt: no change). f runs under the server's lock and must not
  // call the server. False if there is no such object.
  bool update(const std::string& resource, const std::string& key,
              const std::function<std::optional<std::string>(const std::string&)>& f);
  uint64_t resource_version() const;

  // Faults.
  void compact();                      // every resourceVersion up to now answers 410 Gone
  void restart();                      // open streams break; a new resourceVersion history begins
  void drop_streams_mid_event();       // each open stream sends half of its next event, then drops
  void hang_streams();                 // open streams go silent, connections left open
  void expire_streams();               // open streams send a 410 ERROR event and end (as after compaction)
  void fail_requests(int count, int status);  // the next list/watch requests answer this status
  // List and watch of `resource` answer 403 Forbidden (RBAC without it) until forbidden again with false.
  void forbid(const std::string& resource, bool forbidden = true);
  void set_list_delay(std::chrono::milliseconds d);
  void set_gone_as_http_status(bool b);  // 410 as an HTTP status instead of an ERROR event
  void expire_next_watch();            // the next watch gets 410 whatever its resourceVersion
  void bookmark();                     // a BOOKMARK on every open stream

  // Every request received, in order: (method, path without the query).
  std::vector<std::pair<std::string, std::string>> requests() const;

  int lists_served() const;
  int watches_served() const;
  int watches_served(const std::string& resource) const;  // watch requests of this resource

  struct Binding {
    std::string namespace_, name, node;
  };
  std::vector<Binding> bindings() const;
  void fail_binds(int status, std::string message);  // 0: binds succeed again
  // Whether a bind sets spec.nodeName on the pod (a MODIFIED event), as the real API does.
  void set_bind_updates_pod(bool b);

  // coordination.k8s.io/v1 Leases (GET, POST, PUT with resourceVersion: a stale one answers 409).
  // key: "namespace/name". The holder is "" when there is no such Lease or nobody holds it.
  std::string lease_holder(const std::string& key) const;
  std::string lease(const std::string& key) const;  // the object's JSON, "" when absent
  // Lease requests answer this status (0: served again), as for a replica cut off from the API.
  void fail_leases(int status);

 private:
  struct Event {
    std::string resource;
    std::string text;  // {"type":…,"object":…}
    uint64_t rv;
  };
  struct Stream;
  struct ListSnapshot {
    uint64_t rv;
    uint64_t epoch;
    std::vector<std::string> items;
  };

  void install_routes();
  void serve_list(const std::string& resource, const std::string& limit, const std::string& cont, std::string* body,
                  int* status);
  bool pump(const std::shared_ptr<Stream>& st, httplib::DataSink& sink);
  void record_locked(const std::string& resource, const char* type, const std::string& object_json, uint64_t rv);
  std::string with_rv(const std::string& json, uint64_t rv) const;

  Options opts_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  uint64_t rv_ = 1000;
  uint64_t oldest_valid_rv_ = 1000;
  uint64_t epoch_ = 0;
  std::map<std::string, std::map<std::string, std::string>> objects_;
  std::vector<Event> history_;
  std::map<uint64_t, ListSnapshot> snapshots_;
  uint64_t next_snapshot_ = 1;
  uint64_t next_stream_ = 1;
  uint64_t hang_upto_ = 0;
  uint64_t drop_upto_ = 0;
  uint64_t expire_upto_ = 0;
  uint64_t bookmark_gen_ = 0;
  int fail_count_ = 0;
  int fail_status_ = 500;
  std::set<std::string> forbidden_;
  bool gone_as_http_ = false;
  bool expire_next_watch_ = false;
  std::chrono::milliseconds list_delay_{0};
  int lists_ = 0;
  int watches_ = 0;
  std::map<std::string, int> watches_by_resource_;
  std::vector<Binding> bindings_;
  int bind_fail_status_ = 0;
  std::string bind_fail_message_;
  bool bind_updates_pod_ = true;
  std::map<std::string, std::string> leases_;
  uint64_t lease_rv_ = 1;
  int lease_fail_status_ = 0;
  mutable std::mutex requests_mu_;
  std::vector<std::pair<std::string, std::string>> requests_;
};

}  // namespace kext::testing

#pragma once
// The in-repo Kubernetes API server: extender-sim --extender serves its simulated cluster with it to a
// running kube-extender (`kube-extender --api-server http://127.0.0.1:PORT`), and the tests and
// benchmarks run the extender's client against it (tests/support/fake_apiserver.h adds the test
// certificates and a kubeconfig). Plain HTTP, or HTTPS with an optional client certificate and bearer
// token.
//
// It serves what the extender's reflectors (kube/client/reflector.cc) and check_api_access ask for:
// GET of each path kube::watched_resources() lists (/api/v1/nodes, /api/v1/pods,
// /apis/policy/v1/poddisruptionbudgets, /api/v1/namespaces, /api/v1/services, ...) as a list (pages of
// `limit` items from one consistent snapshot, with an expiring `continue` token, as
// k8s.io/apiserver/pkg/storage/etcd3/store.go GetList) or, with watch=1, as a watch from
// `resourceVersion`: one JSON event per line ({"type":"ADDED|MODIFIED|DELETED","object":...}; with
// allowWatchBookmarks, a BOOKMARK after Options::bookmark_every without any, as kube-apiserver's watch
// cache sends), the stream ending at `timeoutSeconds`. Every change has the next resourceVersion (one
// counter for all kinds, as etcd's revision) and the history is kept until compact(), so a watch from
// any version the server gave out resumes exactly; one from before a compaction gets 410 Gone.
//
// And the writes an extender makes: POST /api/v1/namespaces/NS/pods/NAME/binding (its bindVerb,
// extender/verbs/bind.cc), which sets the pod's spec.nodeName as kube-apiserver's BindingREST does
// (pkg/registry/core/pod/storage/storage.go assignPod: 404 for no such pod, 409 Conflict for a pod
// already assigned), answered 201 with a Success Status; and coordination.k8s.io/v1 Leases (GET, POST,
// PUT with optimistic concurrency) for replicas that elect the one that binds, and what --leader-elect
// checks at start-up: GET /api/v1/namespaces/NAME and SelfSubjectAccessReviews (allowed unless a test
// forbids the verb). GET /version answers Options::git_version, as kube-apiserver's version.Info.
//
// The faults a test injects (compaction, restarts, broken and silent streams, failing requests) act on
// the same store and streams.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace httplib {
class Server;
class DataSink;
struct Request;
struct Response;
}  // namespace httplib

namespace kext::kube {

class ApiServer {
 public:
  // The resources the simulation serves objects of, as their paths name them.
  static constexpr std::string_view kNodes = "nodes";
  static constexpr std::string_view kPods = "pods";
  static constexpr std::string_view kPdbs = "poddisruptionbudgets";

  struct Options {
    std::string host = "127.0.0.1";
    int port = 0;  // 0: any free port
    // HTTPS when cert_file is set; with client_ca_file, a client certificate signed by it is required.
    std::string cert_file = {}, key_file = {}, client_ca_file = {};
    std::string token = {};  // when set, requests need "Authorization: Bearer <token>"
    // Each open watch holds a worker until an event, its deadline or a write that finds the
    // connection closed; lists, leases and reconnections need the rest.
    size_t threads = 48;
    // Requests one connection may carry. One: a worker waiting on an idle keep-alive connection would
    // hold up stop() by the keep-alive timeout.
    size_t keep_alive_requests = 1;
    uint64_t first_resource_version = 1;
    // put() of an object equal to the stored one: no event, as kube-apiserver skips a no-op update
    // (k8s.io/apiserver/pkg/storage/etcd3/store.go GuaranteedUpdate). False: a MODIFIED event anyway.
    bool skip_unchanged_puts = true;
    // put() of a pod a Binding placed, without spec.nodeName, is refused: kube-apiserver forbids
    // changing it (pkg/apis/core/validation ValidatePodSpecUpdate).
    bool keep_bound_node_name = true;
    // How long a watch that allows bookmarks may go without any event before it gets one.
    std::chrono::seconds bookmark_every{60};
    // GET /version's gitVersion: the Kubernetes release this server says it is (kube-extender and
    // extender-sim read it to choose the kube-scheduler minor they reproduce).
    std::string git_version = std::string(kDefaultGitVersion);
  };
  static constexpr std::string_view kDefaultGitVersion = "v1.36.3";

  // Listens on host:port. Throws std::runtime_error naming the address when it cannot bind, or when
  // the TLS files do not load.
  explicit ApiServer(Options options);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const { return port_; }
  std::string url() const;  // http[s]://host:port

  // Objects. resource: one of kube::watched_resources()' names, or "nodemetrics" / "podmetrics" (the
  // metrics.k8s.io lists, served without a watch); key: "namespace/name" (namespaced_key) or "name".
  // Creates or replaces (ADDED / MODIFIED) the object `key` of `resource`; `object_json` has a
  // "metadata" object, where the server sets resourceVersion. Returns whether it changed (see
  // Options::skip_unchanged_puts). `refused`, when given, is set when a pod write that would clear a
  // Binding's node is dropped (Options::keep_bound_node_name).
  bool put(std::string_view resource, const std::string& key, const std::string& object_json,
           bool* refused = nullptr);
  // Deletes it (a DELETED event carrying its last state); false if there is no such object.
  bool remove(std::string_view resource, const std::string& key);
  // The objects as served (with their resourceVersion), by key.
  std::map<std::string, std::string> objects(std::string_view resource) const;
  std::optional<std::string> object(std::string_view resource, const std::string& key) const;
  // Read-modify-write in one step, as an update carrying the object's resourceVersion is: f gets the
  // stored object and returns its new version (nullopt: no change). f runs under the server's lock and
  // must not call the server. False if there is no such object.
  bool update(std::string_view resource, const std::string& key,
              const std::function<std::optional<std::string>(const std::string&)>& f);
  uint64_t resource_version() const;

  // The bindings made through the API so far: (namespace/name, node), in order.
  std::vector<std::pair<std::string, std::string>> bindings() const;
  // Those made since the first `from` of them, in order.
  std::vector<std::pair<std::string, std::string>> bindings_since(size_t from) const;
  // The node a Binding put pod `key` on, while it is served; nullopt if none did.
  std::optional<std::string> bound_node(const std::string& key) const;
  // The Lease "namespace/name" as stored, "" when absent.
  std::string lease(const std::string& key) const;

  // Faults.
  void compact();                 // every resourceVersion up to now answers 410 Gone
  void restart();                 // open streams break; a new resourceVersion history begins
  void drop_streams_mid_event();  // each open stream sends half of its next event, then drops
  void hang_streams();            // open streams go silent, connections left open
  void expire_streams();          // open streams send a 410 ERROR event and end (as after compaction)
  void fail_requests(int count, int status);  // the next list/watch requests answer this status
  // List and watch of `resource` answer 403 Forbidden (RBAC without it) until forbidden again with false.
  void forbid(const std::string& resource, bool forbidden = true);
  void set_list_delay(std::chrono::milliseconds d);
  void set_gone_as_http_status(bool b);              // 410 as an HTTP status instead of an ERROR event
  void expire_next_watch();                          // the next watch gets 410 whatever its resourceVersion
  void bookmark();                                   // a BOOKMARK on every open stream
  void fail_binds(int status, std::string message);  // 0: binds succeed again
  // Whether a bind sets spec.nodeName on the pod (a MODIFIED event), as the real API does.
  void set_bind_updates_pod(bool b);
  // Lease requests answer this status (0: served again), as for a replica cut off from the API.
  void fail_leases(int status);
  // Leases may be created only in a namespace among the "namespaces" objects, as kube-apiserver's
  // NamespaceLifecycle admission has it (off by default: the tests put no namespaces).
  void require_lease_namespace(bool required);
  // These verbs ("get", "create", "update") on Leases answer 403 as RBAC does, and
  // SelfSubjectAccessReviews of them are denied; {} grants them again.
  void forbid_lease_verbs(std::set<std::string> verbs);
  // Open streams send an ERROR event with this Status (500: an etcd failure, ...) and end, as
  // kube-apiserver's watch does when its source fails.
  void fail_streams(int code, std::string message);
  // GET /version: another gitVersion from now on, or this status instead (0: served again).
  void set_git_version(std::string git_version);
  // PATCH of `resource` ("pods", "nodes"; "": both) answers this status (0: served again).
  void fail_patches(int status, std::string resource = "");
  void fail_version(int status);

  // Every request received, in order: (method, path without the query).
  std::vector<std::pair<std::string, std::string>> requests() const;
  int lists_served() const;
  int watches_served() const;
  int watches_served(const std::string& resource) const;  // watch requests of this resource

 private:
  struct Event {
    std::string resource;
    std::string line;  // the event's JSON and "\n"
    uint64_t rv;
  };
  struct Stored {
    std::string given;   // as put, to skip unchanged puts
    std::string served;  // with its resourceVersion
  };
  struct ListSnapshot {
    uint64_t rv;
    uint64_t epoch;
    std::vector<std::string> items;
  };
  struct Stream;
  struct Reply {
    int status;
    std::string body;
  };

  void configure();
  void listen();
  void install_list_and_watch_routes();
  void install_lease_routes();
  void install_binding_route();
  void install_version_route();
  void install_access_routes();
  // GET and PATCH (a JSON merge patch) of one pod or node (object_routes.cc).
  void install_object_routes();
  Reply patch_object(std::string_view resource, const std::string& key, const std::string& body);
  bool authorized(const httplib::Request& req, httplib::Response& res) const;
  bool refuse_list_or_watch(const std::string& resource, httplib::Response& res);
  Reply serve_list(const std::string& resource, const std::string& limit, const std::string& cont);
  void serve_watch(const std::string& resource, const httplib::Request& req, httplib::Response& res);
  bool pump(Stream& st, httplib::DataSink& sink);
  std::string next_events(Stream& st, bool cut);
  void record(std::string_view resource, const char* type, const std::string& served);
  Reply bind(const std::string& ns, const std::string& name, const std::string& node);
  Reply read_lease(const std::string& ns, const std::string& name);
  Reply write_lease(const std::string& ns, const std::string& name, const std::string& body);
  // The Lease refusals that come before the store: an injected failure, RBAC, a missing namespace.
  std::optional<Reply> refuse_lease(const std::string& verb, const std::string& ns, const std::string& name);
  Reply review_access(const std::string& body);

  Options opts_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  uint64_t rv_;
  uint64_t oldest_valid_rv_;
  uint64_t epoch_ = 0;
  // resource -> key -> object.
  std::map<std::string, std::map<std::string, Stored>, std::less<>> objects_;
  std::vector<Event> history_;  // in resourceVersion order
  std::map<uint64_t, ListSnapshot> snapshots_;
  uint64_t next_snapshot_ = 1;
  std::vector<std::pair<std::string, std::string>> bindings_;
  std::map<std::string, std::string, std::less<>> bound_;   // pod key -> node, by a Binding
  std::map<std::string, std::string, std::less<>> leases_;  // namespace/name -> Lease JSON

  // Faults and counters.
  int patch_fail_status_ = 0;
  std::string patch_fail_resource_;
  uint64_t next_stream_ = 1;
  uint64_t hang_upto_ = 0;
  uint64_t drop_upto_ = 0;
  uint64_t expire_upto_ = 0;
  uint64_t fail_upto_ = 0;  // streams up to this id end with fail_stream_event_
  std::string fail_stream_event_;
  uint64_t bookmark_gen_ = 0;
  int fail_count_ = 0;
  int fail_status_ = 500;
  std::set<std::string, std::less<>> forbidden_;
  bool gone_as_http_ = false;
  bool expire_next_watch_ = false;
  std::chrono::milliseconds list_delay_{0};
  int lists_ = 0;
  int watches_ = 0;
  std::map<std::string, int, std::less<>> watches_by_resource_;
  int bind_fail_status_ = 0;
  std::string bind_fail_message_;
  bool bind_updates_pod_ = true;
  int lease_fail_status_ = 0;
  bool lease_namespace_required_ = false;
  std::set<std::string> forbidden_lease_verbs_;
  std::string git_version_;  // under mu_
  int version_fail_status_ = 0;
  mutable std::mutex requests_mu_;
  std::vector<std::pair<std::string, std::string>> requests_;
};

// `object_json` with "resourceVersion":"<rv>" as the first member of its metadata object (which must
// be present: std::invalid_argument otherwise), replacing any it had.
std::string with_resource_version(const std::string& object_json, uint64_t rv);

}  // namespace kext::kube

#pragma once
// --extender's Kubernetes API: the simulated cluster served to a running kube-extender
// (`kube-extender --api-server http://127.0.0.1:PORT`), which lists and watches it as it would a real
// cluster. Plain HTTP on a loopback address (the extender's ApiClient speaks http:// as well as
// https://, kube/client/api_client.cc), no authentication.
//
// Only what the extender's reflectors (kube/client/reflector.cc) and check_api_access ask for:
// GET of each path kube::watched_resources() lists (/api/v1/nodes, /api/v1/pods,
// /apis/policy/v1/poddisruptionbudgets, /api/v1/namespaces, /api/v1/services, ...; the simulation
// serves objects of the first three, the others answer empty) as a list (every item in
// one page: `limit` is ignored and no `continue` is returned, which a client must accept from any API
// server) or, with watch=1, as a watch from `resourceVersion`: one JSON event per line
// ({"type":"ADDED|MODIFIED|DELETED","object":...}; with allowWatchBookmarks, a BOOKMARK after a minute
// without any, as kube-apiserver sends), the stream ending at `timeoutSeconds`. Every
// change has the next resourceVersion (one counter for all kinds, as etcd's revision) and the whole
// history is kept, so a watch from any version the server gave out resumes exactly (no 410 Gone).
//
// And the one write an extender makes: POST /api/v1/namespaces/NS/pods/NAME/binding (its bindVerb,
// extender/verbs/bind.cc), which sets the pod's spec.nodeName as kube-apiserver's BindingREST does
// (pkg/registry/core/pod/storage/storage.go assignPod: 404 for no such pod, 409 Conflict for a pod
// already assigned), answered 201 with a Success Status.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace httplib {
class Server;
class DataSink;
}  // namespace httplib

namespace kext::simtool {

class SimApiServer {
 public:
  // The resources the simulation serves objects of, as their paths name them.
  static constexpr std::string_view kNodes = "nodes";
  static constexpr std::string_view kPods = "pods";
  static constexpr std::string_view kPdbs = "poddisruptionbudgets";

  // Listens on host:port (0: any free port). Throws std::runtime_error naming the address when it
  // cannot bind.
  SimApiServer(const std::string& host, int port);
  ~SimApiServer();
  SimApiServer(const SimApiServer&) = delete;
  SimApiServer& operator=(const SimApiServer&) = delete;

  int port() const { return port_; }
  std::string url() const;  // http://host:port

  // Creates or replaces (ADDED / MODIFIED) the object `key` ("namespace/name" or "name") of
  // `resource`; `object_json` has a "metadata" object, where the server sets resourceVersion. An
  // unchanged object makes no event. Returns whether it changed.
  // `refused`, when given, is set when a pod write that would clear a Binding's node is dropped.
  bool put(std::string_view resource, const std::string& key, const std::string& object_json,
           bool* refused = nullptr);
  // Deletes it (a DELETED event carrying its last state); false if there is no such object.
  bool remove(std::string_view resource, const std::string& key);
  uint64_t resource_version() const;
  // The bindings made through the API so far: (namespace/name, node), in order.
  std::vector<std::pair<std::string, std::string>> bindings() const;
  // Those made since the first `from` of them, in order.
  std::vector<std::pair<std::string, std::string>> bindings_since(size_t from) const;
  // The node a Binding put pod `key` on, while it is served; nullopt if none did.
  std::optional<std::string> bound_node(const std::string& key) const;

 private:
  struct Event {
    std::string resource;
    std::string line;  // the event's JSON and "\n"
    uint64_t rv;
  };
  std::string list_body(const std::string& resource);
  struct Watch {
    uint64_t cursor;  // events after this resourceVersion are still to send
    std::chrono::steady_clock::time_point deadline;
    bool bookmarks;  // allowWatchBookmarks
    std::chrono::steady_clock::time_point last_sent;
  };
  bool pump(const std::string& resource, Watch& w, httplib::DataSink& sink);
  void record(const std::string& resource, const char* type, const std::string& object_json);
  // POST .../pods/NAME/binding: the HTTP status and the Status body.
  std::pair<int, std::string> bind(const std::string& key, const std::string& node);
  // POST (name "") or PUT .../leases/NAME: the HTTP status and the Lease stored, or a Status body.
  std::pair<int, std::string> write_lease(const std::string& ns, const std::string& name,
                                          const std::string& body);

  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  std::string host_;
  int port_ = 0;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  uint64_t rv_ = 1;
  // resource -> key -> JSON as given (to skip unchanged puts) and as served (with resourceVersion).
  std::map<std::string, std::map<std::string, std::string>, std::less<>> given_;
  std::map<std::string, std::map<std::string, std::string>, std::less<>> served_;
  std::vector<Event> history_;
  std::vector<std::pair<std::string, std::string>> bindings_;
  std::map<std::string, std::string, std::less<>> bound_;   // pod key -> node, by a Binding
  std::map<std::string, std::string, std::less<>> leases_;  // namespace/name -> Lease JSON
};

// `object_json` with "resourceVersion":"<rv>" as the first member of its metadata object (which must
// be present: std::invalid_argument otherwise).
std::string with_resource_version(const std::string& object_json, uint64_t rv);

}  // namespace kext::simtool

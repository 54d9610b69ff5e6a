#pragma once
// extender-sim --extender URL: the cycle's filter, prioritize and preempt sent to a running kube-extender as
// kube-scheduler sends them (pkg/scheduler/extender.go HTTPExtender: POST <urlPrefix>/<verb>, the
// ExtenderArgs envelope with NodeNames or full Nodes as nodeCacheCapable says), while the simulated
// cluster is served to that extender as its Kubernetes API (kube::ApiServer, kube/apiserver/api_server.h).
//
// Determinism: before a filter call the cluster is mirrored into the API (every pod, node and PDB
// whose object changed since the last call becomes one watch event), and when anything changed the
// call waits until the extender has applied all of it. The signal is GET /debug/state: the extender's
// cache as dump_state text, which by design equals dump_state of a from-scratch build of the same
// objects (kube/state/state_dump.h); the sim builds that from the objects it served (decoded with
// the extender's own decoders) and polls until the texts are equal. It needs no change to the
// extender and it checks the whole state, not a count (kube_extender_cache_objects does not change
// when a pod binds) nor a resourceVersion (the reflector publishes it only when a watch ends). It
// costs O(cluster) per cycle that follows a change, on both sides.
//
// With a bindVerb, binds go to the extender as kube-scheduler's binding cycle sends them: each on a
// thread of its own, since the extender may hold it (a gang member waiting for its group). bind()
// returns once every bind sent is answered or held: the extender's kube_extender_gang_held_binds
// (GET /metrics) equals the binds still unanswered (a bind leaves that gauge when it is let go, before
// it is answered: extender/gang/coordinator.h), so a bind that completes a group returns with the
// answers of all the binds it released. A member whose bind is held is served unbound, as the API
// has it until the extender's Binding arrives; the PodGroups are served as the inputs had them.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "algorithms/model.h"
#include "kube/apiserver/api_server.h"
#include "sim/core/cluster.h"
#include "sim/core/cycle.h"
#include "sim/sim_options.h"

namespace httplib {
class Client;
}

namespace kext::simtool {

// The extender failed a call (unreachable, an HTTP error, an Error reply, a reply that does not
// decode, its state never matching): the message names the URL. extender-sim exits 1 on it.
struct ExtenderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --extender's URL split as kube-scheduler's urlPrefix is used: "http://host:port/prefix" ->
// origin "http://host:port", prefix "/prefix" (the verbs go to prefix + "/filter"). Throws
// std::invalid_argument naming --extender for anything but http(s)://host[:port][/path].
// Node name -> its status.images as JSON text (ClusterInput::node_images).
using NodeImagesJson = std::unordered_map<std::string, std::string>;

struct ExtenderUrl {
  std::string origin;
  std::string prefix;
};
ExtenderUrl parse_extender_url(const std::string& url);

// ExtenderArgs as kube-scheduler marshals it: {"Pod":…,"Nodes":{"items":[…]},"NodeNames":null}
// with node_cache_capable false, {"Pod":…,"Nodes":null,"NodeNames":[…]} with it true.
// `node_images`: node name -> status.images text (ClusterInput::node_images), written into full Nodes.
std::string extender_args_json(const Pod& pod, std::span<const NodeInfo* const> nodes,
                               bool node_cache_capable, const NodeImagesJson* node_images = nullptr);

// ExtenderFilterResult -> one status per requested node, in request order: a node in
// FailedAndUnresolvableNodes is unresolvable (it wins over FailedNodes, as kube-scheduler since 1.21),
// in FailedNodes unschedulable, its message split at ", " back into the reasons the extender joined
// (extender/verbs/filter.cc); a node passes when NodeNames (names mode) or Nodes.items (full mode)
// lists it; any other node failed without a reason given. Throws ExtenderError on a non-empty Error,
// a malformed reply or a node the request did not have.
std::vector<FilterStatus> decode_filter_result(std::string_view body, std::span<const NodeInfo* const> nodes,
                                               bool node_cache_capable);
// HostPriorityList -> one score per node, in request order (0 for a node it does not list, as
// kube-scheduler adds nothing for it). Throws ExtenderError on a malformed reply.
std::vector<int64_t> decode_host_priorities(std::string_view body, std::span<const NodeInfo* const> nodes);

// ExtenderPreemptionArgs as kube-scheduler marshals it (preemption.go callExtenders, extender.go
// ProcessPreemption): the candidates' victims as full pods under NodeNameToVictims, or as
// {"UID":…} under NodeNameToMetaVictims with node_cache_capable, the other null. The victims' pod
// objects come from `cluster`.
std::string preemption_args_json(const Pod& pod, const std::vector<preemption::Candidate>& candidates,
                                 const sim::SimCluster& cluster, bool node_cache_capable);
// ExtenderPreemptionResult (NodeNameToMetaVictims in both modes) -> candidates, as convertToVictims
// maps it back: each node must be in `cluster` and each UID a pod bound to that node, a node without
// victims is an error (a non-ignorable extender's "expected at least one victim pod"); null or {}
// means no candidate. In node-name order; the cycle orders them. Throws ExtenderError.
std::vector<preemption::Candidate> decode_preemption_result(std::string_view body,
                                                            const sim::SimCluster& cluster);

struct RemoteExtenderOptions {
  std::string url;                 // --extender
  bool node_cache_capable = true;  // --node-cache-capable
  // How long a cycle waits for the extender to apply the streamed changes (the first one: for it to
  // start and list).
  std::chrono::milliseconds sync_timeout{60000};
  std::chrono::milliseconds request_timeout{30000};
  int64_t epoch_unix_seconds = 0;  // a terminating pod's deletionTimestamp
  // preemptVerb: "" leaves the candidates as the dry runs found them (no call).
  std::string preempt_verb = "preempt";
  // bindVerb: "" binds in the simulator (no call).
  std::string bind_verb;
  // --real-time: simulated time is the wall clock's from the backend's construction, and every bind
  // is answered asynchronously (sim::CycleBackend::real_time); a bind call that fails (no reply within
  // request_timeout, an HTTP error) is a bind error, as kube-scheduler takes it, not the run's end.
  bool real_time = false;
  // The nodes' images as the input had them: served in the API and sent in full Nodes, so that the
  // extender's ImageLocality sees what the in-process run sees.
  NodeImagesJson node_images;
};

class RemoteExtender : public sim::CycleBackend {
 public:
  // `api` must outlive this. Throws std::invalid_argument for a bad URL.
  RemoteExtender(RemoteExtenderOptions options, kube::ApiServer& api);
  ~RemoteExtender() override;

  std::vector<FilterStatus> filter(const sim::SimCluster& cluster, const Pod& pod,
                                   std::span<const NodeInfo* const> nodes) override;
  std::vector<int64_t> score(const sim::SimCluster& cluster, const Pod& pod,
                             std::span<const NodeInfo* const> nodes) override;
  std::vector<preemption::Candidate> preempt(const sim::SimCluster& cluster, const Pod& pod,
                                             std::vector<preemption::Candidate> candidates) override;
  // Throws ExtenderError for a bind the extender could not be asked (no reply, an HTTP error, a reply
  // that does not decode) and for binds neither answered nor held within the request timeout.
  std::optional<sim::BindReply> bind(const sim::SimCluster& cluster, const Pod& pod,
                                     const std::string& node) override;
  std::vector<sim::BindAnswer> take_answers(bool wait) override;
  bool holds_binds() const override;
  bool real_time() const override { return options_.real_time; }
  sim::SimTime now() const override;
  void wait_until(sim::SimTime t) override;

  // The PodGroups the extender lists and watches, each in its own API (served from the next sync).
  void serve_pod_groups(const gang::GroupMap& groups);

  // Mirrors `cluster` into the API; when anything changed, waits until the extender's state is it.
  void sync(const sim::SimCluster& cluster);
  // What the extender's GET /debug/state must read once it has applied everything served.
  std::string expected_state() const;
  size_t syncs() const { return syncs_; }  // waits done

 private:
  std::string post(const std::string& verb, const std::string& body);
  void wait_for_state();
  // Until every bind sent is answered or held; the answered ones move to settled_.
  void settle();
  int64_t held_binds();  // the extender's kube_extender_gang_held_binds
  // The binds answered so far, their threads joined, moved to `to` in the order they were sent
  // (binds_mu_ held).
  void move_answered(std::vector<std::pair<uint64_t, sim::BindAnswer>>& to);
  // Real time: the binds answered so far, in the order they were sent.
  std::vector<sim::BindAnswer> take_answered();
  // Otherwise: what settle() found answered (with `wait`, once every bind is).
  std::vector<sim::BindAnswer> take_settled(bool wait);
  // Appends the pods the API's Bindings put on a node, each once no bind of it is in flight.
  void add_bound_elsewhere(std::vector<sim::BindAnswer>& answers);
  // The bind call's outcome for InFlight: "" bound, an Error, or (failure) why the call failed.
  void answer(const std::string& uid, std::string error, std::string failure);

  // A bind sent and not yet settled.
  struct InFlight {
    uint64_t sequence = 0;             // the order it was sent in
    std::optional<std::string> error;  // set when answered ("" bound)
    std::string failure;               // the call itself failed: what ExtenderError says
    std::thread thread;
  };

  RemoteExtenderOptions options_;
  ExtenderUrl url_;
  kube::ApiServer& api_;
  std::unique_ptr<httplib::Client> client_;
  bool first_ = true;
  size_t syncs_ = 0;
  // What was served last, by object identity (the cluster's objects are copy-on-write: a changed
  // pod is a new object), so that only changed objects are encoded again.
  std::unordered_map<std::string, std::shared_ptr<const Pod>> served_pods_;    // by namespace/name
  std::unordered_map<std::string, std::shared_ptr<const Node>> served_nodes_;  // by name
  // The served objects as the extender decodes them, for expected_state().
  std::map<std::string, Pod> pods_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, PodDisruptionBudget> pdbs_;
  std::map<std::string, gang::PodGroupSpec> groups_;  // by key, served at the first sync
  bool groups_served_ = false;

  mutable std::mutex binds_mu_;
  std::condition_variable binds_cv_;
  std::map<std::string, InFlight, std::less<>> binds_;  // by pod UID
  uint64_t next_bind_ = 0;
  std::vector<std::pair<uint64_t, sim::BindAnswer>> settled_;  // answered, not yet taken
  size_t bindings_seen_ = 0;  // the API's bindings looked at so far (add_bound_elsewhere)
  std::vector<std::pair<std::string, std::string>> unreported_;  // (pod key, node) still to report
  // Real time: the wall-clock instant of simulated time 0, when this backend was made.
  std::optional<std::chrono::steady_clock::time_point> start_;
};

// What --extender adds to a run: the API the extender watches and the backend the cycle calls.
struct ExtenderLink {
  std::unique_ptr<kube::ApiServer> api;
  std::unique_ptr<RemoteExtender> backend;
};

// nullptr without --extender. Otherwise listens on --api-listen and says where on `note` (the
// operator starts kube-extender with --api-server at that URL). Throws std::invalid_argument naming
// the flag: a bad --extender URL or --api-listen address, --compare with --extender (the running
// extender has one configuration), an address it cannot listen on.
// `git_version`: what the served API's /version says ("" for kube::ApiServer's default).
std::unique_ptr<ExtenderLink> make_extender_link(const SimCommand& command, int64_t epoch_unix_seconds,
                                                 std::ostream* note, NodeImagesJson node_images = {},
                                                 std::string git_version = {});

}  // namespace kext::simtool

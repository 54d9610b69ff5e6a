#pragma once
// extender-sim --follow's view of the live cluster: the extender's own reflector (kube/client/
// reflector.h: paginated list, watch with bookmarks, relist on 410 Gone, backoff) over nodes, pods,
// PodDisruptionBudgets, PriorityClasses, and what PodTopologySpread and InterPodAffinity read beyond
// them (Namespaces, Services, ReplicationControllers, ReplicaSets, StatefulSets), whose objects are decoded
// as a --cluster file's are and pushed as typed events into one thread-safe queue. A relist (the first list,
// or one after a 410 or a broken stream) is diffed against what was known: objects gone meanwhile become
// deletions, new ones additions, changed ones (another resourceVersion) modifications. Only GET requests are
// sent.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "kube/codec/workload_decode.h"
#include "kube/state/cluster_state.h"
#include "sim/inputs.h"

namespace kext::kube {
class ApiClient;
class Reflector;
class ResourceSink;
struct ReflectorStatus;
}  // namespace kext::kube

namespace kext::simtool::follow {

struct LiveEvent {
  enum class Kind {
    kNodeUpsert,
    kNodeDelete,
    kPodUpsert,
    kPodDelete,
    kPdbUpsert,
    kPdbDelete,
    kPriorityClass,
    kNamespaceUpsert,
    kNamespaceDelete,
    kWorkloadUpsert,
    kWorkloadDelete
  };
  Kind kind = Kind::kPodUpsert;
  Node node;                         // kNodeUpsert; kNodeDelete: only its name
  InputPod pod;                      // kPodUpsert; kPodDelete: the last state seen
  PodDisruptionBudget pdb;           // kPdbUpsert; kPdbDelete: only its namespace and name
  PriorityClass priority_class;      // kPriorityClass (added or changed; deletions do not matter)
  NamespaceObject namespace_object;  // kNamespaceUpsert; kNamespaceDelete: only its name
  WorkloadKind workload_kind = WorkloadKind::kService;  // kWorkload*
  WorkloadSelector workload;  // kWorkloadUpsert; kWorkloadDelete: only its namespace and name
  bool relist = false;        // from a list's diff rather than a watch event
};

// Many producers (the reflectors' threads), one consumer (the follow loop).
class LiveEventQueue {
 public:
  void push(std::vector<LiveEvent> events);
  // Everything queued, waiting up to `timeout` for the first event; empty on timeout or after wake().
  std::vector<LiveEvent> wait(std::chrono::steady_clock::duration timeout);
  // Ends the current or next wait() at once (shutdown).
  void wake();
  uint64_t pushed() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<LiveEvent> events_;
  bool woken_ = false;
  uint64_t pushed_ = 0;
};

// One watched resource's counters, for /metrics.
struct StreamStatus {
  std::string resource;
  bool synced = false;
  uint64_t lists = 0;  // complete lists (the first and every relist)
  uint64_t gone = 0;   // 410s that forced a relist
  uint64_t watches = 0;
  uint64_t failures = 0;
  uint64_t events = 0;  // watch events
  uint64_t bad_objects = 0;
  std::string last_error;
};

struct LiveStreamOptions {
  size_t page_size = 500;
  std::chrono::milliseconds backoff_initial{800};
  std::chrono::milliseconds backoff_max{30000};
};

class LiveStream {
 public:
  // `api` must outlive the stream. Nothing is requested before start().
  LiveStream(kube::ApiClient& api, LiveEventQueue& queue, LiveStreamOptions options = {});
  ~LiveStream();
  LiveStream(const LiveStream&) = delete;
  LiveStream& operator=(const LiveStream&) = delete;

  // Starts the nodes' reflector and waits (up to `sync_timeout`, or three failed attempts) for its
  // first list, so that the pods' first list finds their nodes; then the pods', PDBs' and, each if the
  // server lets us list it (one probe GET; a 404 or 403 means it has none for us), the
  // PriorityClasses', Namespaces', Services', ReplicationControllers', ReplicaSets' and StatefulSets'
  // reflectors (live_input.h's optional resources). Returns false, having started only the nodes', if the
  // nodes were not listed (status() says why).
  bool start(std::chrono::milliseconds sync_timeout);
  void stop();
  // Whether every started reflector has listed once.
  bool synced() const;
  std::vector<StreamStatus> status() const;

 private:
  struct Watched;
  void start_one(const std::string& resource, const std::string& path,
                 std::unique_ptr<kube::ResourceSink> sink);

  kube::ApiClient& api_;
  LiveEventQueue& queue_;
  LiveStreamOptions options_;
  std::vector<std::unique_ptr<Watched>> watched_;
};

}  // namespace kext::simtool::follow

#include "sim/follow/live_stream.h"

#include <thread>
#include <unordered_map>
#include <utility>

#include "algorithms/namespaced_key.h"
#include "kube/client/api_client.h"
#include "kube/client/cache_sinks.h"
#include "kube/client/lister.h"
#include "kube/client/reflector.h"
#include "kube/client/resource_sink.h"
#include "kube/codec/k8s_decode.h"
#include "kube/codec/workload_decode.h"
#include "sim/live_input.h"

namespace kext::simtool::follow {

void LiveEventQueue::push(std::vector<LiveEvent> events) {
  if (events.empty()) return;
  {
    std::lock_guard lock(mu_);
    pushed_ += events.size();
    if (events_.empty()) {
      events_ = std::move(events);
    } else {
      for (auto& e : events) events_.push_back(std::move(e));
    }
  }
  cv_.notify_one();
}

std::vector<LiveEvent> LiveEventQueue::wait(std::chrono::steady_clock::duration timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [this] { return !events_.empty() || woken_; });
  woken_ = false;
  std::vector<LiveEvent> out;
  out.swap(events_);
  return out;
}

void LiveEventQueue::wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_one();
}

uint64_t LiveEventQueue::pushed() const {
  std::lock_guard lock(mu_);
  return pushed_;
}

namespace {

using Kind = LiveEvent::Kind;

// One resource's decoding into LiveEvents: its key, and the events of an object seen or gone.
// Nodes and namespaces: one object in `Field`, keyed by its name.
template <Kind Up, Kind Down, auto Field, auto Decode, const char* Path>
struct NamedTraits {
  static LiveEvent upsert(const json::Value& v) {
    LiveEvent e;
    e.kind = Up;
    e.*Field = Decode(v, Path);
    return e;
  }
  static std::string key(const LiveEvent& e) { return (e.*Field).name; }
  static LiveEvent gone(const std::string& key) {
    LiveEvent e;
    e.kind = Down;
    (e.*Field).name = key;
    return e;
  }
};
inline constexpr char kNodePath[] = "node";
inline constexpr char kNamespacePath[] = "namespace";
using NodeTraits =
    NamedTraits<Kind::kNodeUpsert, Kind::kNodeDelete, &LiveEvent::node, decode_node, kNodePath>;
using NamespaceTraits = NamedTraits<Kind::kNamespaceUpsert, Kind::kNamespaceDelete,
                                    &LiveEvent::namespace_object, decode_namespace, kNamespacePath>;

struct PodTraitsOf {
  static constexpr const char* kPath = "pod";
  static LiveEvent upsert(const json::Value& v) {
    LiveEvent e;
    e.kind = Kind::kPodUpsert;
    e.pod = decode_cluster_pod(v, kPath);
    return e;
  }
  static std::string key(const LiveEvent& e) { return e.pod.pod.uid; }
  static LiveEvent gone(const std::string& key) {
    LiveEvent e;
    e.kind = Kind::kPodDelete;
    e.pod.pod.uid = key;
    return e;
  }
};

struct PdbTraits {
  static constexpr const char* kPath = "poddisruptionbudget";
  static LiveEvent upsert(const json::Value& v) {
    LiveEvent e;
    e.kind = Kind::kPdbUpsert;
    e.pdb = decode_pdb(v, kPath);
    return e;
  }
  static std::string key(const LiveEvent& e) { return namespaced_key(e.pdb.namespace_, e.pdb.name); }
  static LiveEvent gone(const std::string& key) {
    LiveEvent e;
    e.kind = Kind::kPdbDelete;
    const NamespacedName n = split_namespaced_key(key);
    e.pdb.namespace_ = n.namespace_;
    e.pdb.name = n.name;
    return e;
  }
};

struct PriorityClassTraits {
  static constexpr const char* kPath = "priorityclass";
  static LiveEvent upsert(const json::Value& v) {
    LiveEvent e;
    e.kind = Kind::kPriorityClass;
    e.priority_class = decode_priority_class(v, kPath);
    return e;
  }
  static std::string key(const LiveEvent& e) { return e.priority_class.name; }
  static LiveEvent gone(const std::string&) {
    LiveEvent e;
    e.kind = Kind::kPriorityClass;  // a class deleted changes no pod: dropped below
    return e;
  }
};

// Services, ReplicationControllers, ReplicaSets, StatefulSets: their selectors, decoded as the
// extender's cache decodes them (kube/codec/workload_decode.h).
template <WorkloadKind K, WorkloadSelector (*Decode)(const json::Value&, std::string_view)>
struct WorkloadTraits {
  static LiveEvent upsert(const json::Value& v) {
    LiveEvent e;
    e.kind = Kind::kWorkloadUpsert;
    e.workload_kind = K;
    e.workload = Decode(v, workload_resource(K));
    return e;
  }
  static std::string key(const LiveEvent& e) {
    return namespaced_key(e.workload.namespace_, e.workload.name);
  }
  static LiveEvent gone(const std::string& key) {
    LiveEvent e;
    e.kind = Kind::kWorkloadDelete;
    e.workload_kind = K;
    const NamespacedName n = split_namespaced_key(key);
    e.workload.namespace_ = n.namespace_;
    e.workload.name = n.name;
    return e;
  }
};

// A ResourceSink that remembers each object's resourceVersion (and nothing else: bounded by the live
// objects), so that a relist turns into the events the watch missed.
template <class T>
class DiffSink final : public kube::ResourceSink {
 public:
  explicit DiffSink(LiveEventQueue& queue) : queue_(queue) {}

  void list_begin() override { listed_.clear(); }
  void list_item(const json::Value& object) override {
    LiveEvent e = T::upsert(object);
    e.relist = true;
    std::string key = T::key(e);
    listed_.push_back({std::move(key), kube::string_at(object, "metadata", "resourceVersion"), std::move(e)});
  }
  void list_end() override {
    pending_.clear();  // events before a relist are superseded by it
    std::unordered_map<std::string, std::string> now;
    std::vector<LiveEvent> out;
    for (auto& item : listed_) {
      auto known = known_.find(item.key);
      if (known == known_.end() || known->second != item.resource_version || item.resource_version.empty())
        out.push_back(std::move(item.event));
      now[std::move(item.key)] = std::move(item.resource_version);
    }
    for (const auto& [key, rv] : known_) {
      if (now.count(key) != 0) continue;
      LiveEvent e = T::gone(key);
      e.relist = true;
      if (e.kind != Kind::kPriorityClass) out.push_back(std::move(e));
    }
    known_ = std::move(now);
    listed_ = {};
    queue_.push(std::move(out));
  }
  void event(kube::EventType type, const json::Value& object) override {
    LiveEvent e = T::upsert(object);
    std::string key = T::key(e);
    if (type == kube::EventType::Deleted) {
      known_.erase(key);
      if (e.kind == Kind::kPriorityClass) return;
      LiveEvent gone = T::gone(key);
      if (e.kind == Kind::kPodUpsert) gone.pod = std::move(e.pod);  // its last state
      pending_.push_back(std::move(gone));
      return;
    }
    known_[std::move(key)] = kube::string_at(object, "metadata", "resourceVersion");
    pending_.push_back(std::move(e));
  }
  void flush() override {
    if (pending_.empty()) return;
    queue_.push(std::move(pending_));
    pending_ = {};
  }

 private:
  struct Listed {
    std::string key;
    std::string resource_version;
    LiveEvent event;
  };
  LiveEventQueue& queue_;
  std::unordered_map<std::string, std::string> known_;  // key -> resourceVersion
  std::vector<Listed> listed_;
  std::vector<LiveEvent> pending_;
};

}  // namespace

struct LiveStream::Watched {
  std::unique_ptr<kube::ResourceSink> sink;
  std::unique_ptr<kube::Reflector> reflector;
};

LiveStream::LiveStream(kube::ApiClient& api, LiveEventQueue& queue, LiveStreamOptions options)
    : api_(api), queue_(queue), options_(options) {}

LiveStream::~LiveStream() { stop(); }

void LiveStream::start_one(const std::string& resource, const std::string& path,
                           std::unique_ptr<kube::ResourceSink> sink) {
  auto w = std::make_unique<Watched>();
  w->sink = std::move(sink);
  kube::ReflectorOptions o;
  o.resource = resource;
  o.path = path;
  o.page_size = options_.page_size;
  o.backoff_initial = options_.backoff_initial;
  o.backoff_max = options_.backoff_max;
  w->reflector = std::make_unique<kube::Reflector>(api_, o, *w->sink);
  w->reflector->start();
  watched_.push_back(std::move(w));
}

bool LiveStream::start(std::chrono::milliseconds sync_timeout) {
  // The paths live_input.h lists once (kLiveResources), watched here.
  const LiveResource& nodes = kLiveResources[0];
  const LiveResource& pods = kLiveResources[1];
  const LiveResource& pdbs = kLiveResources[2];
  const LiveResource& classes = kLiveResources[3];
  start_one("nodes", nodes.path, std::make_unique<DiffSink<NodeTraits>>(queue_));
  const auto deadline = std::chrono::steady_clock::now() + sync_timeout;
  // Until listed, or three failed attempts (a server that refuses or cannot be reached says so at once).
  for (;;) {
    const kube::ReflectorStatus s = watched_.front()->reflector->status();
    if (s.synced || s.failures >= 3 || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool nodes_synced = watched_.front()->reflector->status().synced;
  if (!nodes_synced) return false;
  start_one("pods", pods.path, std::make_unique<DiffSink<PodTraitsOf>>(queue_));
  start_one("poddisruptionbudgets", pdbs.path, std::make_unique<DiffSink<PdbTraits>>(queue_));
  // Optional: a reflector on a resource the server does not serve, or does not let us list, would
  // retry (with backoff) forever; one probe each decides whether to watch it at all.
  auto start_optional = [&](const char* resource, std::string_view path, auto make_sink) {
    if (!kube::resource_absent(api_, path)) start_one(resource, std::string(path), make_sink());
  };
  start_optional("priorityclasses", classes.path,
                 [&] { return std::make_unique<DiffSink<PriorityClassTraits>>(queue_); });
  start_optional("namespaces", kube::find_watched_resource("namespaces")->path,
                 [&] { return std::make_unique<DiffSink<NamespaceTraits>>(queue_); });
  auto start_workload = [&]<WorkloadKind K, auto Decode>() {
    const std::string_view resource = workload_resource(K);
    start_optional(resource.data(), kube::find_watched_resource(resource)->path,
                   [&] { return std::make_unique<DiffSink<WorkloadTraits<K, Decode>>>(queue_); });
  };
  start_workload.operator()<WorkloadKind::kService, decode_service>();
  start_workload.operator()<WorkloadKind::kReplicationController, decode_replication_controller>();
  start_workload.operator()<WorkloadKind::kReplicaSet, decode_replica_set>();
  start_workload.operator()<WorkloadKind::kStatefulSet, decode_stateful_set>();
  return nodes_synced;
}

void LiveStream::stop() {
  for (auto& w : watched_) w->reflector->stop();
}

bool LiveStream::synced() const {
  for (const auto& w : watched_)
    if (!w->reflector->status().synced) return false;
  return !watched_.empty();
}

std::vector<StreamStatus> LiveStream::status() const {
  std::vector<StreamStatus> out;
  for (const auto& w : watched_) {
    const kube::ReflectorStatus s = w->reflector->status();
    out.push_back(StreamStatus{w->reflector->resource(), s.synced, s.lists, s.gone, s.watches, s.failures,
                               s.events, s.bad_objects, s.last_error});
  }
  return out;
}

}  // namespace kext::simtool::follow

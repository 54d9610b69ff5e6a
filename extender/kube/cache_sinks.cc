#include "extender/kube/cache_sinks.h"

#include <variant>
#include <vector>

#include "extender/codec/k8s_decode.h"

namespace kext::kube {

namespace {

// One kind's decode and cache operations; KindSink does the list/queue/flush plumbing once.
struct NodeKind {
  using Object = Node;
  static Node decode(const json::Value& v) { return decode_node(v, "node"); }
  static void upsert(StateCache::Batch& b, Node o) { b.upsert_node(std::move(o)); }
  static void remove(StateCache::Batch& b, const Node& o) { b.delete_node(o.name); }
  static void replace(StateCache::Batch& b, std::vector<Node> all) { b.replace_nodes(std::move(all)); }
};

struct PodKind {
  using Object = Pod;
  static Pod decode(const json::Value& v) { return decode_pod(v, "pod"); }
  static void upsert(StateCache::Batch& b, Pod o) { b.upsert_pod(std::move(o)); }
  static void remove(StateCache::Batch& b, const Pod& o) { b.delete_pod(StateCache::pod_key(o)); }
  static void replace(StateCache::Batch& b, std::vector<Pod> all) { b.replace_pods(std::move(all)); }
};

struct PdbKind {
  using Object = PodDisruptionBudget;
  static PodDisruptionBudget decode(const json::Value& v) { return decode_pdb(v, "poddisruptionbudget"); }
  static void upsert(StateCache::Batch& b, PodDisruptionBudget o) { b.upsert_pdb(std::move(o)); }
  static void remove(StateCache::Batch& b, const PodDisruptionBudget& o) { b.delete_pdb(o.namespace_, o.name); }
  static void replace(StateCache::Batch& b, std::vector<PodDisruptionBudget> all) { b.replace_pdbs(std::move(all)); }
};

template <class Kind>
class KindSink final : public ResourceSink {
 public:
  explicit KindSink(StateCache& cache) : cache_(cache) {}

  void list_begin() override { listed_.clear(); }
  void list_item(const json::Value& object) override { listed_.push_back(Kind::decode(object)); }
  void list_end() override {
    pending_.clear();  // events before a relist are superseded by it
    auto b = cache_.batch();
    Kind::replace(b, std::move(listed_));
    listed_ = {};
  }
  void event(EventType type, const json::Value& object) override {
    pending_.push_back({type, Kind::decode(object)});
  }
  void flush() override {
    if (pending_.empty()) return;
    auto b = cache_.batch();
    for (auto& [type, obj] : pending_) {
      if (type == EventType::Deleted) Kind::remove(b, obj);
      else Kind::upsert(b, std::move(obj));
    }
    pending_.clear();
  }

 private:
  StateCache& cache_;
  std::vector<typename Kind::Object> listed_;
  std::vector<std::pair<EventType, typename Kind::Object>> pending_;
};

}  // namespace

std::unique_ptr<ResourceSink> make_node_sink(StateCache& cache) { return std::make_unique<KindSink<NodeKind>>(cache); }
std::unique_ptr<ResourceSink> make_pod_sink(StateCache& cache) { return std::make_unique<KindSink<PodKind>>(cache); }
std::unique_ptr<ResourceSink> make_pdb_sink(StateCache& cache) { return std::make_unique<KindSink<PdbKind>>(cache); }

}  // namespace kext::kube

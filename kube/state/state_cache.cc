#include "kube/state/state_cache.h"

#include <unordered_set>

#include "algorithms/namespaced_key.h"
#include "algorithms/pod_requests.h"
#include "kube/codec/workload_decode.h"

namespace kext {

namespace {

// Enough of the terms to tell most rule sets apart; equality decides.
size_t affinity_hash(const PodAffinityRules& r) {
  size_t h = 0;
  auto mix = [&](std::string_view s) { h = (h ^ StringHash{}(s)) * 0x100000001B3ULL; };
  auto term = [&](const PodAffinityTerm& t) {
    mix(t.topology_key);
    if (t.label_selector)
      for (const auto& [k, v] : t.label_selector->match_labels) {
        mix(k);
        mix(v);
      }
    for (const auto& n : t.namespaces) mix(n);
  };
  for (const auto& t : r.required_affinity) term(t);
  for (const auto& t : r.required_anti_affinity) term(t);
  for (const auto& w : r.preferred_affinity) term(w.term);
  for (const auto& w : r.preferred_anti_affinity) term(w.term);
  return h;
}

}  // namespace

std::shared_ptr<const PodInfo> StateCache::cached_pod_info(Pod pod) {
  PodInfo info;
  info.requests = compute_pod_requests(pod, false, version_);
  info.nonzero_requests = compute_pod_requests(pod, true, version_);
  pod.labels = intern(pod.labels);
  pod.affinity = intern(pod.affinity);
  // Only the PodMeta part is kept: containers, tolerations and affinity matter only for the pod being
  // scheduled, which always comes in the request.
  info.pod = std::make_shared<const PodMeta>(std::move(static_cast<PodMeta&>(pod)));
  return std::make_shared<const PodInfo>(std::move(info));
}

SharedLabels StateCache::intern(const SharedLabels& labels) {
  if (labels.empty()) return {};
  auto [it, inserted] = interned_labels_.try_emplace(labels.get());
  if (auto shared = it->second.lock()) return SharedLabels(std::move(shared));
  it->second = labels.shared();
  if (interned_labels_.size() >= intern_sweep_at_) {
    std::erase_if(interned_labels_, [](const auto& e) { return e.second.expired(); });
    intern_sweep_at_ = std::max<size_t>(1024, 2 * interned_labels_.size());
  }
  return labels;
}

std::shared_ptr<const PodAffinityRules> StateCache::intern(
    const std::shared_ptr<const PodAffinityRules>& affinity) {
  if (!affinity) return nullptr;
  const size_t h = affinity_hash(*affinity);
  auto [first, last] = interned_affinity_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    auto shared = it->second.lock();
    if (shared && *shared == *affinity) return shared;
  }
  interned_affinity_.emplace(h, affinity);
  if (interned_affinity_.size() >= affinity_sweep_at_) {
    std::erase_if(interned_affinity_, [](const auto& e) { return e.second.expired(); });
    affinity_sweep_at_ = std::max<size_t>(1024, 2 * interned_affinity_.size());
  }
  return affinity;
}

std::string StateCache::pod_key(std::string_view uid, std::string_view namespace_, std::string_view name) {
  return uid.empty() ? namespaced_key(namespace_, name) : std::string(uid);
}

StateCache::Batch::~Batch() {
  if (c_.store_) c_.store_->publish(c_.view_locked());
}

void StateCache::Batch::upsert_node(Node node) { c_.upsert_node_locked(std::move(node)); }
void StateCache::Batch::delete_node(const std::string& name) { c_.delete_node_locked(name); }
void StateCache::Batch::upsert_pod(Pod pod) { c_.upsert_pod_locked(std::move(pod)); }
void StateCache::Batch::delete_pod(const std::string& key) { c_.delete_pod_locked(key); }

void StateCache::Batch::upsert_pdb(PodDisruptionBudget pdb) {
  std::string key = namespaced_key(pdb.namespace_, pdb.name);
  c_.pdbs_[key] = std::move(pdb);
  c_.pdbs_dirty_ = true;
}

void StateCache::Batch::delete_pdb(const std::string& namespace_, const std::string& name) {
  c_.pdbs_dirty_ |= c_.pdbs_.erase(namespaced_key(namespace_, name)) > 0;
}

void StateCache::Batch::replace_nodes(std::vector<Node> nodes) {
  std::unordered_set<std::string, StringHash, std::equal_to<>> listed;
  for (const auto& n : nodes) listed.insert(n.name);
  std::vector<std::string> gone;
  c_.nodes_.for_each([&](std::string_view name, const std::shared_ptr<const NodeInfo>& info) {
    if (info->node && !listed.contains(name)) gone.emplace_back(name);
  });
  for (const auto& name : gone) c_.delete_node_locked(name);
  for (auto& n : nodes) c_.upsert_node_locked(std::move(n));
}

void StateCache::Batch::replace_pods(std::vector<Pod> pods) {
  std::unordered_set<std::string, StringHash, std::equal_to<>> listed;
  for (const auto& p : pods) listed.insert(pod_key(p));
  std::vector<std::string> gone;
  c_.pods_.for_each([&](std::string_view key, const auto&) {
    if (!listed.contains(key)) gone.emplace_back(key);
  });
  for (const auto& key : gone) c_.delete_pod_locked(key);
  for (auto& p : pods) c_.upsert_pod_locked(std::move(p));
}

void StateCache::Batch::replace_pdbs(std::vector<PodDisruptionBudget> pdbs) {
  c_.pdbs_.clear();
  c_.pdbs_dirty_ = true;
  for (auto& b : pdbs) upsert_pdb(std::move(b));
}

void StateCache::Batch::upsert_namespace(std::string name, Labels labels) {
  c_.namespaces_.insert_or_assign(std::move(name), std::move(labels));
  c_.namespaces_dirty_ = true;
}

void StateCache::Batch::delete_namespace(const std::string& name) {
  c_.namespaces_dirty_ |= c_.namespaces_.erase(name) > 0;
}

void StateCache::Batch::replace_namespaces(std::vector<std::pair<std::string, Labels>> namespaces) {
  c_.namespaces_.clear();
  c_.namespaces_dirty_ = true;
  for (auto& [name, labels] : namespaces) upsert_namespace(std::move(name), std::move(labels));
}

void StateCache::Batch::upsert_workload(WorkloadKind kind, WorkloadSelector w) {
  auto& ws = c_.workloads_[static_cast<size_t>(kind)];
  std::string key = namespaced_key(w.namespace_, w.name);
  if (selects_no_pods(w)) {
    ws.dirty |= ws.by_key.erase(key) > 0;
    return;
  }
  ws.by_key.insert_or_assign(std::move(key), std::move(w));
  ws.dirty = true;
}

void StateCache::Batch::delete_workload(WorkloadKind kind, const std::string& namespace_,
                                        const std::string& name) {
  auto& ws = c_.workloads_[static_cast<size_t>(kind)];
  ws.dirty |= ws.by_key.erase(namespaced_key(namespace_, name)) > 0;
}

void StateCache::Batch::replace_workloads(WorkloadKind kind, std::vector<WorkloadSelector> all) {
  auto& ws = c_.workloads_[static_cast<size_t>(kind)];
  ws.by_key.clear();
  ws.dirty = true;
  for (auto& w : all) upsert_workload(kind, std::move(w));
}

void StateCache::Batch::upsert_gang(gang::PodGroupSpec group) {
  std::string key = group.key();
  c_.gangs_.insert_or_assign(std::move(key), std::move(group));
  c_.gangs_dirty_ = true;
}

void StateCache::Batch::delete_gang(const gang::PodGroupSpec& group) {
  c_.gangs_dirty_ |= c_.gangs_.erase(group.key()) > 0;
}

void StateCache::Batch::replace_gangs(gang::GroupApi api, std::vector<gang::PodGroupSpec> groups) {
  std::erase_if(c_.gangs_, [api](const auto& g) { return g.second.api == api; });
  c_.gangs_dirty_ = true;
  for (auto& g : groups) upsert_gang(std::move(g));
}

void StateCache::Batch::upsert_device_class(DeviceClassNames c) {
  c_.device_classes_.insert_or_assign(std::move(c.first), std::move(c.second));
  c_.device_classes_dirty_ = true;
}

void StateCache::Batch::delete_device_class(const std::string& name) {
  c_.device_classes_dirty_ |= c_.device_classes_.erase(name) > 0;
}

void StateCache::Batch::replace_device_classes(std::vector<DeviceClassNames> all) {
  c_.device_classes_.clear();
  c_.device_classes_dirty_ = true;
  for (auto& c : all) upsert_device_class(std::move(c));
}

bool StateCache::Batch::assume_pod(const std::string& key, const std::string& node, Clock::time_point until,
                                   std::shared_ptr<const gpu::PodShares> gpu_shares) {
  const auto* found = c_.pods_.find(key);
  if (!found) return false;
  std::shared_ptr<const PodInfo> current = *found;
  if (!current->pod->node_name.empty() && !c_.assumed_.contains(key)) return true;  // the watch was first
  if (!c_.assumed_.contains(key)) c_.assumed_original_[key] = current;
  auto pod = std::make_shared<PodMeta>(*current->pod);
  pod->node_name = node;
  if (gpu_shares) pod->gpu_shares = std::move(gpu_shares);
  c_.put_pod_info_locked(
      key, std::make_shared<const PodInfo>(PodInfo{pod, current->requests, current->nonzero_requests}));
  c_.assumed_[key] = Assumed{node, until};
  return true;
}

void StateCache::Batch::forget_assumed(const std::string& key) { c_.restore_assumed_locked(key); }

void StateCache::restore_assumed_locked(const std::string& key) {
  if (assumed_.erase(key) == 0) return;
  auto orig = assumed_original_.find(key);
  if (orig == assumed_original_.end()) return;
  put_pod_info_locked(key, orig->second);
  assumed_original_.erase(orig);
}

void StateCache::expire_assumed(Clock::time_point now) {
  std::unique_lock lock(mu_);
  std::vector<std::string> due;
  for (const auto& [key, a] : assumed_)
    if (a.until <= now) due.push_back(key);
  for (const auto& key : due) restore_assumed_locked(key);
  if (!due.empty() && store_) store_->publish(view_locked());
}

std::shared_ptr<const ClusterState> StateCache::view() {
  std::unique_lock lock(mu_);
  return view_locked();
}

std::shared_ptr<const ClusterState> StateCache::view_locked() {
  auto s = std::make_shared<ClusterState>();
  s->nodes = nodes_.publish();
  s->pod_groups = groups_.publish();
  s->node_labels = node_labels_;
  node_labels_published_ = true;
  s->pods_by_uid = pods_.publish();
  s->node_objects = node_objects_;
  if (pdbs_dirty_) {
    auto v = std::make_shared<std::vector<PodDisruptionBudget>>();
    v->reserve(pdbs_.size());
    for (const auto& [_, b] : pdbs_) v->push_back(b);
    pdb_view_ = std::move(v);
    pdbs_dirty_ = false;
  }
  s->pdbs = pdb_view_;
  if (namespaces_dirty_) {
    namespace_view_ = std::make_shared<const std::map<std::string, Labels, std::less<>>>(namespaces_);
    namespaces_dirty_ = false;
  }
  s->namespace_labels = namespace_view_;
  if (gangs_dirty_) {
    gang_view_ = std::make_shared<const GangMap>(gangs_);
    gangs_dirty_ = false;
  }
  s->gangs = gang_view_;
  if (device_classes_dirty_) {
    auto names = std::make_shared<std::set<std::string, std::less<>>>();
    for (const auto& [_, backed] : device_classes_) names->insert(backed.begin(), backed.end());
    dra_view_ = std::move(names);
    device_classes_dirty_ = false;
  }
  s->dra_extended_resources = dra_view_;
  for (WorkloadKind kind : kWorkloadKinds) {
    auto& ws = workloads_[static_cast<size_t>(kind)];
    if (ws.dirty) {
      auto v = std::make_shared<std::vector<WorkloadSelector>>();
      v->reserve(ws.by_key.size());
      for (const auto& [_, w] : ws.by_key) v->push_back(w);
      ws.view = std::move(v);
      ws.dirty = false;
    }
  }
  s->services = workloads_[static_cast<size_t>(WorkloadKind::kService)].view;
  s->replication_controllers = workloads_[static_cast<size_t>(WorkloadKind::kReplicationController)].view;
  s->replica_sets = workloads_[static_cast<size_t>(WorkloadKind::kReplicaSet)].view;
  s->stateful_sets = workloads_[static_cast<size_t>(WorkloadKind::kStatefulSet)].view;
  return s;
}

void StateCache::count_node_labels(const Labels& labels, int delta) {
  if (node_labels_published_) {
    node_labels_ = std::make_shared<NodeLabelIndex>(*node_labels_);
    node_labels_published_ = false;
  }
  for (const auto& [key, value] : labels) {
    LabelValues& v = (*node_labels_)[key];
    v.nodes += delta;
    if ((v.values[value] += delta) == 0) v.values.erase(value);
    if (v.nodes == 0) node_labels_->erase(key);
  }
}

void StateCache::upsert_node_locked(Node node) {
  std::string name = node.name;
  auto next = std::make_shared<NodeInfo>();
  if (const auto* old = nodes_.find(name)) *next = **old;
  if (!next->node || next->node->labels != node.labels) {
    if (next->node) count_node_labels(next->node->labels, -1);
    count_node_labels(node.labels, 1);
  }
  if (!next->node) ++node_objects_;
  next->node = std::make_shared<const Node>(std::move(node));
  nodes_.put(name, std::move(next));
}

void StateCache::delete_node_locked(const std::string& name) {
  const auto* old = nodes_.find(name);
  if (!old || !(*old)->node) return;
  --node_objects_;
  count_node_labels((*old)->node->labels, -1);
  if ((*old)->pods.empty()) {
    nodes_.erase(name);
    return;
  }
  // Pods still name the node (they are deleted after it): keep their aggregate.
  auto next = std::make_shared<NodeInfo>(**old);
  next->node.reset();
  nodes_.put(name, std::move(next));
}

void StateCache::upsert_pod_locked(Pod pod) {
  std::string key = pod_key(pod);
  if (auto a = assumed_.find(key); a != assumed_.end()) {
    if (!pod.node_name.empty() || pod.is_terminal()) {
      assumed_.erase(a);  // the watch caught up with the bind (or overrode it)
      assumed_original_.erase(key);
    } else {
      // Still unbound as far as the API has shown: keep counting it where we bound it.
      auto info = cached_pod_info(pod);
      assumed_original_[key] = info;
      pod.node_name = a->second.node;
    }
  }
  if (pod.is_terminal()) {
    delete_pod_locked(key);
    return;
  }
  put_pod_info_locked(key, cached_pod_info(std::move(pod)));
}

void StateCache::put_pod_info_locked(const std::string& key, std::shared_ptr<const PodInfo> info) {
  if (const auto* old = pods_.find(key); old && !(*old)->pod->node_name.empty()) {
    node_remove_pod((*old)->pod->node_name, old->get());
  }
  if (!info->pod->node_name.empty()) node_add_pod(info->pod->node_name, info);
  pods_.put(key, std::move(info));
}

void StateCache::delete_pod_locked(const std::string& key) {
  assumed_.erase(key);
  assumed_original_.erase(key);
  const auto* old = pods_.find(key);
  if (!old) return;
  if (!(*old)->pod->node_name.empty()) node_remove_pod((*old)->pod->node_name, old->get());
  pods_.erase(key);
}

void StateCache::node_add_pod(const std::string& node, std::shared_ptr<const PodInfo> info) {
  auto next = std::make_shared<NodeInfo>();
  if (const auto* old = nodes_.find(node)) *next = **old;
  groups_.add(info);
  next->add_pod(std::move(info));
  nodes_.put(node, std::move(next));
}

void StateCache::node_remove_pod(const std::string& node, const PodInfo* info) {
  const auto* old = nodes_.find(node);
  if (!old) return;
  auto next = std::make_shared<NodeInfo>(**old);
  if (next->remove_pod(info)) groups_.remove(info);
  if (!next->node && next->pods.empty()) {
    nodes_.erase(node);
    return;
  }
  nodes_.put(node, std::move(next));
}

}  // namespace kext

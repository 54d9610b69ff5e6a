#include "sim/core/queueing_hints.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "algorithms/label_selector.h"
#include "algorithms/node_selector.h"
#include "algorithms/pod_affinity.h"
#include "algorithms/taints.h"

namespace kext::sim {
namespace {

constexpr std::array<std::pair<std::string_view, Rejector>, 8> kPlugins{{
    {"NodeUnschedulable", Rejector::kNodeUnschedulable},
    {"NodeName", Rejector::kNodeName},
    {"TaintToleration", Rejector::kTaintToleration},
    {"NodeAffinity", Rejector::kNodeAffinity},
    {"NodePorts", Rejector::kNodePorts},
    {"NodeResourcesFit", Rejector::kNodeResourcesFit},
    {"PodTopologySpread", Rejector::kPodTopologySpread},
    {"InterPodAffinity", Rejector::kInterPodAffinity},
}};

// The requested amounts of the resources `pod` asks for (fit.go computePodResourceRequest), each
// checked by `ok(request, allocatable)`; true when any passes (`any`) or all pass.
template <typename Ok>
bool over_requested(const Resources& requests, const Resources& allocatable, bool any, Ok ok) {
  bool seen = false;
  const auto check = [&](int64_t request, int64_t alloc) {
    if (request == 0) return !any;
    seen = true;
    return ok(request, alloc);
  };
  bool result = !any;
  const auto fold = [&](bool r) { result = any ? (result || r) : (result && r); };
  fold(check(requests.milli_cpu, allocatable.milli_cpu));
  fold(check(requests.memory, allocatable.memory));
  fold(check(requests.ephemeral_storage, allocatable.ephemeral_storage));
  for (const ScalarResource& s : requests.scalars) fold(check(s.value, allocatable.scalar(s.name)));
  return any ? (seen && result) : result;
}

// noderesources/fit.go isSchedulableAfterNodeChange: the pod fits the node empty, and on an update
// some resource it requests grew (haveAnyRequestedResourcesIncreased).
bool fit_after_node_change(const Resources& requests, const EventObjects& e) {
  const auto fits = [](int64_t request, int64_t alloc) { return request <= alloc; };
  if (!over_requested(requests, e.new_node->allocatable, false, fits)) return false;
  if (e.old_node == nullptr) return true;
  if (e.new_node->allocatable.pods > e.old_node->allocatable.pods) return true;
  const Resources& before = e.old_node->allocatable;
  const Resources& after = e.new_node->allocatable;
  Resources grown;
  grown.milli_cpu = after.milli_cpu > before.milli_cpu;
  grown.memory = after.memory > before.memory;
  grown.ephemeral_storage = after.ephemeral_storage > before.ephemeral_storage;
  for (const ScalarResource& s : after.scalars) grown.set_scalar(s.name, s.value > before.scalar(s.name));
  return over_requested(requests, grown, true, [](int64_t, int64_t g) { return g != 0; });
}

// nodeaffinity isSchedulableAfterNodeChange: the node matches the pod's required affinity now and
// did not before.
bool affinity_after_node_change(const Pod& pod, const EventObjects& e) {
  if (!match_required_affinity(pod, *e.new_node)) return false;
  return e.old_node == nullptr || !match_required_affinity(pod, *e.old_node);
}

// tainttoleration isSchedulableAfterNodeChange: an untolerated NoSchedule/NoExecute taint is gone.
bool taints_after_node_change(const Pod& pod, const EventObjects& e) {
  const bool was = e.old_node == nullptr ||
                   first_untolerated_scheduling_taint(e.old_node->taints, pod.tolerations) != nullptr;
  return was && first_untolerated_scheduling_taint(e.new_node->taints, pod.tolerations) == nullptr;
}

// nodeunschedulable isSchedulableAfterNodeChange: a schedulable node added, or one made schedulable.
bool unschedulable_after_node_change(const EventObjects& e) {
  if (e.new_node->unschedulable) return false;
  return e.old_node == nullptr || e.old_node->unschedulable;
}

// The pod's DoNotSchedule constraints (podtopologyspread getConstraints; the system default
// constraints are all ScheduleAnyway, so a pod without its own has none).
std::vector<const TopologySpreadConstraint*> hard_constraints(const Pod& pod) {
  std::vector<const TopologySpreadConstraint*> out;
  for (const TopologySpreadConstraint& c : pod.topology_spread_constraints)
    if (c.when_unsatisfiable != "ScheduleAnyway") out.push_back(&c);
  return out;
}

bool has_all_keys(const Node& node, const std::vector<const TopologySpreadConstraint*>& cs) {
  for (const auto* c : cs)
    if (node.labels.find(c->topology_key) == node.labels.end()) return false;
  return true;
}

// podtopologyspread isSchedulableAfterNodeChange: a node with every topology key added, one gaining or
// losing them, or one with them whose key values or taints changed.
bool spread_after_node_change(const Pod& pod, const EventObjects& e) {
  const auto cs = hard_constraints(pod);
  const bool now = has_all_keys(*e.new_node, cs);
  if (e.old_node == nullptr) return now;
  if (has_all_keys(*e.old_node, cs) != now) return true;
  if (!now) return false;
  for (const auto* c : cs)
    if (e.old_node->labels.at(c->topology_key) != e.new_node->labels.at(c->topology_key)) return true;
  return !(e.old_node->taints.size() == e.new_node->taints.size() &&
           std::equal(e.old_node->taints.begin(), e.old_node->taints.end(), e.new_node->taints.begin(),
                      [](const Taint& a, const Taint& b) {
                        return a.key == b.key && a.value == b.value && a.effect == b.effect;
                      }));
}

// podtopologyspread isSchedulableAfterPodChange: an assigned pod of the namespace whose labels a hard
// constraint selects was added or deleted.
bool spread_after_pod_change(const Pod& pod, const PodMeta& other) {
  if (other.namespace_ != pod.namespace_) return false;
  for (const auto* c : hard_constraints(pod))
    if (c->label_selector && label_selector_matches(*c->label_selector, other.labels)) return true;
  return false;
}

// The value of `key` on `node`, or nullptr.
const std::string* label(const Node* node, const std::string& key) {
  auto it = node->labels.find(key);
  return it == node->labels.end() ? nullptr : &it->second;
}

// interpodaffinity isSchedulableAfterNodeChange: a node gaining an affinity term's topology key (or
// changing its value), or losing or changing an anti-affinity term's.
bool affinity_terms_after_node_change(const Pod& pod, const EventObjects& e) {
  if (!pod.affinity) return false;
  for (const PodAffinityTerm& t : pod.affinity->required_affinity) {
    const std::string* after = label(e.new_node, t.topology_key);
    const std::string* before = e.old_node ? label(e.old_node, t.topology_key) : nullptr;
    if (after != nullptr && (before == nullptr || *before != *after)) return true;
  }
  for (const PodAffinityTerm& t : pod.affinity->required_anti_affinity) {
    if (e.old_node == nullptr) return true;
    const std::string* before = label(e.old_node, t.topology_key);
    const std::string* after = label(e.new_node, t.topology_key);
    if (before != nullptr && (after == nullptr || *before != *after)) return true;
  }
  return false;
}

// interpodaffinity isSchedulableAfterPodChange: an added pod that matches every affinity term, or a
// deleted one that matched every anti-affinity term or whose own anti-affinity terms matched this pod.
bool affinity_terms_after_pod_change(const Pod& pod, const EventObjects& e, LabelKeys keys) {
  const std::vector<PodAffinityTerm> none;
  const auto& required = pod.affinity ? pod.affinity->required_affinity : none;
  const auto& anti = pod.affinity ? pod.affinity->required_anti_affinity : none;
  if (e.new_pod != nullptr)
    return pod_matches_all_terms(make_incoming_terms(pod, required, nullptr, keys), *e.new_pod);
  if (e.old_pod == nullptr) return false;
  if (pod_matches_all_terms(make_incoming_terms(pod, anti, nullptr, keys), *e.old_pod)) return true;
  if (!e.old_pod->affinity) return false;
  return pod_matches_all_terms(
      make_incoming_terms(*e.old_pod, e.old_pod->affinity->required_anti_affinity, nullptr, keys), pod);
}

// nodeports isSchedulableAfterPodDeleted: the deleted pod held a host port this pod wants.
bool ports_after_pod_deleted(const Pod& pod, const PodMeta& deleted) {
  for (const HostPort& want : pod.host_ports) {
    for (const HostPort& held : deleted.host_ports) {
      const bool any_ip = want.host_ip.empty() || want.host_ip == "0.0.0.0" || held.host_ip.empty() ||
                          held.host_ip == "0.0.0.0";
      if (want.port == held.port && want.protocol == held.protocol &&
          (any_ip || want.host_ip == held.host_ip))
        return true;
    }
  }
  return false;
}

bool node_hint(Rejector r, const Pod& pod, const Resources& requests, const EventObjects& e) {
  switch (r) {
    case Rejector::kNodeUnschedulable:
      return unschedulable_after_node_change(e);
    case Rejector::kNodeName:
    case Rejector::kNodePorts:
      return e.old_node == nullptr;  // Node/Add registered without a hint: Queue
    case Rejector::kTaintToleration:
      return taints_after_node_change(pod, e);
    case Rejector::kNodeAffinity:
      return affinity_after_node_change(pod, e);
    case Rejector::kNodeResourcesFit:
      return fit_after_node_change(requests, e);
    case Rejector::kPodTopologySpread:
      return spread_after_node_change(pod, e);
    case Rejector::kInterPodAffinity:
      return affinity_terms_after_node_change(pod, e);
    default:
      return true;
  }
}

bool pod_hint(Rejector r, const Pod& pod, const EventObjects& e, LabelKeys keys) {
  const bool deleted = e.event == ClusterEvent::kPodDeleted;
  switch (r) {
    case Rejector::kNodeResourcesFit:
      return deleted;  // any deletion of an assigned pod may free room
    case Rejector::kNodePorts:
      return deleted && ports_after_pod_deleted(pod, *e.old_pod);
    case Rejector::kPodTopologySpread:
      return spread_after_pod_change(pod, deleted ? *e.old_pod : *e.new_pod);
    case Rejector::kInterPodAffinity:
      return affinity_terms_after_pod_change(pod, e, keys);
    case Rejector::kExtender:
    case Rejector::kGang:
    case Rejector::kOther:
      return true;
    default:
      return false;  // node plugins register no pod event
  }
}

}  // namespace

Rejector rejector_of(std::string_view plugin) {
  for (const auto& [name, r] : kPlugins)
    if (name == plugin) return r;
  return Rejector::kOther;
}

bool worth_requeuing(const Pod& pod, const Resources& requests, RejectorSet rejectors, const EventObjects& e,
                     LabelKeys keys) {
  if (rejectors == 0) return true;
  const bool node_event = e.event == ClusterEvent::kNodeAdded || e.event == ClusterEvent::kNodeChanged;
  const bool pod_event = e.event == ClusterEvent::kPodDeleted || e.event == ClusterEvent::kPodUpdated;
  for (uint32_t b = 1; b != 0 && b <= rejectors; b <<= 1) {
    if ((rejectors & b) == 0) continue;
    const auto r = static_cast<Rejector>(b);
    if (r == Rejector::kExtender || r == Rejector::kGang || r == Rejector::kOther) return true;
    if (node_event && e.new_node != nullptr && node_hint(r, pod, requests, e)) return true;
    if (pod_event && (e.old_pod != nullptr || e.new_pod != nullptr) && pod_hint(r, pod, e, keys)) return true;
  }
  return false;
}

}  // namespace kext::sim

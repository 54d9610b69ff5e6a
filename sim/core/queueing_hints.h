#pragma once
// Which unschedulable pods a cluster event moves, as kube-scheduler of a minor decides it: the
// plugins that rejected a pod (QueuedPodInfo.UnschedulablePlugins) and, with SchedulerQueueingHints,
// each such plugin's QueueingHintFn on the event's objects (pkg/scheduler/backend/queue
// scheduling_queue.go isPodWorthRequeuing; the hints of the plugins this project runs, from each
// plugin's EventsToRegister in pkg/scheduler/framework/plugins/*). Without hints the events the
// plugins registered decide alone (podMatchesEvent): the mask the cycle computes
// (QueuedPodInfo::unschedulable_events).
#include <cstdint>
#include <string_view>

#include "algorithms/kube_version.h"
#include "algorithms/model.h"
#include "algorithms/pod_affinity.h"
#include "sim/core/scheduling_queue.h"

namespace kext::sim {

// The minor's changes to the queue and the cycle, each named after what it changes.
namespace scheduler_since {
// since::extender_rejection_requeues (algorithms/kube_version.h) is the extender's requeue.
// SchedulerQueueingHints on by default: 1.28.0 to 1.28.5 (off from 1.28.6 and in 1.29 to 1.31), and
// from 1.32.
inline bool queueing_hints(KubeVersion v) { return v.minor == 28 || v.at_least(32); }
// 1.33 SchedulerPopFromBackoffQ (beta, on): Pop takes podBackoffQ's head when activeQ is empty.
inline bool pop_from_backoff(KubeVersion v) { return v.at_least(33); }
// 1.35 (PR #135231): selectHost draws a Randomizer for each node an extender scored (select_host.h).
inline bool tie_break_among_extender_scored(KubeVersion v) { return v.at_least(35); }
}  // namespace scheduler_since

// A plugin that rejected a pod, as a bit of QueuedPodInfo::rejectors.
enum class Rejector : uint32_t {
  kNodeUnschedulable = 1u << 0,
  kNodeName = 1u << 1,
  kTaintToleration = 1u << 2,
  kNodeAffinity = 1u << 3,
  kNodePorts = 1u << 4,
  kNodeResourcesFit = 1u << 5,
  kPodTopologySpread = 1u << 6,
  kInterPodAffinity = 1u << 7,
  kExtender = 1u << 8,  // framework.ExtenderName: an extender filtered some nodes out
  kGang = 1u << 9,      // the extender's gang gate (Coscheduling: moved by every event, as before)
  kOther = 1u << 10,    // a plugin outside the default profile (the load-aware ones): every event
};
inline RejectorSet bit(Rejector r) { return static_cast<RejectorSet>(r); }

// The rejector bit of a filter plugin's name (kOther for one not in the default profile).
Rejector rejector_of(std::string_view plugin);

// The objects of one event, as the hints read them: the node before and after (before: nullptr for
// an added node), or the assigned pod before and after (after: nullptr for a deleted one; before:
// nullptr for an added one).
struct EventObjects {
  ClusterEvent event = ClusterEvent::kNodeAdded;
  const Node* old_node = nullptr;
  const Node* new_node = nullptr;
  const PodMeta* old_pod = nullptr;
  const PodMeta* new_pod = nullptr;
};

// isPodWorthRequeuing with hints: whether any of `rejectors`' hints says Queue for `pod` (whose
// effective requests are `requests`). A pod with no rejectors is always worth it. `keys`: whether the
// affinity terms' matchLabelKeys join their selectors at the profile's minor (affinity_label_keys).
bool worth_requeuing(const Pod& pod, const Resources& requests, RejectorSet rejectors, const EventObjects& e,
                     LabelKeys keys);

}  // namespace kext::sim

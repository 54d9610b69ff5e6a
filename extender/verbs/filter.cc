// POST /filter: which of the request's nodes the pod fits, and why the others do not.
#include "algorithms/gpu/device_fit.h"
#include "algorithms/namespaced_key.h"
#include "extender/verbs/bind_forward.h"
#include "extender/verbs/verbs.h"
#include "json/json.h"

namespace kext {

namespace {

std::string join_reasons(std::vector<std::string>& reasons) {
  if (reasons.size() == 1) return std::move(reasons[0]);
  std::string out;
  for (const auto& r : reasons) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

constexpr std::string_view kUnknownNode = "node not found in the extender's cluster state";

// Every node of the request lands in exactly one of passed, failed, unresolvable.
FilterReply filter_nodes(const Engine& engine, const Pod& pod, const ResolvedNodes& nodes,
                         const ClusterView* cluster, KubeVersion version) {
  FilterReply reply;
  reply.passed.reserve(nodes.known.size());  // most nodes pass; one allocation instead of eight
  for (size_t i = 0; i < nodes.infos.size(); ++i) {
    if (!nodes.infos[i]) reply.unresolvable.push_back({i, std::string(kUnknownNode)});
  }
  PodContext context(pod, cluster, version);
  std::vector<FilterStatus> statuses = engine.filter(context, nodes.known);
  for (size_t k = 0; k < statuses.size(); ++k) {
    const size_t i = nodes.known_index[k];
    FilterStatus& s = statuses[k];
    switch (s.code) {
      case FilterCode::kSuccess:
        reply.passed.push_back(i);
        break;
      case FilterCode::kUnschedulable:
        reply.failed.push_back({i, join_reasons(s.reasons)});
        break;
      case FilterCode::kUnresolvable:
        reply.unresolvable.push_back({i, join_reasons(s.reasons)});
        break;
    }
  }
  return reply;
}

// A gang member's filter decided by its group (extender/gang/coordinator.h): only the node held for it,
// or none. Unresolvable, so that the scheduler never preempts on these nodes for one member on its own
// (pkg/scheduler/framework/preemption/preemption.go nodesWherePreemptionMightHelp): a group's room
// comes from its admission, with the evictions of the whole group's preemption when the scheduler
// asks /preempt for the nodes its own filters failed (a full cluster).
FilterReply gated_nodes(const GangGate& gate, const ResolvedNodes& nodes) {
  FilterReply reply;
  for (size_t i = 0; i < nodes.infos.size(); ++i) {
    if (!nodes.infos[i]) {
      reply.unresolvable.push_back({i, std::string(kUnknownNode)});
    } else if (gate.kind == GangGate::Kind::kOnlyNode && nodes.infos[i]->name() == gate.node) {
      reply.passed.push_back(i);
    } else {
      reply.unresolvable.push_back({i, gate.reason});
    }
  }
  return reply;
}

}  // namespace

std::optional<Reply> Verbs::holder_decides(std::string_view route, std::string_view body, const Pod& pod,
                                           Origin origin) const {
  if (!gangs_ || !replicas_ || replicas_->holds() || !gang::pod_group_key(pod)) return std::nullopt;
  const std::string what = std::string(route == kHolderFilterRoute ? "filtering" : "preempting for") +
                           " pod " + namespaced_key(pod.namespace_, pod.name) + " (a gang member)";
  if (origin == Origin::kForwarded) {
    return Reply{kNotHolderStatus, json::error_body("not " + what + ": replica " + replicas_->identity() +
                                                    " does not hold the Lease")};
  }
  return replicas_->forward(route, body, what, route == kHolderFilterRoute ? "filter" : "preemption");
}

Reply Verbs::filter_traced(std::string_view body, VerbTrace* trace) const {
  return filter_from(body, trace, Origin::kScheduler);
}

Reply Verbs::holder_filter_traced(std::string_view body, VerbTrace* trace) const {
  return filter_from(body, trace, Origin::kForwarded);
}

Reply Verbs::filter_from(std::string_view body, VerbTrace* trace, Origin origin) const {
  auto decoded = decode_nodes_request("filter", body, trace, state_, &node_cache_, {&pod_cache_, false});
  if (Reply* refused = std::get_if<Reply>(&decoded)) return std::move(*refused);
  auto& [r, nodes] = std::get<NodesRequest>(decoded);
  if (std::optional<Reply> relayed = holder_decides(kHolderFilterRoute, body, *r.args.pod, origin)) {
    r.clock.end(Phase::kCompute);
    r.clock.end(Phase::kEncode);
    if (r.decision) r.decision->gang = "gang member: decided by the Lease holder";
    return std::move(*relayed);
  }

  const auto cluster = cluster_for(profile_.engine, r.state, r.usage);
  GangGate gate;
  std::deque<NodeInfo> held;  // nodes with room held for gang members, as this pod must see them
  if (gangs_) {
    gate = gangs_->gate(*r.args.pod, *r.state, cluster ? &cluster->view : nullptr);
    if (gate.kind == GangGate::Kind::kOrdinary) {
      // With replicas, the room that counts is the one the Lease holder holds.
      const auto room = replicas_ && !replicas_->holds() ? replicas_->holder_room(r.state)
                                                         : gangs_->held_room(r.state.get());
      apply_held_room(*room, nodes.known, held, r.args.pod->uid);
    }
  }
  FilterReply reply = gate.kind == GangGate::Kind::kOrdinary
                          ? filter_nodes(profile_.engine, *r.args.pod, nodes,
                                         cluster ? &cluster->view : nullptr, profile_.version)
                          : gated_nodes(gate, nodes);
  r.clock.end(Phase::kCompute);
  if (gpu_rejected_ && reply.passed.empty() && profile_.gpu_sharing &&
      gpu::pod_request(*r.args.pod, *profile_.gpu_sharing).asks())
    gpu_rejected_(r.args.pod->namespace_, r.args.pod->name);
  Reply out{200, encode_filter_reply(r.args, reply)};
  r.clock.end(Phase::kEncode);
  if (r.decision) {
    // Moved, not copied: the reply no longer needs them.
    r.decision->nodes = std::move(r.args.node_names);
    r.decision->filter = std::move(reply);
    r.decision->gang = gate.group.empty() ? "" : "pod group " + gate.group + ": " + gate.state;
  }
  return out;
}

}  // namespace kext

// POST /preempt: the scheduler offers candidate nodes (with its own victims); the extender re-runs
// victim selection on its cluster state and returns the best node(s) with their victims.
#include <algorithm>
#include <ctime>
#include <optional>

#include "algorithms/gang/pod_group.h"
#include "algorithms/gang/preemption.h"
#include "algorithms/namespaced_key.h"
#include "algorithms/preemption/preemption.h"
#include "extender/verbs/bind_forward.h"
#include "extender/verbs/verbs.h"
#include "json/json.h"
#include "kube/codec/preemption_args.h"

namespace kext {

namespace {

// The node as the dry run must see it: the preemptor itself never counts against a node (a stale state
// may already show it bound from an earlier attempt).
const NodeInfo* without_preemptor(const NodeInfo* info, const std::string& preemptor_uid,
                                  std::vector<std::unique_ptr<NodeInfo>>& owned) {
  if (preemptor_uid.empty()) return info;
  bool present = std::any_of(info->pods.begin(), info->pods.end(),
                             [&](const auto& p) { return p->pod->uid == preemptor_uid; });
  if (!present) return info;
  auto copy = std::make_unique<NodeInfo>(*info);
  copy->remove_pod(preemptor_uid);
  owned.push_back(std::move(copy));
  return owned.back().get();
}

// A node the extender cannot evaluate (no node object in its state): the scheduler's own victims are
// kept as they are, so that node still competes in the ordering. Meta victims must resolve through
// the state; an unknown UID is the caller's error to see.
preemption::Candidate passthrough_candidate(const OfferedVictims& offered, const ClusterState& state,
                                            int64_t now, KubeVersion version) {
  preemption::Candidate c;
  c.node_name = offered.node;
  c.evaluated = false;
  c.num_pdb_violations = offered.num_pdb_violations;
  if (!offered.pods.empty()) {
    for (const Pod& p : offered.pods) {
      c.victims.push_back(
          std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(p), version)));
    }
  } else {
    for (size_t i = 0; i < offered.uids.size(); ++i) {
      const PodInfo* known = state.find_pod(offered.uids[i]);
      if (!known) {
        throw DecodeError("NodeNameToMetaVictims[\"" + offered.node + "\"].Pods[" + std::to_string(i) +
                          "].UID \"" + offered.uids[i] +
                          "\": no such pod in the extender's cluster state, and node \"" + offered.node +
                          "\" is unknown to it too");
      }
      c.victims.push_back(std::make_shared<const PodInfo>(*known));
    }
  }
  std::stable_sort(c.victims.begin(), c.victims.end(), [now](const auto& a, const auto& b) {
    return preemption::more_important_pod(*a->pod, *b->pod, now);
  });
  return c;
}

// The chosen ones are the first `chosen` candidates with victims, in order.
void record_candidates(std::vector<preemption::Candidate>& candidates, size_t chosen, Decision& decision) {
  decision.candidates.reserve(candidates.size());
  size_t taken = 0;
  for (auto& c : candidates) {
    CandidateRecord r;
    r.node = std::move(c.node_name);
    r.num_pdb_violations = c.num_pdb_violations;
    r.decided_by = std::move(c.decided_by);
    r.evaluated = c.evaluated;
    r.chosen = taken < chosen && !c.victims.empty();
    if (r.chosen) ++taken;
    r.victims.reserve(c.victims.size());
    for (const auto& v : c.victims) {
      r.victims.push_back(
          {namespaced_key(v->pod->namespace_, v->pod->name), v->pod->uid, v->pod->effective_priority()});
    }
    decision.candidates.push_back(std::move(r));
  }
}

// PodEligibleToPreemptOthers (default_preemption.go) for the preemptor, its nominated node looked up
// in `state`, under the profile's preemption rules.
bool eligible(const PreemptionArgs& args, const ClusterState& state, const preemption::Options& options) {
  const NodeInfo* nominated =
      args.pod.nominated_node_name.empty() ? nullptr : state.find_node(args.pod.nominated_node_name);
  return preemption::eligible_to_preempt(args.pod, nominated, options.version);
}

// Every candidate node for the preemptor, best first: the nodes the extender evaluates (dry runs on
// its state) and those it passes through with the scheduler's victims. None when the preemptor is not
// eligible. Throws DecodeError for a meta victim the state does not know on a node it does not know.
std::vector<preemption::Candidate> ordered_candidates(const PreemptionArgs& args,
                                                      const std::shared_ptr<const ClusterState>& state_ptr,
                                                      const Engine& engine, const PreemptionProfile& profile,
                                                      int64_t now, std::shared_ptr<const UsageView> usage) {
  const ClusterState& state = *state_ptr;
  if (!eligible(args, state, profile.select)) return {};

  std::vector<std::unique_ptr<NodeInfo>> owned;
  std::vector<const NodeInfo*> known;
  std::vector<preemption::Candidate> candidates;
  for (const OfferedVictims& offered : args.nodes) {
    const NodeInfo* info = state.find_node(offered.node);
    if (info && info->node) {
      known.push_back(without_preemptor(info, args.pod.uid, owned));
    } else if (!offered.uids.empty()) {
      candidates.push_back(passthrough_candidate(offered, state, now, profile.select.version));
    }
  }

  const auto cluster = cluster_for(engine, state_ptr, std::move(usage));
  PodContext pod(args.pod, cluster ? &cluster->view : nullptr, profile.select.version);
  std::vector<preemption::Candidate> evaluated =
      preemption::select_candidates(pod, known, *state.pdbs, engine, now, profile.select);
  candidates.insert(candidates.end(), std::make_move_iterator(evaluated.begin()),
                    std::make_move_iterator(evaluated.end()));
  preemption::order_candidates(candidates, now);
  return candidates;
}

// A gang member's preemption: its whole group's (GangCoordinator::preempt), on the node held for it
// when the scheduler offered that node; nullopt for a member of a complete or running group, which
// preempts as any pod.
std::optional<std::vector<preemption::Candidate>> member_preemption(
    const PreemptionArgs& args, const std::shared_ptr<const ClusterState>& state_ptr, const Profile& profile,
    GangCoordinator& gangs, int64_t now, Decision* decision, std::shared_ptr<const UsageView> usage) {
  const ClusterState& state = *state_ptr;
  const preemption::Options& options = profile.preemption.select;
  if (!eligible(args, state, options)) return std::vector<preemption::Candidate>{};
  const auto cluster = cluster_for(profile.engine, state_ptr, std::move(usage));
  const gang::Evictions evictions{*state.pdbs, now, options.semantics, options.version};
  gang::GroupPreemption p = gangs.preempt(args.pod, state, cluster ? &cluster->view : nullptr, evictions);
  if (decision && !p.group.empty()) decision->gang = "pod group " + p.group + ": " + p.state;
  if (p.kind == gang::GroupPreemption::Kind::kOrdinary) return std::nullopt;
  const bool offered = std::any_of(args.nodes.begin(), args.nodes.end(),
                                   [&](const OfferedVictims& o) { return o.node == p.node; });
  if (!offered) return std::vector<preemption::Candidate>{};
  return gang::member_candidates(p, state.find_node(p.node));
}

// The first `limit` candidates with victims: the scheduler needs victims to act on.
std::vector<ChosenVictims> choose(const std::vector<preemption::Candidate>& candidates, size_t limit) {
  std::vector<ChosenVictims> chosen;
  for (const auto& c : candidates) {
    if (chosen.size() == limit) break;
    if (c.victims.empty()) continue;
    ChosenVictims v{c.node_name, {}, c.num_pdb_violations};
    for (const auto& p : c.victims) v.uids.push_back(p->pod->uid);
    chosen.push_back(std::move(v));
  }
  return chosen;
}

}  // namespace

Reply Verbs::preempt_traced(std::string_view body, VerbTrace* trace) const {
  return preempt_from(body, trace, Origin::kScheduler);
}

Reply Verbs::holder_preempt_traced(std::string_view body, VerbTrace* trace) const {
  return preempt_from(body, trace, Origin::kForwarded);
}

Reply Verbs::preempt_from(std::string_view body, VerbTrace* trace, Origin origin) const {
  auto decoded = decode_request<PreemptionArgs>(
      "preempt", body, trace, &state_,
      [](std::string_view b, PreemptionArgs& args) { args = decode_preemption_args(b); });
  if (Reply* refused = std::get_if<Reply>(&decoded)) return std::move(*refused);
  auto& r = std::get<Request<PreemptionArgs>>(decoded);
  if (std::optional<Reply> relayed = holder_decides(kHolderPreemptRoute, body, r.args.pod, origin)) {
    r.clock.end(Phase::kCompute);
    r.clock.end(Phase::kEncode);
    return std::move(*relayed);
  }

  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  std::vector<preemption::Candidate> candidates;
  std::optional<std::vector<preemption::Candidate>> member;
  if (gangs_ && gang::pod_group_key(r.args.pod))
    member = member_preemption(r.args, r.state, profile_, *gangs_, now, r.decision, r.usage);
  if (member) {
    candidates = std::move(*member);
  } else {
    try {
      candidates = ordered_candidates(r.args, r.state, profile_.engine, profile_.preemption, now, r.usage);
    } catch (const DecodeError& e) {
      return bad_request(e.what());
    }
    if (gangs_) gang::keep_gangs_whole(candidates);
  }
  const std::vector<ChosenVictims> chosen = choose(candidates, profile_.preemption.max_candidates);
  r.clock.end(Phase::kCompute);
  Reply out{200, encode_preemption_reply(chosen)};
  r.clock.end(Phase::kEncode);
  if (r.decision) record_candidates(candidates, chosen.size(), *r.decision);
  return out;
}

}  // namespace kext

#include "algorithms/gang/admission.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "algorithms/gang/preemption.h"
#include "algorithms/namespaced_key.h"

namespace kext::gang {
namespace {

std::string group_prefix(const PodGroupSpec& group) { return "pod group " + group.key() + ": "; }

// "3 Insufficient cpu, 1 node(s) had untolerated taint", most frequent first (then by name), as
// kube-scheduler's FitError summarises a pod's failures.
std::string summarise(const std::vector<FilterStatus>& statuses) {
  std::map<std::string, size_t> counts;
  for (const FilterStatus& s : statuses)
    for (const std::string& r : s.reasons) ++counts[r];
  std::vector<std::pair<std::string, size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [reason, n] : sorted) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
  return out;
}

__int128 free_of(int64_t allocatable, int64_t requested) {
  return std::max<__int128>(0, static_cast<__int128>(allocatable) - requested);
}

std::string to_string(__int128 v) {
  if (v == 0) return "0";
  std::string out;
  const bool negative = v < 0;
  for (; v != 0; v /= 10) out.insert(out.begin(), static_cast<char>('0' + (negative ? -(v % 10) : v % 10)));
  return negative ? "-" + out : out;
}

// The member's preemption on the nodes as placed so far: DefaultPreemption's best node whose victims
// include no gang member (evicting one member stops its whole group's work), or nullopt.
std::optional<preemption::Candidate> preempt_for(const PodContext& member, const Engine& engine,
                                                 std::span<const NodeInfo* const> nodes,
                                                 const Evictions& evictions) {
  preemption::Options options;
  options.semantics = evictions.semantics;
  options.version = evictions.version;
  options.max_candidates = nodes.size();
  std::vector<preemption::Candidate> candidates = preemption::select_candidates(
      member, nodes, evictions.pdbs, engine, evictions.now_unix_seconds, options);
  keep_gangs_whole(candidates);
  for (preemption::Candidate& c : candidates)
    if (!c.victims.empty()) return std::move(c);
  return std::nullopt;
}

// Coscheduling's PreFilter checks (scheduler-plugins pkg/coscheduling/core/core.go PreFilter): the
// group has `need` pending members, and (unless admission may evict) the nodes' free resources cover
// minResources. Why not, or "" when both hold.
std::string prefilter_reason(const PodGroupSpec& group, size_t pending, size_t need,
                             std::span<const NodeInfo* const> nodes, bool evicting) {
  if (pending < need) {
    return group_prefix(group) + std::to_string(pending) + " pods pending of " +
           std::string(group.min_field()) + " " + std::to_string(need);
  }
  if (!evicting && !group.min_resources.requests_nothing()) {
    if (std::string gap = resource_gap(group.min_resources, nodes); !gap.empty())
      return group_prefix(group) + "minResources not free in the cluster: " + gap;
  }
  return "";
}

// The nodes as the members placed so far leave them: a copy of each node that got one (or lost a
// victim), the others as given.
class TrialNodes {
 public:
  TrialNodes(const Engine& engine, std::span<const NodeInfo* const> nodes)
      : engine_(engine), nodes_(nodes), view_(nodes.begin(), nodes.end()), copies_(nodes.size()) {}

  std::span<const NodeInfo* const> view() const { return view_; }

  // The next member's PreFilter state: the victims gone from the nodes as given and the members placed
  // on the nodes as they now are, through the PreFilter extensions (RemovePod, AddPod) as
  // framework/runtime/framework.go addGENominatedPods adds nominated pods.
  void add_to(PodContext& ctx) const {
    for (const auto& [info, i] : evicted_) ctx.remove_pod(*info, *nodes_[i]);
    for (const auto& [info, i] : placed_) ctx.add_pod(*info, *view_[i]);
  }

  // Puts `member` on node `i`, with what the filters reserve for it there (Engine::reserve: its GPU
  // cards), so that the members after it see that taken.
  MemberPlacement place(const std::shared_ptr<const Pod>& member, size_t i) {
    std::shared_ptr<const Pod> reserved = engine_.reserve(member, *view_[i]);
    auto info = std::make_shared<const PodInfo>(make_pod_info(reserved));
    copy_of(i)->add_pod(info);
    placed_.emplace_back(std::move(info), i);
    MemberPlacement out{member->uid, view_[i]->name(), {}, 0, {}};
    if (reserved != member) out.reserved = std::move(reserved);
    return out;
  }

  // Puts `member` where its preemption `c` makes room, evicting the candidate's victims there.
  MemberPlacement place_preempting(const std::shared_ptr<const Pod>& member, preemption::Candidate c) {
    const size_t i =
        static_cast<size_t>(std::find_if(view_.begin(), view_.end(),
                                         [&](const NodeInfo* n) { return n->name() == c.node_name; }) -
                            view_.begin());
    NodeInfo* node = copy_of(i);
    std::vector<std::shared_ptr<const PodInfo>> victims = std::move(c.victims);
    for (const auto& v : victims) {
      node->remove_pod(v->pod->uid);
      evicted_.emplace_back(v, i);
    }
    MemberPlacement out = place(member, i);
    out.victims = std::move(victims);
    out.pdb_violations = c.num_pdb_violations;
    return out;
  }

 private:
  NodeInfo* copy_of(size_t i) {
    if (!copies_[i]) {
      copies_[i] = std::make_unique<NodeInfo>(*nodes_[i]);
      view_[i] = copies_[i].get();
    }
    return copies_[i].get();
  }

  const Engine& engine_;
  std::span<const NodeInfo* const> nodes_;
  std::vector<const NodeInfo*> view_;
  std::vector<std::unique_ptr<NodeInfo>> copies_;
  std::vector<std::pair<std::shared_ptr<const PodInfo>, size_t>> placed_;   // member, node index
  std::vector<std::pair<std::shared_ptr<const PodInfo>, size_t>> evicted_;  // victim, node index
};

// The feasible node (an index into `view`) with the highest combined score, the first on ties:
// schedule_one.go prioritizeNodes then selectHost (which picks among equal scores at random).
size_t select_host(const Engine& engine, const PodContext& ctx, std::span<const NodeInfo* const> view,
                   const std::vector<size_t>& feasible) {
  if (feasible.size() == 1) return feasible.front();
  std::vector<const NodeInfo*> candidates;
  for (size_t i : feasible) candidates.push_back(view[i]);
  const ScoreMatrix scores = engine.score(ctx, candidates, ScoreScale::kSchedulerTotal);
  size_t pick = 0;
  for (size_t k = 1; k < candidates.size(); ++k)
    if (scores.combined[k] > scores.combined[pick]) pick = k;
  return feasible[pick];
}

}  // namespace

std::string resource_gap(const Resources& wanted, std::span<const NodeInfo* const> nodes) {
  __int128 cpu = 0, memory = 0, storage = 0;
  std::map<std::string, __int128, std::less<>> scalars;
  for (const ScalarResource& s : wanted.scalars) scalars[s.name] = 0;
  for (const NodeInfo* n : nodes) {
    if (n->node == nullptr) continue;
    const Resources& a = n->node->allocatable;
    const Resources& r = n->requested;
    cpu += free_of(a.milli_cpu, r.milli_cpu);
    memory += free_of(a.memory, r.memory);
    storage += free_of(a.ephemeral_storage, r.ephemeral_storage);
    for (auto& [name, total] : scalars) total += free_of(a.scalar(name), r.scalar(name));
  }
  auto gap = [](std::string_view name, int64_t want, __int128 have, std::string_view unit) -> std::string {
    if (want <= have) return "";
    return std::string(name) + ": wants " + to_string(want) + std::string(unit) + ", " + to_string(have) +
           std::string(unit) + " free";
  };
  for (std::string g : {gap("cpu", wanted.milli_cpu, cpu, "m"), gap("memory", wanted.memory, memory, ""),
                        gap("ephemeral-storage", wanted.ephemeral_storage, storage, "")})
    if (!g.empty()) return g;
  for (const ScalarResource& s : wanted.scalars)
    if (std::string g = gap(s.name, s.value, scalars[s.name], ""); !g.empty()) return g;
  return "";
}

Admission admit(const Engine& engine, const PodGroupSpec& group,
                std::span<const std::shared_ptr<const Pod>> members, std::span<const NodeInfo* const> nodes,
                const ClusterView* cluster, const Evictions* evictions, const std::vector<size_t>* only) {
  Admission out;
  const size_t need = static_cast<size_t>(std::max(group.min_member, 1));
  out.reason = prefilter_reason(group, members.size(), need, nodes, evictions != nullptr);
  if (!out.reason.empty()) return out;
  TrialNodes trial(engine, nodes);
  std::vector<const NodeInfo*> subset;
  for (size_t m = 0; m < need; ++m) {
    const Pod& pod = *members[m];
    PodContext ctx(pod, cluster);
    engine.prepare(ctx, nodes);
    trial.add_to(ctx);
    // The nodes this member may go on: every node, or `only`'s (index k of `subset` is only[k]).
    std::span<const NodeInfo* const> view = trial.view();
    if (only) {
      subset.clear();
      for (size_t i : *only) subset.push_back(view[i]);
      view = subset;
    }
    const std::vector<FilterStatus> statuses = engine.filter(ctx, view);
    std::vector<size_t> feasible;
    for (size_t i = 0; i < statuses.size(); ++i)
      if (statuses[i].ok()) feasible.push_back(i);
    if (feasible.empty() && evictions) {
      if (std::optional<preemption::Candidate> c = preempt_for(ctx, engine, view, *evictions)) {
        out.placements.push_back(trial.place_preempting(members[m], std::move(*c)));
        continue;
      }
    }
    if (feasible.empty()) {
      out.placements.clear();
      out.reason = group_prefix(group) + "member " + namespaced_key(pod.namespace_, pod.name) +
                   " fits no node with " + std::to_string(m) + " of " + std::to_string(need) +
                   " members placed (" + summarise(statuses) + ")";
      return out;
    }
    const size_t best = select_host(engine, ctx, view, feasible);
    out.placements.push_back(trial.place(members[m], only ? (*only)[best] : best));
  }
  out.admitted = true;
  return out;
}

}  // namespace kext::gang

#include "algorithms/gang/topology.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "algorithms/preemption/pick_node.h"

namespace kext::gang {
namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

int64_t free_of(int64_t allocatable, int64_t requested) {
  return std::max<int64_t>(0, allocatable - requested);
}

// How many requests of `want` fit in `free`; unbounded for a resource not requested.
int64_t times_in(int64_t free, int64_t want) { return want <= 0 ? kUnbounded : free / want; }

// pods_fitting with the node's requests given: `used` (what its pods request) and `pods` (how many).
int64_t fitting(const Resources& allocatable, const Resources& used, int64_t pods, const Resources& request) {
  int64_t n = free_of(allocatable.pods, pods);
  n = std::min(n, times_in(free_of(allocatable.milli_cpu, used.milli_cpu), request.milli_cpu));
  n = std::min(n, times_in(free_of(allocatable.memory, used.memory), request.memory));
  n = std::min(
      n, times_in(free_of(allocatable.ephemeral_storage, used.ephemeral_storage), request.ephemeral_storage));
  for (const ScalarResource& s : request.scalars)
    n = std::min(n, times_in(free_of(allocatable.scalar(s.name), used.scalar(s.name)), s.value));
  return n;
}

std::string quantity_text(int64_t bytes) {
  constexpr int64_t kMi = int64_t{1} << 20, kGi = int64_t{1} << 30;
  if (bytes % kGi == 0) return std::to_string(bytes / kGi) + "Gi";
  if (bytes % kMi == 0) return std::to_string(bytes / kMi) + "Mi";
  return std::to_string(bytes);
}

// MostAllocated across a domain once the group is in it (NodeResourcesFit's placement score in
// KEP-5732): the mean over cpu and memory of requested / allocatable summed over the domain's nodes.
// Higher packs tighter.
double packed_ratio(const Domain& d, std::span<const NodeInfo* const> nodes, const Resources& request,
                    size_t need) {
  double cpu_used = 0, cpu_all = 0, mem_used = 0, mem_all = 0;
  for (size_t i : d.nodes) {
    const NodeInfo& n = *nodes[i];
    cpu_used += static_cast<double>(n.nonzero_requested.milli_cpu);
    mem_used += static_cast<double>(n.nonzero_requested.memory);
    cpu_all += static_cast<double>(n.node->allocatable.milli_cpu);
    mem_all += static_cast<double>(n.node->allocatable.memory);
  }
  cpu_used += static_cast<double>(need) * static_cast<double>(request.milli_cpu);
  mem_used += static_cast<double>(need) * static_cast<double>(request.memory);
  auto ratio = [](double used, double all) { return all <= 0 ? 0.0 : std::min(1.0, used / all); };
  return (ratio(cpu_used, cpu_all) + ratio(mem_used, mem_all)) / 2;
}

// The members' smallest request of each resource: counting with it never undercounts a domain.
Resources smallest_request(std::span<const std::shared_ptr<const Pod>> members, size_t need) {
  Resources out = make_pod_info(members[0]).requests;
  for (size_t m = 1; m < need && m < members.size(); ++m) {
    const Resources r = make_pod_info(members[m]).requests;
    out.milli_cpu = std::min(out.milli_cpu, r.milli_cpu);
    out.memory = std::min(out.memory, r.memory);
    out.ephemeral_storage = std::min(out.ephemeral_storage, r.ephemeral_storage);
    for (ScalarResource& s : out.scalars) s.value = std::min(s.value, r.scalar(s.name));
  }
  return out;
}

std::string group_prefix(const PodGroupSpec& group) { return "pod group " + group.key() + ": "; }

// What a member's preemption may evict: a pod of lower priority, not leaving already, and not a gang
// member (evicting one stops its whole group's work).
bool evictable(const PodMeta& pod, int32_t priority) {
  return pod.effective_priority() < priority && !pod.terminating && !pod_group_key(pod);
}

// The `n` smallest of `values`, summed.
int64_t sum_of_smallest(std::vector<int64_t> values, size_t n) {
  n = std::min(n, values.size());
  std::partial_sort(values.begin(), values.begin() + static_cast<ptrdiff_t>(n), values.end());
  int64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += values[i];
  return sum;
}

// How many of `sizes` (largest first) it takes to reach `deficit`.
int64_t pods_to_free(std::vector<int64_t> sizes, int64_t deficit) {
  if (deficit <= 0) return 0;
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  int64_t freed = 0, n = 0;
  for (int64_t s : sizes) {
    if (freed >= deficit) break;
    freed += s;
    ++n;
  }
  return n;
}

// One domain as the choice sees it: how many members its nodes take, and its packing score. Points
// into the caller's domains, which must outlive it.
struct Ranked {
  const Domain* domain = nullptr;
  int64_t fits = 0;
  double packed = 0;
};

// The steps of one topology-aware admission, on the nodes as held room leaves them.
class TopologyAdmission {
 public:
  TopologyAdmission(const Engine& engine, const PodGroupSpec& group,
                    std::span<const std::shared_ptr<const Pod>> members,
                    std::span<const NodeInfo* const> nodes, std::span<const std::string> levels,
                    const ClusterView* cluster, const Evictions* evictions)
      : engine_(engine),
        group_(group),
        members_(members),
        nodes_(nodes),
        levels_(levels),
        cluster_(cluster),
        evictions_(evictions),
        need_(static_cast<size_t>(std::max(group.min_member, 1))),
        request_(make_pod_info(members[0]).requests),
        smallest_(smallest_request(members, need_)) {
    count_room();
  }

  Admission required(std::string_view key, std::span<const std::string> bound_nodes);
  Admission preferred(std::string_view key, std::span<const size_t> within);

 private:
  void count_room();
  std::vector<Ranked> rank(const std::vector<Domain>& domains) const;
  Admission within(std::span<const size_t> nodes, const Evictions* evictions) const;
  std::optional<Admission> best_single(const std::vector<Domain>& domains) const;
  std::optional<Admission> cheapest_preemption(const std::vector<Domain>& domains) const;
  std::optional<preemption::RankKey> eviction_bound(const Domain& d) const;
  // Members of smallest_ the node takes once the pods a preemptor of `priority` may evict, of
  // priority <= `below_or_at`, are gone.
  int64_t fitting_after_evicting(const NodeInfo& n, int32_t priority, int32_t below_or_at) const {
    Resources kept;
    int64_t kept_pods = 0;
    for (const auto& p : n.pods) {
      if (evictable(*p->pod, priority) && p->pod->effective_priority() <= below_or_at) continue;
      kept.add(p->requests);
      ++kept_pods;
    }
    return fitting(n.node->allocatable, kept, kept_pods, smallest_);
  }
  int64_t fits_without(const Domain& d, int32_t below_or_at) const;
  Admission spread(std::string_view key, std::span<const size_t> within) const;
  std::string no_domain_reason(std::string_view key, const std::vector<Domain>& domains) const;
  const Engine& engine_;
  const PodGroupSpec& group_;
  std::span<const std::shared_ptr<const Pod>> members_;
  std::span<const NodeInfo* const> nodes_;
  std::span<const std::string> levels_;
  const ClusterView* cluster_;
  const Evictions* evictions_;
  size_t need_;
  Resources request_;   // the first member's: what reasons print
  Resources smallest_;  // what counting uses
  // Per node: members its free room takes (0 where the first member's filters fail), members it would
  // take with the pods preemption may evict gone, and members it takes when empty.
  std::vector<int64_t> free_fits_, evicting_fits_, empty_fits_;
};

// One pass of the first member's filters over every node (the rest come from the same template), then
// a count per node: the screen that leaves only the domains worth placing members in one by one.
void TopologyAdmission::count_room() {
  PodContext ctx(*members_[0], cluster_);
  engine_.prepare(ctx, nodes_);
  const std::vector<FilterStatus> statuses = engine_.filter(ctx, nodes_);
  const int32_t priority = members_[0]->effective_priority();
  const int64_t cap = static_cast<int64_t>(need_);
  free_fits_.assign(nodes_.size(), 0);
  evicting_fits_.assign(nodes_.size(), 0);
  empty_fits_.assign(nodes_.size(), 0);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeInfo& n = *nodes_[i];
    if (n.node == nullptr || statuses[i].code == FilterCode::kUnresolvable) continue;
    empty_fits_[i] = std::min(cap, fitting(n.node->allocatable, Resources{}, 0, smallest_));
    if (statuses[i].ok())
      free_fits_[i] = std::min(
          cap, fitting(n.node->allocatable, n.requested, static_cast<int64_t>(n.pods.size()), smallest_));
    if (evictions_ == nullptr) continue;
    // What stays when preemption evicts every pod of lower priority that is not a gang member.
    evicting_fits_[i] =
        std::min(cap, fitting_after_evicting(n, priority, std::numeric_limits<int32_t>::max()));
  }
}

std::vector<Ranked> TopologyAdmission::rank(const std::vector<Domain>& domains) const {
  std::vector<Ranked> out;
  for (const Domain& d : domains) {
    Ranked r{&d, 0, 0};
    for (size_t i : d.nodes) r.fits += free_fits_[i];
    r.packed = packed_ratio(d, nodes_, smallest_, need_);
    out.push_back(r);
  }
  // The tightest packing first, so that a small group goes where it leaves the emptiest domains
  // whole for large ones; then by value, for a stable choice.
  std::stable_sort(out.begin(), out.end(),
                   [](const Ranked& a, const Ranked& b) { return a.packed > b.packed; });
  return out;
}

Admission TopologyAdmission::within(std::span<const size_t> nodes, const Evictions* evictions) const {
  const std::vector<size_t> only(nodes.begin(), nodes.end());
  return admit(engine_, group_, members_, nodes_, cluster_, evictions, &only);
}

// The best-ranked domain whose free room takes the whole group and whose members all pass their
// filters there (TopologyPlacement's candidate placements, each checked pod by pod).
std::optional<Admission> TopologyAdmission::best_single(const std::vector<Domain>& domains) const {
  for (const Ranked& r : rank(domains)) {
    if (r.fits < static_cast<int64_t>(need_)) continue;
    Admission a = within(r.domain->nodes, nullptr);
    if (!a.admitted) continue;
    a.domain = r.domain->text();
    return a;
  }
  return std::nullopt;
}

// The group's total as one preemption candidate, so that pickOneNodeForPreemption's order compares
// domains as it compares nodes.
preemption::Candidate as_candidate(const Domain& d, const Admission& a) {
  preemption::Candidate c;
  c.node_name = d.value;
  for (const MemberPlacement& p : a.placements) {
    c.victims.insert(c.victims.end(), p.victims.begin(), p.victims.end());
    c.num_pdb_violations += p.pdb_violations;
  }
  std::stable_sort(c.victims.begin(), c.victims.end(), [](const auto& x, const auto& y) {
    return x->pod->effective_priority() > y->pod->effective_priority();
  });
  return c;
}

// The members the domain's nodes take once every evictable pod of priority <= `below_or_at` is gone.
int64_t TopologyAdmission::fits_without(const Domain& d, int32_t below_or_at) const {
  const int32_t priority = members_[0]->effective_priority();
  int64_t fits = 0;
  for (size_t i : d.nodes) {
    if (evicting_fits_[i] == 0) continue;
    fits += std::min(static_cast<int64_t>(need_), fitting_after_evicting(*nodes_[i], priority, below_or_at));
  }
  return fits;
}

// No preemption in `d` costs less than this, in pickOneNodeForPreemption's order (lower is better):
// no PDB violation; as highest victim priority, the lowest priority whose pods, all evicted, make room;
// as many victims as it takes, largest first, to free what the group lacks of cpu, memory and pod
// slots; as priority sum, that many of the smallest; and the latest start of any pod it may evict.
// nullopt when evicting every pod it may still leaves no room.
std::optional<preemption::RankKey> TopologyAdmission::eviction_bound(const Domain& d) const {
  const int32_t priority = members_[0]->effective_priority();
  const int64_t need = static_cast<int64_t>(need_);
  int64_t evicting = 0, free_cpu = 0, free_memory = 0, free_slots = 0, latest = 0;
  std::vector<int64_t> cpu, memory, offsets;
  std::vector<int32_t> priorities;
  for (size_t i : d.nodes) {
    if (evicting_fits_[i] == 0) continue;
    evicting += evicting_fits_[i];
    const NodeInfo& n = *nodes_[i];
    free_cpu += free_of(n.node->allocatable.milli_cpu, n.requested.milli_cpu);
    free_memory += free_of(n.node->allocatable.memory, n.requested.memory);
    free_slots += free_of(n.node->allocatable.pods, static_cast<int64_t>(n.pods.size()));
    for (const auto& p : n.pods) {
      if (!evictable(*p->pod, priority)) continue;
      cpu.push_back(p->requests.milli_cpu);
      memory.push_back(p->requests.memory);
      offsets.push_back(int64_t{p->pod->effective_priority()} + (int64_t{1} << 31));
      priorities.push_back(p->pod->effective_priority());
      latest = std::max(latest, p->pod->start_time.value_or(evictions_->now_unix_seconds));
    }
  }
  if (evicting < need || priorities.empty()) return std::nullopt;
  if (std::accumulate(d.nodes.begin(), d.nodes.end(), int64_t{0},
                      [&](int64_t sum, size_t i) { return sum + free_fits_[i]; }) >= need)
    return preemption::RankKey{0, 0, 0, 0, 0, 0};
  std::sort(priorities.begin(), priorities.end());
  priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
  // Room grows as the threshold rises: the lowest threshold that makes room, by bisection.
  size_t lo = 0, hi = priorities.size() - 1;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (fits_without(d, priorities[mid]) >= need)
      hi = mid;
    else
      lo = mid + 1;
  }
  const int64_t victims =
      std::max({pods_to_free(cpu, need * smallest_.milli_cpu - free_cpu),
                pods_to_free(memory, need * smallest_.memory - free_memory), need - free_slots, int64_t{1}});
  return preemption::RankKey{
      1,       0,      priorities[lo], sum_of_smallest(std::move(offsets), static_cast<size_t>(victims)),
      victims, -latest};
}

// The domain whose whole-group preemption costs least. Each domain's cost is a dry run of every
// member's preemption, so domains are tried in the order of a bound of their cost, and the search
// stops at the first whose bound is no better than the cheapest found.
std::optional<Admission> TopologyAdmission::cheapest_preemption(const std::vector<Domain>& domains) const {
  std::vector<std::pair<preemption::RankKey, const Domain*>> bounded;
  for (const Domain& d : domains)
    if (std::optional<preemption::RankKey> b = eviction_bound(d)) bounded.emplace_back(*b, &d);
  std::stable_sort(bounded.begin(), bounded.end(), [](const auto& a, const auto& b) {
    return preemption::compare_keys(a.first, a.second->value, b.first, b.second->value).a_first;
  });
  std::optional<Admission> best;
  preemption::RankKey best_key{};
  std::string best_value;
  for (const auto& [bound, d] : bounded) {
    if (best && !preemption::compare_keys(bound, d->value, best_key, best_value).a_first) break;
    Admission a = within(d->nodes, evictions_);
    if (!a.admitted) continue;
    const preemption::RankKey key = preemption::rank_key(as_candidate(*d, a), evictions_->now_unix_seconds);
    if (best && !preemption::compare_keys(key, d->value, best_key, best_value).a_first) continue;
    a.domain = d->text();
    best = std::move(a);
    best_key = key;
    best_value = d->value;
  }
  return best;
}

std::string TopologyAdmission::no_domain_reason(std::string_view key,
                                                const std::vector<Domain>& domains) const {
  const std::string level(level_name(key));
  const std::string what = std::to_string(need_) + " × " + request_text(request_);
  if (domains.empty()) return group_prefix(group_) + "no node has label " + std::string(key);
  const Domain* largest = nullptr;
  const Domain* best = nullptr;
  int64_t largest_fits = -1, best_fits = -1;
  for (const Domain& d : domains) {
    int64_t empty = 0, free = 0;
    for (size_t i : d.nodes) {
      empty += empty_fits_[i];
      free += free_fits_[i];
    }
    if (empty > largest_fits) largest_fits = empty, largest = &d;
    if (free > best_fits) best_fits = free, best = &d;
  }
  if (largest_fits < static_cast<int64_t>(need_))
    return group_prefix(group_) + "no " + level + " can take " + what + ": the largest, " + largest->text() +
           ", takes " + std::to_string(largest_fits) + " when empty";
  std::string out = group_prefix(group_) + "no " + level + " has room for " + what + ": best " +
                    best->text() + " fits " +
                    std::to_string(std::min<int64_t>(best_fits, static_cast<int64_t>(need_)));
  if (best_fits >= static_cast<int64_t>(need_)) {
    const Admission a = within(best->nodes, nullptr);
    out += ", but " + a.reason.substr(std::min(a.reason.size(), group_prefix(group_).size()));
  }
  return out;
}

Admission TopologyAdmission::required(std::string_view key, std::span<const std::string> bound_nodes) {
  std::vector<Domain> domains = domains_of(key, nodes_);
  // A group that lost a member keeps to the domain its bound members are in.
  if (!bound_nodes.empty())
    std::erase_if(domains, [&](const Domain& d) {
      return std::none_of(d.nodes.begin(), d.nodes.end(), [&](size_t i) {
        return std::find(bound_nodes.begin(), bound_nodes.end(), nodes_[i]->name()) != bound_nodes.end();
      });
    });
  if (std::optional<Admission> a = best_single(domains)) return std::move(*a);
  if (evictions_)
    if (std::optional<Admission> a = cheapest_preemption(domains)) return std::move(*a);
  Admission out;
  out.reason = no_domain_reason(key, domains);
  return out;
}

// As few domains of `key` as the group fits in, within `nodes`: the fewest domains, taken by the
// members their free room takes (most first), whose room covers the group; else every node.
Admission TopologyAdmission::spread(std::string_view key, std::span<const size_t> nodes) const {
  const std::vector<Domain> domains = domains_of(key, nodes_, nodes);
  std::vector<Ranked> ranked = rank(domains);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.fits > b.fits; });
  std::vector<size_t> taken;
  std::string names;
  int64_t fits = 0;
  for (const Ranked& r : ranked) {
    if (fits >= static_cast<int64_t>(need_)) break;
    taken.insert(taken.end(), r.domain->nodes.begin(), r.domain->nodes.end());
    names += (names.empty() ? "" : ", ") + r.domain->value;
    fits += r.fits;
  }
  if (fits >= static_cast<int64_t>(need_)) {
    std::sort(taken.begin(), taken.end());
    Admission a = within(taken, evictions_);
    if (a.admitted) {
      a.domain = std::string(level_name(key)) + "s " + names;
      return a;
    }
  }
  return within(nodes, evictions_);
}

Admission TopologyAdmission::preferred(std::string_view key, std::span<const size_t> nodes) {
  if (std::optional<Admission> a = best_single(domains_of(key, nodes_, nodes))) return std::move(*a);
  // One domain of each coarser level in turn (levels run coarse to fine), the members spread over as
  // few domains of `key` inside it as they fit in.
  const auto at = std::find(levels_.begin(), levels_.end(), key);
  for (auto level = at; at != levels_.end() && level != levels_.begin();) {
    --level;
    const std::vector<Domain> domains = domains_of(*level, nodes_, nodes);
    for (const Ranked& r : rank(domains)) {
      if (r.fits < static_cast<int64_t>(need_)) continue;
      Admission a = spread(key, r.domain->nodes);
      if (!a.admitted) continue;
      a.domain = r.domain->text() + (a.domain.empty() ? "" : " (" + a.domain + ")");
      return a;
    }
  }
  if (evictions_)
    if (std::optional<Admission> a = cheapest_preemption(domains_of(key, nodes_, nodes)))
      return std::move(*a);
  return spread(key, nodes);
}

}  // namespace

std::string_view level_name(std::string_view key) {
  const size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

std::vector<Domain> domains_of(std::string_view key, std::span<const NodeInfo* const> nodes,
                               std::span<const size_t> within) {
  std::map<std::string_view, Domain, std::less<>> by_value;
  for (size_t i : within) {
    const NodeInfo* n = nodes[i];
    if (n == nullptr || n->node == nullptr) continue;
    auto label = n->node->labels.find(key);
    if (label == n->node->labels.end()) continue;
    Domain& d = by_value[label->second];
    if (d.nodes.empty()) d.key = std::string(key), d.value = label->second;
    d.nodes.push_back(i);
  }
  std::vector<Domain> out;
  out.reserve(by_value.size());
  for (auto& [value, d] : by_value) out.push_back(std::move(d));
  return out;
}

std::vector<Domain> domains_of(std::string_view key, std::span<const NodeInfo* const> nodes) {
  std::vector<size_t> all(nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return domains_of(key, nodes, all);
}

int64_t pods_fitting(const NodeInfo& node, const Resources& request) {
  if (node.node == nullptr) return 0;
  return fitting(node.node->allocatable, node.requested, static_cast<int64_t>(node.pods.size()), request);
}

std::string request_text(const Resources& request) {
  std::vector<std::string> parts;
  if (request.milli_cpu > 0)
    parts.push_back(request.milli_cpu % 1000 == 0 ? std::to_string(request.milli_cpu / 1000) + " CPU"
                                                  : std::to_string(request.milli_cpu) + "m CPU");
  if (request.memory > 0) parts.push_back(quantity_text(request.memory));
  if (request.ephemeral_storage > 0)
    parts.push_back(quantity_text(request.ephemeral_storage) + " ephemeral-storage");
  for (const ScalarResource& s : request.scalars)
    if (s.value > 0) parts.push_back(std::to_string(s.value) + " " + s.name);
  if (parts.empty()) return "no resources";
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " + ") + p;
  return out;
}

std::vector<LevelFit> fit_by_level(std::span<const std::string> levels,
                                   std::span<const NodeInfo* const> nodes, const Resources& request,
                                   int32_t size) {
  std::vector<LevelFit> out;
  const int64_t need = std::max<int32_t>(size, 1);
  for (const std::string& key : levels) {
    LevelFit f;
    f.key = key;
    for (const Domain& d : domains_of(key, nodes)) {
      int64_t fits = 0;
      for (size_t i : d.nodes) fits = std::min(need, fits + pods_fitting(*nodes[i], request));
      ++f.domains;
      if (fits >= need) ++f.fitting;
      if (fits > f.best_fits || f.best.empty()) f.best = d.value, f.best_fits = fits;
    }
    out.push_back(std::move(f));
  }
  return out;
}

Admission admit_in_topology(const Engine& engine, const PodGroupSpec& group,
                            std::span<const std::shared_ptr<const Pod>> members,
                            std::span<const NodeInfo* const> nodes, std::span<const std::string> levels,
                            const ClusterView* cluster, const Evictions* evictions,
                            std::span<const std::string> bound_nodes) {
  const size_t need = static_cast<size_t>(std::max(group.min_member, 1));
  if (group.topology.empty() || members.size() < need || nodes.empty())
    return admit(engine, group, members, nodes, cluster, evictions);
  TopologyAdmission t(engine, group, members, nodes, levels, cluster, evictions);
  if (!group.topology.required.empty()) return t.required(group.topology.required, bound_nodes);
  std::vector<size_t> all(nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return t.preferred(group.topology.preferred, all);
}

}  // namespace kext::gang

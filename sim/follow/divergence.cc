#include "sim/follow/divergence.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <deque>
#include <list>
#include <map>
#include <string_view>

#include "common/prometheus_text.h"
#include "json/json.h"
#include "sim/cluster_summary.h"
#include "sim/report/html_parts.h"

namespace kext::simtool::follow {

namespace {

using Clock = std::chrono::steady_clock;

// Where a pod stands in one policy's simulation.
enum class SimState : uint8_t { kPending, kBound, kPreempted };

// Nodes drawn per chart; with more, those whose sides differ most.
constexpr size_t kChartNodesMax = 40;

// The requests one side has on one node.
struct Sum {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t pods = 0;
};

struct Side {
  int32_t node = -1;  // index into State::node_names, -1 for none
  SimState state = SimState::kPending;
  bool compared = false;
};

struct Pod {
  PodFacts facts;
  uint64_t seq = 0;         // first-seen order, for the log
  int32_t production = -1;  // node index; -1 while production has not bound it
  bool row = false;         // seen pending: the comparison is about it (running ones only fill shares)
  bool live = true;
  bool in_recent = false;
  std::vector<Side> sides;  // one per policy
  std::list<Pod*>::iterator recent;
};

void add(Sum& s, const PodFacts& p, int sign) {
  s.milli_cpu += sign * p.milli_cpu;
  s.memory += sign * p.memory;
  s.pods += sign;
}

double ratio(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

double percent(uint64_t agreed, uint64_t compared) {
  return compared == 0 ? 100.0 : 100.0 * static_cast<double>(agreed) / static_cast<double>(compared);
}

}  // namespace

struct Divergence::State {
  std::vector<std::string> policies;
  size_t row_limit = 0;
  Clock::time_point start = Clock::now();
  uint64_t live_events = 0;
  uint64_t next_seq = 0;

  // Nodes, interned: an index is never reused, so pods keep theirs across set_nodes.
  std::unordered_map<std::string, int32_t> node_index;
  std::vector<std::string> node_names;
  std::vector<NodeFacts> node_facts;  // allocatable per index (0 for a node no set_nodes listed)
  std::vector<int32_t> listed;        // set_nodes' order
  std::vector<bool> is_listed;
  std::vector<Sum> production_sums;
  std::vector<std::vector<Sum>> policy_sums;  // [policy][node]

  std::unordered_map<std::string, Pod> pods;
  size_t live = 0;
  std::list<Pod*> recent;           // placed pods, most recently placed first
  std::deque<std::string> deleted;  // uids of the deleted rows held, oldest first

  uint64_t production_pending = 0;
  std::vector<uint64_t> pending, compared, preempted;                     // per policy
  std::vector<uint64_t> decisions, decisions_agreed, decisions_rejected;  // per policy
  std::vector<std::deque<Disagreement>> disagreements;                    // per policy, newest first

  int32_t intern(const std::string& name) {
    if (name.empty()) return -1;
    auto [it, inserted] = node_index.try_emplace(name, static_cast<int32_t>(node_names.size()));
    if (inserted) {
      node_names.push_back(name);
      node_facts.push_back(NodeFacts{name, 0, 0, 0});
      is_listed.push_back(false);
      production_sums.emplace_back();
      for (auto& sums : policy_sums) sums.emplace_back();
    }
    return it->second;
  }

  Pod* find(const std::string& uid) {
    auto it = pods.find(uid);
    return it == pods.end() || !it->second.live ? nullptr : &it->second;
  }

  void touch(Pod& p) {
    if (p.in_recent) {
      recent.splice(recent.begin(), recent, p.recent);
    } else {
      recent.push_front(&p);
      p.recent = recent.begin();
      p.in_recent = true;
    }
  }

  void compare(Pod& p, size_t policy) {
    p.sides[policy].compared = true;
    ++compared[policy];
  }

  void forget(const std::string& uid) {
    auto it = pods.find(uid);
    if (it == pods.end()) return;
    if (it->second.in_recent) recent.erase(it->second.recent);
    pods.erase(it);
  }

  // The nodes in node order: set_nodes' list, then the nodes it did not list that hold a pod on some
  // side, in first-seen order.
  std::vector<int32_t> node_order() const {
    std::vector<int32_t> out = listed;
    for (size_t i = 0; i < node_names.size(); ++i) {
      if (is_listed[i]) continue;
      bool used = production_sums[i].pods > 0;
      for (const auto& sums : policy_sums) used = used || sums[i].pods > 0;
      if (used) out.push_back(static_cast<int32_t>(i));
    }
    return out;
  }

  NodeShare share(int32_t node, const Sum& s) const {
    const NodeFacts& f = node_facts[node];
    return NodeShare{node_names[node],     s.milli_cpu, s.memory,          f.milli_cpu_allocatable,
                     f.memory_allocatable, s.pods,      f.pods_allocatable};
  }

  std::string node_name(int32_t node) const { return node < 0 ? "" : node_names[node]; }

  PodRow row(const Pod& p) const {
    PodRow r{p.facts.pod, p.facts.owner, node_name(p.production), {}};
    r.policies.reserve(p.sides.size());
    for (const Side& s : p.sides)
      r.policies.push_back(s.state == SimState::kPreempted ? kPreempted : node_name(s.node));
    return r;
  }

  // The typical pod of those seen pending (cluster_summary.h typical_pod).
  std::optional<PodShape> typical() const {
    std::vector<Resources> requests;
    for (const auto& [uid, p] : pods) {
      if (!p.row) continue;
      Resources r;
      r.milli_cpu = p.facts.milli_cpu;
      r.memory = p.facts.memory;
      requests.push_back(std::move(r));
    }
    return typical_pod(requests);
  }

  // With at most `rows` recent rows (row_limit at most).
  Snapshot snapshot(size_t rows) const {
    Snapshot out;
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    out.live_events = live_events;
    out.production_pending = production_pending;
    const auto order = node_order();
    out.production_nodes.reserve(order.size());
    for (int32_t n : order) out.production_nodes.push_back(share(n, production_sums[n]));
    for (size_t i = 0; i < policies.size(); ++i) {
      PolicyView v;
      v.name = policies[i];
      v.decisions = decisions[i];
      v.decisions_agreed = decisions_agreed[i];
      v.decisions_rejected = decisions_rejected[i];
      v.decision_agreement_percent = percent(decisions_agreed[i], decisions[i]);
      v.disagreements.assign(disagreements[i].begin(), disagreements[i].end());
      v.compared = compared[i];
      v.pending = pending[i];
      v.preempted = preempted[i];
      v.nodes.reserve(order.size());
      for (int32_t n : order) v.nodes.push_back(share(n, policy_sums[i][n]));
      out.policies.push_back(std::move(v));
    }
    out.typical_pod = typical();
    rows = std::min(rows, row_limit);
    for (auto it = recent.begin(); it != recent.end() && out.recent.size() < rows; ++it)
      out.recent.push_back(row(**it));
    return out;
  }
};

Divergence::Divergence(std::vector<std::string> policies, size_t row_limit)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  const size_t n = policies.size();
  s.policies = std::move(policies);
  s.row_limit = row_limit;
  s.policy_sums.resize(n);
  s.pending.assign(n, 0);
  s.compared.assign(n, 0);
  s.preempted.assign(n, 0);
  s.decisions.assign(n, 0);
  s.decisions_agreed.assign(n, 0);
  s.decisions_rejected.assign(n, 0);
  s.disagreements.resize(n);
}

Divergence::~Divergence() = default;

void Divergence::set_nodes(std::vector<NodeFacts> nodes) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  for (int32_t i : s.listed) s.is_listed[i] = false;
  s.listed.clear();
  for (NodeFacts& n : nodes) {
    const int32_t i = s.intern(n.name);
    if (i < 0 || s.is_listed[i]) continue;  // no name, or listed twice
    s.is_listed[i] = true;
    s.listed.push_back(i);
    s.node_facts[i] = std::move(n);
  }
}

void Divergence::pod_running(const PodFacts& pod, const std::string& node) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  if (pod.uid.empty() || node.empty()) return;
  auto [it, inserted] = s.pods.try_emplace(pod.uid);
  if (!inserted) return;
  const int32_t n = s.intern(node);
  Pod& p = it->second;
  p.facts = pod;
  p.seq = s.next_seq++;
  p.production = n;
  p.sides.assign(s.policies.size(), Side{n, SimState::kBound, false});
  add(s.production_sums[n], pod, +1);
  for (auto& sums : s.policy_sums) add(sums[n], pod, +1);
  ++s.live;
}

void Divergence::pod_pending(const PodFacts& pod) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  if (pod.uid.empty()) return;
  auto [it, inserted] = s.pods.try_emplace(pod.uid);
  if (!inserted) return;
  Pod& p = it->second;
  p.facts = pod;
  p.seq = s.next_seq++;
  p.row = true;
  p.sides.assign(s.policies.size(), Side{});
  ++s.production_pending;
  for (auto& n : s.pending) ++n;
  ++s.live;
}

void Divergence::production_bound(const std::string& uid, const std::string& node) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  Pod* p = s.find(uid);
  if (p == nullptr || p->production >= 0 || node.empty()) return;
  p->production = s.intern(node);
  --s.production_pending;
  add(s.production_sums[p->production], p->facts, +1);
  s.touch(*p);
  for (size_t i = 0; i < p->sides.size(); ++i) {
    if (p->sides[i].state == SimState::kBound && !p->sides[i].compared) s.compare(*p, i);
  }
}

void Divergence::simulated_bound(size_t policy, const std::string& uid, const std::string& node) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  Pod* p = s.find(uid);
  if (p == nullptr || policy >= s.policies.size() || node.empty()) return;
  Side& side = p->sides[policy];
  if (side.state != SimState::kPending) return;
  side.state = SimState::kBound;
  side.node = s.intern(node);
  --s.pending[policy];
  add(s.policy_sums[policy][side.node], p->facts, +1);
  s.touch(*p);
  if (p->production >= 0) s.compare(*p, policy);
}

void Divergence::decision(size_t policy, const std::string& pod, const DecisionVerdict& verdict) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  if (policy >= s.policies.size() || verdict.kind == DecisionVerdict::Kind::kUnjudged) return;
  ++s.decisions[policy];
  if (verdict.agreed()) {
    ++s.decisions_agreed[policy];
    return;
  }
  s.decisions_rejected[policy] += verdict.kind == DecisionVerdict::Kind::kRejected;
  auto& kept = s.disagreements[policy];
  kept.push_front({std::chrono::duration<double>(Clock::now() - s.start).count(), pod, verdict});
  if (kept.size() > kDisagreementsKept) kept.pop_back();
}

Utilisation utilisation(const std::vector<NodeShare>& nodes, const std::optional<PodShape>& typical) {
  ClusterUse use;
  use.nodes = nodes.size();
  for (const NodeShare& n : nodes) {
    use.milli_cpu_requested += n.milli_cpu_requested;
    use.milli_cpu_allocatable += n.milli_cpu_allocatable;
    use.memory_requested += n.memory_requested;
    use.memory_allocatable += n.memory_allocatable;
    use.nodes_used += n.pods > 0;
    // A node whose pod slots the watch did not give has no slot limit here.
    const int64_t slots = n.pods_allocatable > 0 ? n.pods_allocatable : INT64_MAX;
    use.per_node.push_back(NodeUse{n.name, n.milli_cpu_requested, n.milli_cpu_allocatable, n.memory_requested,
                                   n.memory_allocatable, n.pods, slots, GpuUse{}});
  }
  Utilisation u;
  u.nodes = use.nodes;
  u.nodes_used = use.nodes_used;
  u.cpu_percent = 100.0 * ratio(use.milli_cpu_requested, use.milli_cpu_allocatable);
  u.memory_percent = 100.0 * ratio(use.memory_requested, use.memory_allocatable);
  const Fragmentation f = fragmentation(use, typical);
  if (f.cpu) u.cpu_fragmented_percent = 100.0 * *f.cpu;
  if (f.memory) u.memory_fragmented_percent = 100.0 * *f.memory;
  return u;
}

void Divergence::simulated_preempted(size_t policy, const std::string& uid) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  Pod* p = s.find(uid);
  if (p == nullptr || policy >= s.policies.size()) return;
  Side& side = p->sides[policy];
  if (side.state == SimState::kPreempted) return;
  if (side.state == SimState::kBound) add(s.policy_sums[policy][side.node], p->facts, -1);
  if (side.state == SimState::kPending) --s.pending[policy];
  side.state = SimState::kPreempted;
  ++s.preempted[policy];
}

void Divergence::pod_deleted(const std::string& uid) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  Pod* p = s.find(uid);
  if (p == nullptr) return;
  // Its resources leave every side; the row keeps the nodes it was on.
  if (p->production >= 0) {
    add(s.production_sums[p->production], p->facts, -1);
  } else {
    --s.production_pending;
  }
  for (size_t i = 0; i < p->sides.size(); ++i) {
    const Side& side = p->sides[i];
    if (side.state == SimState::kBound) add(s.policy_sums[i][side.node], p->facts, -1);
    if (side.state == SimState::kPending) --s.pending[i];
  }
  p->live = false;
  --s.live;
  if (!p->row) {  // running at first sight: no row to keep
    s.forget(uid);
    return;
  }
  s.deleted.push_back(uid);
  while (s.deleted.size() > s.row_limit) {
    s.forget(s.deleted.front());
    s.deleted.pop_front();
  }
}

void Divergence::count_live_event() {
  std::lock_guard lock(mu_);
  ++state_->live_events;
}

size_t Divergence::live_pods() const {
  std::lock_guard lock(mu_);
  return state_->live;
}

size_t Divergence::rows() const {
  std::lock_guard lock(mu_);
  return state_->pods.size();
}

Snapshot Divergence::snapshot() const {
  std::lock_guard lock(mu_);
  return state_->snapshot(SIZE_MAX);
}

// ---- Prometheus text --------------------------------------------------------------------------------
//
// Labels: `policy` is the configuration's name. The series that exist for production as well as for
// each policy (pending pods, per-node requested shares) carry `side`: "production" (no policy label),
// or "simulated" with the policy label, so that a policy named "production" cannot collide with it.

namespace {

using prom::append_label_value;
using prom::append_number;
using prom::header;

// name{k1="v1",k2="v2"} value
template <typename T>
void sample(std::string& out, std::string_view name,
            std::initializer_list<std::pair<std::string_view, std::string_view>> labels, T value) {
  out.append(name);
  if (labels.size() > 0) {
    out += '{';
    bool first = true;
    for (const auto& [k, v] : labels) {
      if (!first) out += ',';
      first = false;
      out.append(k).append("=\"");
      append_label_value(out, v);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  append_number(out, value);
  out += '\n';
}

}  // namespace

std::string Divergence::prometheus() const {
  Snapshot s;
  {
    std::lock_guard lock(mu_);
    s = state_->snapshot(0);
  }
  std::string out;
  out.reserve(256 + 160 * s.production_nodes.size() * (1 + s.policies.size()));
  header(out, "kube_extender_sim_follow_uptime_seconds", "gauge", "Seconds since the follow started.");
  sample(out, "kube_extender_sim_follow_uptime_seconds", {}, s.seconds);
  header(out, "kube_extender_sim_follow_live_events_total", "counter",
         "Watch events read from the live cluster.");
  sample(out, "kube_extender_sim_follow_live_events_total", {}, s.live_events);
  header(out, "kube_extender_sim_follow_decision_agreement_ratio", "gauge",
         "Of production's bindings, judged on production's cluster just before each, the share whose "
         "node the policy could have chosen, ties counted (1 before any).");
  for (const PolicyView& p : s.policies)
    sample(out, "kube_extender_sim_follow_decision_agreement_ratio", {{"policy", p.name}},
           p.decision_agreement_percent / 100.0);
  header(out, "kube_extender_sim_follow_decisions_total", "counter",
         "Production's bindings judged by the policy, by verdict: agreed, outscored (other nodes score "
         "above production's), rejected (the policy's filters reject production's node).");
  for (const PolicyView& p : s.policies) {
    const uint64_t outscored = p.decisions - p.decisions_agreed - p.decisions_rejected;
    sample(out, "kube_extender_sim_follow_decisions_total", {{"policy", p.name}, {"verdict", "agreed"}},
           p.decisions_agreed);
    sample(out, "kube_extender_sim_follow_decisions_total", {{"policy", p.name}, {"verdict", "outscored"}},
           outscored);
    sample(out, "kube_extender_sim_follow_decisions_total", {{"policy", p.name}, {"verdict", "rejected"}},
           p.decisions_rejected);
  }
  header(out, "kube_extender_sim_follow_preempted_pods_total", "counter",
         "Pods the policy's own preemption evicted from its simulation.");
  for (const PolicyView& p : s.policies)
    sample(out, "kube_extender_sim_follow_preempted_pods_total", {{"policy", p.name}}, p.preempted);
  header(out, "kube_extender_sim_follow_pending_pods", "gauge",
         "Live pods pending: side=\"production\", or side=\"simulated\" in the policy's simulation.");
  sample(out, "kube_extender_sim_follow_pending_pods", {{"side", "production"}}, s.production_pending);
  for (const PolicyView& p : s.policies)
    sample(out, "kube_extender_sim_follow_pending_pods", {{"side", "simulated"}, {"policy", p.name}},
           p.pending);

  const std::pair<const char*, const char*> resources[] = {
      {"kube_extender_sim_follow_node_cpu_requested_ratio", "CPU"},
      {"kube_extender_sim_follow_node_memory_requested_ratio", "memory"}};
  for (const auto& [name, what] : resources) {
    const bool cpu = std::string_view(what) == "CPU";
    auto value = [cpu](const NodeShare& n) {
      return cpu ? ratio(n.milli_cpu_requested, n.milli_cpu_allocatable)
                 : ratio(n.memory_requested, n.memory_allocatable);
    };
    header(out, name, "gauge",
           std::string("The ") + what +
               " the side's live pods on the node request, over its allocatable (0 when unknown).");
    for (const NodeShare& n : s.production_nodes)
      sample(out, name, {{"side", "production"}, {"node", n.name}}, value(n));
    for (const PolicyView& p : s.policies) {
      for (const NodeShare& n : p.nodes)
        sample(out, name, {{"side", "simulated"}, {"policy", p.name}, {"node", n.name}}, value(n));
    }
  }
  return out;
}

// ---- The JSON lines -----------------------------------------------------------------------------------

void Divergence::write_jsonl(std::ostream& out) const {
  std::lock_guard lock(mu_);
  const State& s = *state_;
  std::vector<const Pod*> rows;
  rows.reserve(s.pods.size());
  for (const auto& [uid, p] : s.pods) {
    if (p.row) rows.push_back(&p);
  }
  std::sort(rows.begin(), rows.end(), [](const Pod* a, const Pod* b) { return a->seq < b->seq; });
  const std::vector<int32_t> order = s.node_order();
  const std::optional<PodShape> typical = s.typical();
  rapidjson::StringBuffer buf;
  for (const Pod* p : rows) {
    buf.Clear();
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    const PodRow r = s.row(*p);
    w.StartObject();
    json::write_member(w, "pod", r.pod);
    json::write_member(w, "uid", p->facts.uid);
    json::write_member(w, "owner", r.owner);
    json::write_member(w, "live", p->live);
    json::write_member(w, "production", r.production);
    w.Key("policies");
    w.StartObject();
    for (size_t i = 0; i < r.policies.size(); ++i) {
      json::write_string(w, s.policies[i]);
      json::write_string(w, r.policies[i]);
    }
    w.EndObject();
    w.EndObject();
    out.write(buf.GetString(), static_cast<std::streamsize>(buf.GetSize()));
    out.put('\n');
  }
  for (size_t i = 0; i < s.policies.size(); ++i) {
    buf.Clear();
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    json::write_member(w, "policy", s.policies[i]);
    json::write_member(w, "decisions", s.decisions[i]);
    json::write_member(w, "decisions_agreed", s.decisions_agreed[i]);
    json::write_member(w, "decisions_rejected", s.decisions_rejected[i]);
    json::write_member(w, "decision_agreement_percent", percent(s.decisions_agreed[i], s.decisions[i]));
    std::vector<NodeShare> shares;
    for (int32_t n : order) shares.push_back(s.share(n, s.policy_sums[i][n]));
    const Utilisation u = utilisation(shares, typical);
    w.Key("trajectory");
    w.StartObject();
    json::write_member(w, "pending", s.pending[i]);
    json::write_member(w, "preempted", s.preempted[i]);
    json::write_member(w, "cpu_requested_percent", u.cpu_percent);
    json::write_member(w, "memory_requested_percent", u.memory_percent);
    json::write_member(w, "nodes_used", static_cast<uint64_t>(u.nodes_used));
    for (const auto& [key, value] : {std::pair{"cpu_fragmented_percent", u.cpu_fragmented_percent},
                                     std::pair{"memory_fragmented_percent", u.memory_fragmented_percent}}) {
      w.Key(key);
      if (value) {
        w.Double(*value);
      } else {
        w.Null();
      }
    }
    w.EndObject();
    w.EndObject();
    out.write(buf.GetString(), static_cast<std::streamsize>(buf.GetSize()));
    out.put('\n');
  }
}

// ---- The live page ------------------------------------------------------------------------------------

namespace {

constexpr const char* kFollowStyle =
    R"(.cards{display:flex;flex-wrap:wrap;gap:1em;margin:1em 0}
.card{border:1px solid #d5d5d5;border-radius:6px;padding:.6em 1.1em;min-width:190px;background:#fafafa}
.card .label{color:#555;font-size:.9em}
.card .big{font-size:2.1em;font-weight:600;font-variant-numeric:tabular-nums}
.card .sub{color:#666;font-size:.85em}
.full{stroke:#c0392b;stroke-width:1;stroke-dasharray:4 3}
.scroll{overflow-x:auto;max-width:100%}
.legend{display:flex;flex-wrap:wrap;gap:1.2em;margin:.3em 0 .6em;font-size:.9em}
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border-radius:2px}
table.recent{font-size:13px}
table.recent td{white-space:nowrap;padding:2px 7px}
td.differ{background:#fde2e1;color:#8a1c1c}
td.same{color:#1c6b1c;font-size:.9em}
td.pending,td.preempted{color:#888;font-style:italic}
)";

constexpr const char* kSideColours[] = {"#5d6d7e", "#2e86c1", "#e67e22", "#28b463", "#8e44ad", "#c0392b"};
constexpr size_t kColours = sizeof kSideColours / sizeof kSideColours[0];

const char* colour(size_t side) {
  return kSideColours[side < kColours ? side : 1 + (side - 1) % (kColours - 1)];
}

std::string duration(double seconds) {
  const auto s = static_cast<uint64_t>(std::max(0.0, seconds));
  const uint64_t h = s / 3600, m = s / 60 % 60, sec = s % 60;
  if (h > 0) return std::to_string(h) + " h " + std::to_string(m) + " min";
  if (m > 0) return std::to_string(m) + " min " + std::to_string(sec) + " s";
  return std::to_string(sec) + " s";
}

std::string card(const std::string& label, const std::string& big, const std::vector<std::string>& lines,
                 const std::string& accent = "") {
  std::string out = "<div class=\"card\"" +
                    (accent.empty() ? "" : " style=\"border-top:4px solid " + accent + "\"") +
                    "><div class=\"label\">" + html_escape(label) + "</div><div class=\"big\">" +
                    html_escape(big) + "</div>";
  for (const std::string& l : lines) out += "<div class=\"sub\">" + html_escape(l) + "</div>";
  return out + "</div>\n";
}

std::string svg_text(double x, double y, const char* anchor, const std::string& value,
                     const std::string& extra = "") {
  return "<text x=\"" + fixed(x, 1) + "\" y=\"" + fixed(y, 1) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + html_escape(value) + "</text>";
}

std::string svg_line(const char* cls, double x1, double y1, double x2, double y2) {
  return std::string("<line class=\"") + cls + "\" x1=\"" + fixed(x1, 1) + "\" y1=\"" + fixed(y1, 1) +
         "\" x2=\"" + fixed(x2, 1) + "\" y2=\"" + fixed(y2, 1) + "\"/>";
}

// The sides' names: production, then each policy.
std::vector<std::string> side_names(const Snapshot& s) {
  std::vector<std::string> out{"production"};
  for (const PolicyView& p : s.policies) out.push_back(p.name);
  return out;
}

std::string legend(const std::vector<std::string>& sides) {
  std::string out = "<div class=\"legend\">";
  for (size_t i = 0; i < sides.size(); ++i) {
    out += "<span><span class=\"swatch\" style=\"background:" + std::string(colour(i)) + "\"></span>" +
           html_escape(sides[i]) + "</span>";
  }
  return out + "</div>\n";
}

// One group of bars per node (production first, then each policy), each bar labelled with its value;
// the node's name left of its group. `share_of` reads a side's share of one node.
std::string share_chart(const Snapshot& s, const std::vector<size_t>& nodes, const std::string& resource,
                        double (*share_of)(const NodeShare&)) {
  constexpr double kWidth = 600, kBar = 11, kGap = 2, kGroupGap = 9, kTop = 26, kValue = 54, kChar = 6.4;
  constexpr size_t kNameChars = 32, kNameTail = 14;
  const size_t sides = 1 + s.policies.size();
  auto side_share = [&](size_t side, size_t node) {
    return share_of(side == 0 ? s.production_nodes[node] : s.policies[side - 1].nodes[node]);
  };
  size_t longest = 4;
  for (size_t n : nodes)
    longest = std::max(longest, std::min(s.production_nodes[n].name.size(), kNameChars + 1));
  const double name_width = 12 + kChar * static_cast<double>(longest);
  // The scale: 0..100 %, or further when a node is over-committed (requests above allocatable).
  double top = 1.0;
  for (size_t n : nodes)
    for (size_t side = 0; side < sides; ++side) top = std::max(top, side_share(side, n));
  const double plot = kWidth - name_width - kValue;
  const double group = static_cast<double>(sides) * (kBar + kGap) - kGap + kGroupGap;
  const double height = kTop + group * static_cast<double>(nodes.size()) + 4;
  std::string out = "<svg role=\"img\" aria-label=\"" + html_escape(resource) +
                    " requested per node, production and each policy\" width=\"" + fixed(kWidth, 0) +
                    "\" height=\"" + fixed(height, 0) + "\" viewBox=\"0 0 " + fixed(kWidth, 0) + " " +
                    fixed(height, 0) + "\">";
  // Ticks every 25 %, or a rounder step on a longer scale (at most 5 of them past 0); a dashed line at
  // 100 % (allocatable) then.
  double step = 0.25;
  for (const double nice : {0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
    if (top / step <= 5.0) break;
    step = nice;
  }
  top = std::ceil(top / step - 1e-9) * step;
  const int ticks = static_cast<int>(std::lround(top / step));
  for (int i = 0; i <= ticks; ++i) {
    const double f = step * i;
    const double x = name_width + plot * f / top;
    out += svg_line("grid", x, kTop - 6, x, height - 4);
    out += svg_text(x, 15, "middle", std::to_string(static_cast<int>(std::lround(100 * f))) + " %");
  }
  if (top > 1.0) {
    const double x = name_width + plot / top;
    out += svg_line("full", x, kTop - 6, x, height - 4);
  }
  for (size_t g = 0; g < nodes.size(); ++g) {
    const size_t n = nodes[g];
    const std::string& name = s.production_nodes[n].name;
    const double y0 = kTop + group * static_cast<double>(g);
    const std::string label = name.size() > kNameChars ? name.substr(0, kNameChars - kNameTail) + "…" +
                                                             name.substr(name.size() - kNameTail)
                                                       : name;
    out += svg_text(name_width - 8, y0 + (group - kGroupGap) / 2 + 4, "end", label);
    for (size_t side = 0; side < sides; ++side) {
      const double v = side_share(side, n);
      const double y = y0 + static_cast<double>(side) * (kBar + kGap);
      const double w = std::max(0.0, v) / top * plot;
      const std::string value = fixed(100.0 * v, 1) + " %";
      out += "<rect x=\"" + fixed(name_width, 1) + "\" y=\"" + fixed(y, 1) + "\" width=\"" + fixed(w, 1) +
             "\" height=\"" + fixed(kBar, 1) + "\" fill=\"" + colour(side) + "\"><title>" +
             html_escape(name) + ", " + html_escape(side == 0 ? "production" : s.policies[side - 1].name) +
             ": " + resource + " " + value + "</title></rect>";
      out += svg_text(name_width + w + 4, y + kBar - 2, "start", value, " style=\"font-size:10px\"");
    }
  }
  out += svg_line("axis", name_width, kTop - 6, name_width, height - 4);
  return out + "</svg>\n";
}

double cpu_share(const NodeShare& n) { return ratio(n.milli_cpu_requested, n.milli_cpu_allocatable); }
double memory_share(const NodeShare& n) { return ratio(n.memory_requested, n.memory_allocatable); }

// Which nodes the charts draw: all of them in node order, or the kChartNodesMax whose CPU shares differ
// most between the sides (ties in node order), drawn in node order.
std::vector<size_t> chart_nodes(const Snapshot& s) {
  std::vector<size_t> all(s.production_nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (all.size() <= kChartNodesMax) return all;
  std::vector<double> spread(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    double lo = cpu_share(s.production_nodes[i]), hi = lo;
    for (const PolicyView& p : s.policies) {
      lo = std::min(lo, cpu_share(p.nodes[i]));
      hi = std::max(hi, cpu_share(p.nodes[i]));
    }
    spread[i] = hi - lo;
  }
  std::stable_sort(all.begin(), all.end(), [&](size_t a, size_t b) { return spread[a] > spread[b]; });
  all.resize(kChartNodesMax);
  std::sort(all.begin(), all.end());
  return all;
}

// `held`: how many recent rows there are in all (the snapshot has the newest kRecentShown).
std::string recent_table(const Snapshot& s, size_t held) {
  std::vector<std::string> head{"pod", "owner", "production"};
  for (const PolicyView& p : s.policies) head.push_back(p.name);
  std::string out = "<div class=\"scroll\">\n<table class=\"recent\">\n" + header_row(head);
  const size_t shown = std::min(s.recent.size(), Divergence::kRecentShown);
  for (size_t i = 0; i < shown; ++i) {
    const PodRow& r = s.recent[i];
    out += "<tr>" + cell(r.pod, false) + cell(r.owner.empty() ? "(none)" : r.owner, false);
    out += r.production.empty() ? cell("pending", false, " class=\"pending\"") : cell(r.production, false);
    for (const std::string& node : r.policies) {
      if (node.empty()) {
        out += cell("pending", false, " class=\"pending\"");
      } else if (node == kPreempted) {
        out += cell("preempted", false, " class=\"preempted\"");
      } else if (r.production.empty()) {
        out += cell(node, false);
      } else {
        out += node == r.production ? cell("✓ same node", false, " class=\"same\"") : cell(node, false);
      }
    }
    out += "</tr>\n";
  }
  out += "</table>\n</div>\n";
  if (held > shown) {
    out += "<p class=\"note\">The newest " + std::to_string(shown) + " of " + std::to_string(held) +
           " rows held; the JSON lines log has them all.</p>\n";
  }
  return out;
}

// "CPU 43.1 % · memory 20.0 % · 10/12 nodes used · CPU fragmented 3.2 %"
std::string trajectory_line(const Utilisation& u) {
  return "CPU " + fixed(u.cpu_percent, 1) + " % · memory " + fixed(u.memory_percent, 1) + " % · " +
         std::to_string(u.nodes_used) + "/" + std::to_string(u.nodes) + " nodes used · CPU fragmented " +
         (u.cpu_fragmented_percent ? fixed(*u.cpu_fragmented_percent, 1) + " %" : "–");
}

// Why: the filters' reasons, or the terms that favour the policy's choice.
std::string why(const DecisionVerdict& v) {
  std::string out;
  if (v.kind == DecisionVerdict::Kind::kRejected) {
    for (const std::string& r : v.rejected) out += (out.empty() ? "" : "; ") + r;
    return out;
  }
  for (const TermGap& t : v.terms) out += (out.empty() ? "" : ", ") + t.plugin + " +" + std::to_string(t.gap);
  return out;
}

std::string disagreement_table(const std::vector<Disagreement>& rows) {
  std::string out =
      "<div class=\"scroll\">\n<table class=\"recent\">\n" +
      header_row({"at", "pod", "production", "verdict", "policy's choice", "rank", "gap", "why"});
  for (const Disagreement& d : rows) {
    const DecisionVerdict& v = d.verdict;
    out += "<tr>" + cell(duration(d.seconds), false) + cell(d.pod, false) + cell(v.production_node, false) +
           cell(std::string(kind_name(v.kind)), false, " class=\"differ\"") + cell(v.choice, false) +
           cell(v.rank == 0 ? "–" : std::to_string(v.rank) + " of " + std::to_string(v.feasible), false) +
           cell(v.rank == 0 ? "–" : std::to_string(v.gap), false) + cell(why(v), false) + "</tr>\n";
  }
  return out + "</table>\n</div>\n";
}

}  // namespace

std::string Divergence::html() const {
  Snapshot s;
  size_t live = 0, held = 0;
  {
    std::lock_guard lock(mu_);
    s = state_->snapshot(Divergence::kRecentShown);
    held = std::min(state_->recent.size(), state_->row_limit);
    live = state_->live;
  }
  const auto sides = side_names(s);
  std::string out =
      page_start("extender-sim --follow", "<meta http-equiv=\"refresh\" content=\"5\">\n", kFollowStyle);
  out +=
      "<p class=\"note\">Production's placements against each simulated policy, fed by the live "
      "cluster's watch. Up " +
      html_escape(duration(s.seconds)) + "; " + std::to_string(s.live_events) + " live events; " +
      std::to_string(live) + " live pods; this page reloads every 5 s.</p>\n";

  // Per policy a card of its decision agreement and one of its own trajectory's outcome; production's.
  out += "<div class=\"cards\">\n";
  for (size_t i = 0; i < s.policies.size(); ++i) {
    const PolicyView& p = s.policies[i];
    out += card(p.name + ": decision agreement",
                p.decisions == 0 ? "–" : fixed(p.decision_agreement_percent, 1) + " %",
                {std::to_string(p.decisions_agreed) + " of " + std::to_string(p.decisions) +
                     " of production's decisions",
                 std::to_string(p.decisions_rejected) + " rejected by its filters"},
                colour(i + 1));
    out += card(
        p.name + ": own trajectory", std::to_string(p.pending) + " pending",
        {trajectory_line(utilisation(p.nodes, s.typical_pod)), std::to_string(p.preempted) + " preempted"},
        colour(i + 1));
  }
  out += card("production: pending", std::to_string(s.production_pending),
              {trajectory_line(utilisation(s.production_nodes, s.typical_pod))}, colour(0));
  out += card("live events", std::to_string(s.live_events), {"up " + duration(s.seconds)});
  out += "</div>\n";

  out += "<h2>Requested per node</h2>\n";
  const auto nodes = chart_nodes(s);
  if (nodes.size() < s.production_nodes.size()) {
    out += "<p class=\"note\">The " + std::to_string(nodes.size()) + " of " +
           std::to_string(s.production_nodes.size()) +
           " nodes whose CPU shares differ most between the sides.</p>\n";
  }
  out += legend(sides);
  if (nodes.empty()) {
    out += "<p>No nodes yet.</p>\n";
  } else {
    out += "<div class=\"runs\">\n<div>\n<h3>CPU requested / allocatable</h3>\n" +
           share_chart(s, nodes, "cpu", cpu_share) +
           "</div>\n<div>\n<h3>Memory requested / allocatable</h3>\n" +
           share_chart(s, nodes, "memory", memory_share) + "</div>\n</div>\n";
  }

  out +=
      "<h2>Disagreements</h2>\n<p class=\"note\">Production's most recent decisions each policy "
      "would not have made, judged on production's cluster just before the binding.</p>\n";
  for (const PolicyView& p : s.policies) {
    out += "<h3>" + html_escape(p.name) + "</h3>\n";
    out += p.disagreements.empty() ? "<p>None.</p>\n" : disagreement_table(p.disagreements);
  }
  out += "<h2>Recent pods</h2>\n";
  if (s.recent.empty()) {
    out += "<p>No pod placed yet.</p>\n";
  } else {
    out +=
        "<p class=\"note\">Newest first: where each side placed each pod. A policy's own trajectory "
        "places every pod itself, so after the first tie broken otherwise its cluster is not "
        "production's: a different node here is no disagreement (see above).</p>\n" +
        recent_table(s, held);
  }
  return out + std::string(kPageEnd);
}

}  // namespace kext::simtool::follow

#include "sim/follow/decision.h"

#include <tbb/task_arena.h>

#include <algorithm>

#include "json/json.h"

namespace kext::simtool::follow {

std::string_view kind_name(DecisionVerdict::Kind kind) {
  switch (kind) {
    case DecisionVerdict::Kind::kAgreed:
      return "agreed";
    case DecisionVerdict::Kind::kOutscored:
      return "outscored";
    case DecisionVerdict::Kind::kRejected:
      return "rejected";
    case DecisionVerdict::Kind::kUnjudged:
      break;
  }
  return "unjudged";
}

namespace {

// The weighted terms where the choice (candidate `a`) beats production's node (candidate `b`).
std::vector<TermGap> term_gaps(const sim::CycleConfig& config, const sim::Priorities& p, size_t a, size_t b) {
  const std::vector<sim::ScoreTerm> ta = sim::score_terms(config, p, a);
  const std::vector<sim::ScoreTerm> tb = sim::score_terms(config, p, b);
  std::vector<TermGap> out;
  for (size_t i = 0; i < ta.size() && i < tb.size(); ++i) {
    const int64_t gap = ta[i].weight * ta[i].score - tb[i].weight * tb[i].score;
    if (gap > 0) out.push_back({ta[i].name, gap});
  }
  std::stable_sort(out.begin(), out.end(), [](const TermGap& x, const TermGap& y) { return x.gap > y.gap; });
  return out;
}

}  // namespace

DecisionVerdict judge_decision(const sim::CycleConfig& config, const sim::NodeEvaluation& e,
                               const std::string& production_node, int32_t percentage_of_nodes_to_score) {
  DecisionVerdict v;
  v.production_node = production_node;
  v.feasible = e.feasible.size();
  v.sample = sim::num_feasible_nodes_to_find(e.nodes.size(), percentage_of_nodes_to_score);
  std::optional<size_t> at;  // production's node in e.nodes
  for (size_t i = 0; i < e.nodes.size(); ++i)
    if (e.nodes[i]->name() == production_node) at = i;
  if (!e.feasible.empty()) v.choice = e.nodes[e.feasible.front()]->name();
  if (!at) return v;  // kUnjudged
  if (e.codes[*at] != FilterCode::kSuccess) {
    v.kind = DecisionVerdict::Kind::kRejected;
    v.rejected = e.explained;  // evaluate_every_node explained production's node
    if (v.rejected.empty()) v.rejected.push_back("(no reason given)");
    return v;
  }
  // schedulePod: a single feasible node is taken without scoring.
  if (e.feasible.size() == 1) {
    v.kind = DecisionVerdict::Kind::kAgreed;
    v.rank = 1;
    return v;
  }
  const std::vector<int64_t>& totals = e.priorities.totals;
  const size_t mine =
      static_cast<size_t>(std::lower_bound(e.feasible.begin(), e.feasible.end(), *at) - e.feasible.begin());
  size_t best = 0, above = 0;
  for (size_t k = 0; k < totals.size(); ++k) {
    if (totals[k] > totals[best]) best = k;
    above += totals[k] > totals[mine];
  }
  v.choice = e.nodes[e.feasible[best]]->name();
  v.rank = above + 1;
  v.gap = totals[best] - totals[mine];
  const size_t may_be_above = v.feasible > v.sample ? v.feasible - v.sample : 0;
  if (above <= may_be_above) {
    v.kind = DecisionVerdict::Kind::kAgreed;
    return v;
  }
  v.kind = DecisionVerdict::Kind::kOutscored;
  v.terms = term_gaps(config, e.priorities, best, mine);
  return v;
}

DecisionVerdict judge_binding(const sim::CycleConfig& config, const sim::SimCluster& production,
                              const Pod& pod, const std::string& node) {
  static thread_local tbb::task_arena serial(1);
  DecisionVerdict out;
  serial.execute([&] {
    out = judge_decision(config, sim::evaluate_every_node(config, production, pod, node), node,
                         config.percentage_of_nodes_to_score);
  });
  return out;
}

std::string verdict_json(const std::string& policy, double seconds, const std::string& pod,
                         const DecisionVerdict& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "policy", policy);
  w.Key("decision");
  w.StartObject();
  json::write_member(w, "time", seconds);
  json::write_member(w, "pod", pod);
  json::write_member(w, "production", v.production_node);
  json::write_member(w, "verdict", kind_name(v.kind));
  json::write_member(w, "choice", v.choice);
  json::write_member(w, "feasible", static_cast<uint64_t>(v.feasible));
  json::write_member(w, "sample", static_cast<uint64_t>(v.sample));
  json::write_member(w, "rank", static_cast<uint64_t>(v.rank));
  json::write_member(w, "gap", v.gap);
  w.Key("terms");
  w.StartObject();
  for (const TermGap& t : v.terms) json::write_member(w, t.plugin.c_str(), t.gap);
  w.EndObject();
  w.Key("rejected");
  w.StartArray();
  for (const std::string& r : v.rejected) json::write_string(w, r);
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace kext::simtool::follow

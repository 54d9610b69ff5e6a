#include "sim/capacity/capacity_format.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>

#include "json/json.h"

namespace kext::simtool {

namespace {

// What the count's first line adds when the count stopped early: at --max, or at a budget.
std::string why_stopped(bool at_max, const std::string& budget) {
  std::string out;
  if (at_max) out += " (stopped at --max; there may be room for more)";
  if (!budget.empty())
    out += std::string(" at least (the ") + (budget == "time" ? "time" : "node") + " budget ran out)";
  return out;
}

void write_per_node(rapidjson::Writer<rapidjson::StringBuffer>& w,
                    const std::vector<sim::capacity::NodeCount>& nodes) {
  w.Key("perNode");
  w.StartArray();
  for (const auto& n : nodes) {
    w.StartObject();
    json::write_member(w, "node", n.node);
    json::write_member(w, "pods", n.pods);
    w.EndObject();
  }
  w.EndArray();
}

void write_reasons(rapidjson::Writer<rapidjson::StringBuffer>& w,
                   const std::map<std::string, size_t>& reasons) {
  w.Key("reasons");
  w.StartObject();
  for (const auto& [reason, nodes] : reasons) json::write_member(w, reason.c_str(), nodes);
  w.EndObject();
}

void write_strings(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                   const std::vector<std::string>& items) {
  w.Key(key);
  w.StartArray();
  for (const auto& i : items) json::write_string(w, i);
  w.EndArray();
}

void write_evicted(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                   const std::vector<sim::capacity::EvictedPod>& pods) {
  w.Key(key);
  w.StartArray();
  for (const auto& p : pods) {
    w.StartObject();
    json::write_member(w, "pod", p.pod);
    json::write_member(w, "from", p.from);
    json::write_member(w, "priority", p.priority);
    if (!p.to.empty()) json::write_member(w, "to", p.to);
    if (!p.reason.empty()) json::write_member(w, "reason", p.reason);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string nodes_text(const std::vector<sim::capacity::NodeCount>& per_node) {
  std::string out;
  for (const auto& n : per_node) out += (out.empty() ? "" : ", ") + n.node + " " + std::to_string(n.pods);
  return out;
}

std::string format_capacity(const sim::capacity::CapacityAnswer& answer) {
  std::ostringstream out;
  out << answer.fit << " more of " << answer.pod << " fit";
  out << why_stopped(answer.stopped_at_max, answer.stopped_by_budget);
  out << "\n";
  size_t width = 4;
  for (const auto& n : answer.per_node) width = std::max(width, n.node.size());
  if (!answer.per_node.empty()) {
    out << "  " << std::string("node") << std::string(width - 4 + 2, ' ') << "pods\n";
    for (const auto& n : answer.per_node)
      out << "  " << n.node << std::string(width - n.node.size() + 2, ' ') << n.pods << "\n";
  }
  if (!answer.stopped_at_max && answer.stopped_by_budget.empty())
    out << "the next one does not fit: " << answer.message << "\n";
  return out.str();
}

std::string capacity_json(const sim::capacity::CapacityAnswer& answer) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "pod", answer.pod);
  json::write_member(w, "fit", answer.fit);
  json::write_member(w, "stoppedAtMax", answer.stopped_at_max);
  // "", or which budget ran out (the extender's endpoint): then `fit` is a lower bound.
  json::write_member(w, "stoppedByBudget", answer.stopped_by_budget);
  json::write_member(w, "nodeChecks", answer.node_checks);
  write_per_node(w, answer.per_node);
  write_reasons(w, answer.reasons);
  json::write_member(w, "message", answer.message);
  w.EndObject();
  return buf.GetString();
}

std::string format_groups(const sim::capacity::GroupAnswer& answer) {
  std::ostringstream out;
  out << answer.fit << " more group" << (answer.fit == 1 ? "" : "s") << " of " << answer.size << " ("
      << answer.group << ") fit";
  if (!answer.each_in_one.empty())
    out << ", " << (answer.fit == 1 ? "in one " : "each in one ") << answer.each_in_one;
  out << why_stopped(answer.stopped_at_max, answer.stopped_by_budget);
  out << "\n";
  for (size_t i = 0; i < answer.groups.size(); ++i) {
    const auto& g = answer.groups[i];
    out << "  group " << i << ": " << nodes_text(g.per_node);
    if (!g.domains.empty()) out << " (" << joined(g.domains) << ")";
    out << "\n";
  }
  if (!answer.stopped_at_max && answer.stopped_by_budget.empty())
    out << "the next group does not complete: " << answer.message << "\n";
  return out.str();
}

std::string groups_json(const sim::capacity::GroupAnswer& answer) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "group", answer.group);
  json::write_member(w, "size", answer.size);
  json::write_member(w, "fit", answer.fit);
  json::write_member(w, "eachInOne", answer.each_in_one);
  w.Key("groups");
  w.StartArray();
  for (const auto& g : answer.groups) {
    w.StartObject();
    write_per_node(w, g.per_node);
    write_strings(w, "domains", g.domains);
    w.EndObject();
  }
  w.EndArray();
  json::write_member(w, "stoppedAtMax", answer.stopped_at_max);
  json::write_member(w, "stoppedByBudget", answer.stopped_by_budget);
  json::write_member(w, "nodeChecks", answer.node_checks);
  write_reasons(w, answer.reasons);
  json::write_member(w, "message", answer.message);
  w.EndObject();
  return buf.GetString();
}

std::string format_drain(const sim::capacity::DrainAnswer& a) {
  std::ostringstream out;
  out << "drain " << joined(a.nodes) << ": " << (a.safe ? "safe" : "not safe") << "\n";
  out << "evicted: " << a.placed.size() + a.pending.size() + a.unreplaced.size() << " (" << a.placed.size()
      << " placed elsewhere, " << a.pending.size() << " pending, " << a.unreplaced.size()
      << " of no controller)\n";
  for (const auto& p : a.placed) out << "  " << p.pod << "  " << p.from << " -> " << p.to << "\n";
  for (const auto& p : a.pending)
    out << "  " << p.pod << "  " << p.from << " -> pending: " << p.reason << "\n";
  if (!a.unreplaced.empty())
    out << "not replaced (no controller; kubectl drain needs --force): " << joined(a.unreplaced) << "\n";
  if (!a.preempted.empty()) out << "preempted elsewhere for them: " << joined(a.preempted) << "\n";
  for (const auto& b : a.budgets) {
    out << "PodDisruptionBudget " << b.pdb << ": " << b.evicted << " evicted, " << b.allowed << " allowed"
        << (b.blocks  ? ": blocks the drain (some replacements never run)"
            : b.slows ? ": slows the drain (evictions wait for replacements to run)"
                      : "")
        << "\n";
  }
  if (!a.daemon_pods.empty()) out << "left to their DaemonSets: " << joined(a.daemon_pods) << "\n";
  return out.str();
}

std::string drain_json(const sim::capacity::DrainAnswer& a) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  write_strings(w, "nodes", a.nodes);
  json::write_member(w, "safe", a.safe);
  write_evicted(w, "placed", a.placed);
  write_evicted(w, "pending", a.pending);
  write_strings(w, "unreplaced", a.unreplaced);
  write_strings(w, "daemonPods", a.daemon_pods);
  write_strings(w, "preempted", a.preempted);
  w.Key("budgets");
  w.StartArray();
  for (const auto& b : a.budgets) {
    w.StartObject();
    json::write_member(w, "pdb", b.pdb);
    json::write_member(w, "evicted", b.evicted);
    json::write_member(w, "allowed", b.allowed);
    json::write_member(w, "slows", b.slows);
    json::write_member(w, "blocks", b.blocks);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

std::string format_add_nodes(const sim::capacity::AddNodeAnswer& a) {
  std::ostringstream out;
  const size_t placed = a.fit_already.size() + a.elsewhere.size() +
                        std::accumulate(a.added.begin(), a.added.end(), size_t{0},
                                        [](size_t n, const auto& node) { return n + node.pods.size(); });
  out << "add nodes like " << a.template_node << ": ";
  if (a.pending == 0) {
    out << "the cluster has no pending pod\n";
    return out.str();
  }
  if (a.needed == 0) {
    out << (a.still_pending.empty() ? "not needed" : "none lets another pending pod bind");
  } else {
    out << a.needed << " node" << (a.needed == 1 ? "" : "s");
  }
  out << "; " << placed << " of " << a.pending << " pending pods bind";
  if (a.stopped_at_max) out << " (stopped at --count " << a.tried << "; more nodes may place more)";
  out << "\n";
  if (!a.fit_already.empty()) out << "  with no node added: " << joined(a.fit_already) << "\n";
  for (const auto& n : a.added)
    out << "  " << n.node << ": " << (n.pods.empty() ? "-" : joined(n.pods)) << "\n";
  if (!a.elsewhere.empty())
    out << "  on the cluster's nodes once they are added: " << joined(a.elsewhere) << "\n";
  if (!a.preempted.empty()) out << "preempted for them: " << joined(a.preempted) << "\n";
  if (!a.still_pending.empty()) {
    out << "still pending with " << (a.needed == 0 ? a.tried : a.needed) << " added:\n";
    for (const auto& p : a.still_pending) out << "  " << p.pod << "  " << p.reason << "\n";
  }
  return out.str();
}

std::string add_nodes_json(const sim::capacity::AddNodeAnswer& a) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "template", a.template_node);
  json::write_member(w, "pending", a.pending);
  write_strings(w, "fitAlready", a.fit_already);
  json::write_member(w, "needed", a.needed);
  json::write_member(w, "tried", a.tried);
  w.Key("added");
  w.StartArray();
  for (const auto& n : a.added) {
    w.StartObject();
    json::write_member(w, "node", n.node);
    write_strings(w, "pods", n.pods);
    w.EndObject();
  }
  w.EndArray();
  write_strings(w, "elsewhere", a.elsewhere);
  w.Key("stillPending");
  w.StartArray();
  for (const auto& p : a.still_pending) {
    w.StartObject();
    json::write_member(w, "pod", p.pod);
    json::write_member(w, "reason", p.reason);
    w.EndObject();
  }
  w.EndArray();
  write_strings(w, "preempted", a.preempted);
  json::write_member(w, "stoppedAtMax", a.stopped_at_max);
  w.EndObject();
  return buf.GetString();
}

}  // namespace kext::simtool

#include "sim/capacity/capacity_html.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/capacity/capacity_format.h"
#include "sim/report/html_parts.h"

namespace kext::simtool {
namespace {

// The terminal's first line of an answer: its verdict.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string verdict(const std::string& text) {
  return "<p><strong>" + html_escape(first_line(text)) + "</strong></p>\n";
}

// A table of rows, each a list of cells (a cell that is all digits is a number).
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n" + header_row(header);
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& c : row)
      out += cell(c, !c.empty() && c.find_first_not_of("0123456789") == std::string::npos);
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string per_node_rows_table(const std::vector<sim::capacity::NodeCount>& per_node) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : per_node) rows.push_back({n.node, std::to_string(n.pods)});
  return table({"node", "pods"}, rows);
}

// Why the next one does not fit, as kube-scheduler counts nodes per reason.
std::string reasons_table(const std::string& message, const std::map<std::string, size_t>& reasons) {
  if (message.empty()) return "";
  return "<h3>Why the next does not fit</h3>\n<p>" + html_escape(message) + "</p>\n" +
         count_table("reason", reasons, SIZE_MAX, "nodes");
}

}  // namespace

std::string capacity_html(const sim::capacity::CapacityAnswer& a) {
  return "<h2>How many more of " + html_escape(a.pod) + " fit</h2>\n" + verdict(format_capacity(a)) +
         "<h3>Per node</h3>\n" + per_node_rows_table(a.per_node) + reasons_table(a.message, a.reasons);
}

std::string groups_html(const sim::capacity::GroupAnswer& a) {
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < a.groups.size(); ++i) {
    rows.push_back({std::to_string(i), nodes_text(a.groups[i].per_node), joined(a.groups[i].domains)});
  }
  return "<h2>How many more groups of " + html_escape(a.group) + " fit</h2>\n" + verdict(format_groups(a)) +
         "<h3>Each group</h3>\n" + table({"group", "members per node", "domains"}, rows) +
         reasons_table(a.message, a.reasons);
}

std::string drain_html(const sim::capacity::DrainAnswer& a) {
  std::vector<std::vector<std::string>> evicted;
  for (const auto& p : a.placed) evicted.push_back({p.pod, p.from, std::to_string(p.priority), p.to});
  for (const auto& p : a.pending)
    evicted.push_back({p.pod, p.from, std::to_string(p.priority), "pending: " + p.reason});
  for (const auto& p : a.unreplaced) evicted.push_back({p, "", "", "not replaced (no controller)"});
  std::vector<std::vector<std::string>> budgets;
  for (const auto& b : a.budgets) {
    budgets.push_back({b.pdb, std::to_string(b.evicted), std::to_string(b.allowed),
                       b.blocks  ? "blocks the drain"
                       : b.slows ? "slows the drain"
                                 : "allows it"});
  }
  std::string out = "<h2>Drain " + html_escape(joined(a.nodes)) + "</h2>\n" + verdict(format_drain(a)) +
                    "<h3>Evicted pods</h3>\n" + table({"pod", "from", "priority", "to"}, evicted);
  if (!budgets.empty())
    out += "<h3>PodDisruptionBudgets</h3>\n" + table({"budget", "evicted", "allowed", "verdict"}, budgets);
  if (!a.preempted.empty())
    out += "<p>Preempted elsewhere for them: " + html_escape(joined(a.preempted)) + "</p>\n";
  if (!a.daemon_pods.empty())
    out += "<p>Left to their DaemonSets: " + html_escape(joined(a.daemon_pods)) + "</p>\n";
  return out;
}

std::string add_nodes_html(const sim::capacity::AddNodeAnswer& a) {
  std::vector<std::vector<std::string>> added;
  for (const auto& n : a.added) added.push_back({n.node, std::to_string(n.pods.size()), joined(n.pods)});
  std::vector<std::vector<std::string>> pending;
  for (const auto& p : a.still_pending) pending.push_back({p.pod, p.reason});
  std::string out =
      "<h2>Nodes like " + html_escape(a.template_node) + " added</h2>\n" + verdict(format_add_nodes(a));
  if (!a.fit_already.empty())
    out += "<p>Bind with no node added: " + html_escape(joined(a.fit_already)) + "</p>\n";
  if (!added.empty())
    out += "<h3>The pods each node lets bind</h3>\n" + table({"node", "pods", "which"}, added);
  if (!a.elsewhere.empty())
    out += "<p>On the cluster's nodes once they are added: " + html_escape(joined(a.elsewhere)) + "</p>\n";
  if (!pending.empty()) out += "<h3>Still pending</h3>\n" + table({"pod", "why"}, pending);
  return out;
}

std::string capacity_page(const std::vector<std::pair<std::string, std::string>>& question,
                          const std::string& section) {
  std::string out = page_start("extender-sim capacity");
  out += "<h2>Question</h2>\n<table>\n";
  for (const auto& [name, value] : question)
    out += "<tr><th>" + html_escape(name) + "</th>" + cell(value, false) + "</tr>\n";
  out += "</table>\n" + section;
  return out + std::string(kPageEnd);
}

}  // namespace kext::simtool

#include "sim/report/html_report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>

#include "algorithms/namespaced_key.h"
#include "sim/cluster_summary.h"
#include "sim/report/html_parts.h"

namespace kext::simtool {

namespace {

// Every chart's geometry, in SVG user units: the plot area inside the margins. The left and bottom
// margins hold the tick labels and the axis titles.
constexpr double kWidth = 560;
constexpr double kHeight = 240;
constexpr double kLeft = 64;
constexpr double kRight = 16;
constexpr double kTop = 14;
constexpr double kBottom = 44;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;
// The labelled bar charts: one row per node.
constexpr double kRowHeight = 18;
constexpr double kBarHeight = 12;
constexpr double kBarTop = 24;      // the percentage ticks above the first row
constexpr double kValueWidth = 52;  // "100.0 %" right of the longest bar
constexpr double kCharWidth = 6.4;  // of an 11px sans-serif character, for the name column's width
constexpr size_t kNameChars = 36;   // longer node names are cut (the bar's title has them whole)
constexpr size_t kNameTail = 16;    // of which the end, where cloud names keep their zone and domain
constexpr size_t kMovesShown = 10;  // "by move" rows; the rest are summed in one

// Seconds as short as they print exactly enough ("0", "2.5", "86400").
std::string seconds_value(sim::SimTime t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", std::chrono::duration<double>(t).count());
  return buf;
}

std::string seconds_value(double s) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", s);
  return buf;
}

double share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string text(double x, double y, const std::string& anchor, const std::string& value,
                 const std::string& extra = "") {
  return "<text x=\"" + fixed(x, 1) + "\" y=\"" + fixed(y, 1) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + html_escape(value) + "</text>";
}

std::string line(const char* cls, double x1, double y1, double x2, double y2) {
  return std::string("<line class=\"") + cls + "\" x1=\"" + fixed(x1, 1) + "\" y1=\"" + fixed(y1, 1) +
         "\" x2=\"" + fixed(x2, 1) + "\" y2=\"" + fixed(y2, 1) + "\"/>";
}

// The axes with tick labels (value, label) at fractions of the plot, and the axis titles: the y one
// turned along the axis, in the left margin; the x one under the tick labels.
std::string axes(const std::vector<std::pair<double, std::string>>& y_ticks,
                 const std::vector<std::pair<double, std::string>>& x_ticks, const std::string& y_title,
                 const std::string& x_title) {
  const double x0 = kLeft, y0 = kTop + kPlotHeight;
  std::string out;
  for (const auto& [f, label] : y_ticks) {
    const double y = y0 - f * kPlotHeight;
    if (f > 0) out += line("grid", x0, y, x0 + kPlotWidth, y);
    out += line("axis", x0 - 4, y, x0, y) + text(x0 - 6, y + 4, "end", label);
  }
  for (const auto& [f, label] : x_ticks) {
    const double x = x0 + f * kPlotWidth;
    // The first and last labels stay inside the chart.
    const std::string anchor = f <= 0 ? "start" : f >= 1 ? "end" : "middle";
    out += line("axis", x, y0, x, y0 + 4) + text(x, y0 + 16, anchor, label);
  }
  out += line("axis", x0, kTop, x0, y0) + line("axis", x0, y0, x0 + kPlotWidth, y0);
  out += text(14, kTop + kPlotHeight / 2, "middle", y_title,
              " class=\"title\" transform=\"rotate(-90 14 " + fixed(kTop + kPlotHeight / 2, 1) + ")\"");
  out += text(x0 + kPlotWidth / 2, kHeight - 8, "middle", x_title, " class=\"title\"");
  return out;
}

std::string svg_open(const std::string& label, double width, double height) {
  return "<svg role=\"img\" aria-label=\"" + html_escape(label) + "\" width=\"" + fixed(width, 0) +
         "\" height=\"" + fixed(height, 0) + "\" viewBox=\"0 0 " + fixed(width, 0) + " " + fixed(height, 0) +
         "\">";
}

// Pending pods over time as a step line from 0 to `t_max`, on a 0..`v_max` axis. data-series keeps
// the points as "seconds,pods" pairs.
std::string pending_chart(const sim::RunSummary& s, sim::SimTime t_max, size_t v_max) {
  const double span = std::chrono::duration<double>(t_max).count();
  auto x = [&](sim::SimTime t) {
    const double at = std::chrono::duration<double>(t).count();
    return kLeft + (span > 0 ? at / span : 0.0) * kPlotWidth;
  };
  auto y = [&](size_t v) {
    return kTop + kPlotHeight - static_cast<double>(v) / static_cast<double>(v_max) * kPlotHeight;
  };
  std::string points, series;
  auto point = [&](double px, double py) {
    if (!points.empty()) points += ' ';
    points += fixed(px, 1) + "," + fixed(py, 1);
  };
  const auto& p = s.pending_over_time;
  for (size_t i = 0; i < p.size(); ++i) {
    if (i > 0) point(x(p[i].first), y(p[i - 1].second));  // the step: flat until the change
    point(x(p[i].first), y(p[i].second));
    if (!series.empty()) series += ' ';
    series += seconds_value(p[i].first) + "," + std::to_string(p[i].second);
  }
  if (!p.empty() && p.back().first < t_max) point(x(t_max), y(p.back().second));
  // Whole pods on the y ticks: 0, the middle when it is one, the maximum.
  std::vector<std::pair<double, std::string>> y_ticks = {{0.0, "0"}};
  if (v_max >= 2 && v_max % 2 == 0) y_ticks.emplace_back(0.5, std::to_string(v_max / 2));
  y_ticks.emplace_back(1.0, std::to_string(v_max));
  std::vector<std::pair<double, std::string>> x_ticks;
  for (int i = 0; i <= 4; ++i) {
    if (span <= 0 && i > 0) break;
    x_ticks.emplace_back(i / 4.0, seconds_value(span * i / 4.0));
  }
  std::string out = svg_open("pods pending over simulated time", kWidth, kHeight);
  out += axes(y_ticks, x_ticks, "pods pending", "simulated time (s)");
  out += "<polyline class=\"pending\" data-series=\"" + series + "\" points=\"" + points + "\"/>";
  return out + "</svg>";
}

using Bars = std::vector<std::pair<double, const NodeUse*>>;

// Every node as a thin unlabelled bar, fullest first: the shape of the whole cluster when it has too
// many nodes to name.
std::string distribution_chart(const Bars& bars, const std::string& resource) {
  std::string out = svg_open(resource + " requested per node, all nodes, fullest first", kWidth, kHeight);
  out += axes({{0.0, "0 %"}, {0.5, "50 %"}, {1.0, "100 %"}}, {{0.0, "1"}, {1.0, std::to_string(bars.size())}},
              "requested", "nodes, fullest first");
  const double width = bars.empty() ? 0 : kPlotWidth / static_cast<double>(bars.size());
  for (size_t i = 0; i < bars.size(); ++i) {
    const double h = std::clamp(bars[i].first, 0.0, 1.0) * kPlotHeight;
    out += "<rect class=\"" + resource + "\" x=\"" + fixed(kLeft + width * static_cast<double>(i), 2) +
           "\" y=\"" + fixed(kTop + kPlotHeight - h, 2) + "\" width=\"" + fixed(std::max(width, 0.1), 2) +
           "\" height=\"" + fixed(h, 2) + "\"><title>" + html_escape(bars[i].second->name) + ": " + resource +
           " " + fixed(100.0 * bars[i].first, 1) + " %</title></rect>";
  }
  return out + "</svg>";
}

// One row per node: its name, a bar of its requested share (0..100 %) and the value.
std::string labelled_chart(const Bars& bars, const std::string& resource) {
  size_t longest = 4;
  for (const auto& [f, n] : bars) longest = std::max(longest, std::min(n->name.size(), kNameChars + 1));
  const double name_width = 10 + kCharWidth * static_cast<double>(longest);
  const double plot = kWidth - name_width - kValueWidth;
  const double height = kBarTop + kRowHeight * static_cast<double>(bars.size()) + 6;
  std::string out = svg_open(resource + " requested per node, fullest first", kWidth, height);
  for (int i = 0; i <= 4; ++i) {
    const double x = name_width + plot * i / 4.0;
    out += line("grid", x, kBarTop - 4, x, height - 4);
    out += text(x, 14, "middle", std::to_string(25 * i) + " %");
  }
  for (size_t i = 0; i < bars.size(); ++i) {
    const NodeUse& n = *bars[i].second;
    const double row = kBarTop + kRowHeight * static_cast<double>(i);
    const double w = std::clamp(bars[i].first, 0.0, 1.0) * plot;
    const std::string percent = fixed(100.0 * bars[i].first, 1) + " %";
    // Cut in the middle: both ends tell nodes apart (ip-10-0-1-15.eu-west…compute.internal).
    const std::string label = n.name.size() > kNameChars ? n.name.substr(0, kNameChars - kNameTail) + "…" +
                                                               n.name.substr(n.name.size() - kNameTail)
                                                         : n.name;
    out += text(name_width - 6, row + 13, "end", label);
    out += "<rect class=\"" + resource + "\" x=\"" + fixed(name_width, 2) + "\" y=\"" + fixed(row + 3, 2) +
           "\" width=\"" + fixed(w, 2) + "\" height=\"" + fixed(kBarHeight, 2) + "\"><title>" +
           html_escape(n.name) + ": " + resource + " " + percent + "</title></rect>";
    out += text(name_width + w + 4, row + 13, "start", percent);
  }
  out += line("axis", name_width, kBarTop - 4, name_width, height - 4);
  return out + "</svg>";
}

// The nodes sorted by their requested share of `resource` (highest first, ties in node order): all
// of them labelled, or the whole distribution and the fullest kLabelledBarsMax labelled.
std::string use_chart(const ClusterUse& use, const std::string& resource,
                      const std::function<double(const NodeUse&)>& share_of) {
  Bars bars;
  bars.reserve(use.per_node.size());
  for (const NodeUse& n : use.per_node) bars.emplace_back(share_of(n), &n);
  std::stable_sort(bars.begin(), bars.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (bars.size() <= kLabelledBarsMax) return labelled_chart(bars, resource);
  std::string out = distribution_chart(bars, resource) + "\n<p class=\"note\">The fullest " +
                    std::to_string(kLabelledBarsMax) + " of " + std::to_string(bars.size()) + " nodes:</p>\n";
  bars.resize(kLabelledBarsMax);
  return out + labelled_chart(bars, resource);
}

// The inputs, seed and flags that shaped the run: what someone reading the report needs to run it again.
std::string inputs_table(const SimCommand& c) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (!c.cluster_file.empty()) rows.emplace_back("--cluster", c.cluster_file);
  if (!c.kubeconfig.empty()) {
    rows.emplace_back("--kubeconfig", c.kubeconfig);
    rows.emplace_back("--context", c.kube_context.empty() ? "(current-context)" : c.kube_context);
  }
  if (!c.record_dir.empty()) rows.emplace_back("--record-dir", c.record_dir);
  rows.emplace_back("--workload", c.workload_file.empty() ? "(none)" : c.workload_file);
  const char* no_config =
      c.extender_url.empty() ? "(kube-scheduler 1.26 default profile)" : "(embedded default)";
  rows.emplace_back("--config", c.config_file.empty() ? no_config : c.config_file);
  if (!c.scheduler_config_file.empty()) rows.emplace_back("--scheduler-config", c.scheduler_config_file);
  if (c.extender_weight) rows.emplace_back("--extender-weight", std::to_string(*c.extender_weight));
  if (!c.compare_file.empty()) rows.emplace_back("--compare", c.compare_file);
  rows.emplace_back("--seed", std::to_string(c.seed));
  rows.emplace_back("--max-time", seconds_value(c.max_time_seconds) + " s");
  rows.emplace_back("--runtime", c.runtime_seconds ? seconds_value(*c.runtime_seconds) + " s" : "never");
  rows.emplace_back("--arrival-interval", seconds_value(c.arrival_interval_seconds) + " s");
  rows.emplace_back("--percentage-of-nodes-to-score", c.percentage_of_nodes_to_score == 0
                                                          ? "0 (adaptive)"
                                                          : std::to_string(c.percentage_of_nodes_to_score));
  if (!c.extender_url.empty()) rows.emplace_back("--extender", c.extender_url);
  std::string out = "<table class=\"inputs\">\n";
  for (const auto& [flag, value] : rows)
    out += "<tr><th>" + html_escape(flag) + "</th>" + cell(value, false) + "</tr>\n";
  return out + "</table>\n";
}

std::string configurations(const std::vector<ReportRun>& runs) {
  std::string out;
  if (runs.size() == 2) {
    const auto diff = line_diff(runs[0].result->configuration, runs[1].result->configuration);
    out += "<h3>Configuration difference (- " + html_escape(runs[0].name) + ", + " +
           html_escape(runs[1].name) + ")</h3>\n";
    if (diff.empty()) {
      out += "<p>The two configurations are the same.</p>\n";
    } else {
      out += "<pre class=\"diff\">";
      for (const auto& l : diff) {
        const char* cls = l.starts_with("-") ? "del" : l.starts_with("+") ? "add" : l == "…" ? "gap" : "";
        if (*cls != '\0') {
          out += std::string("<span class=\"") + cls + "\">" + html_escape(l) + "</span>";
        } else {
          out += html_escape(l) + "\n";
        }
      }
      out += "</pre>\n";
    }
  }
  out += "<div class=\"runs\">\n";
  for (const ReportRun& r : runs) {
    out += "<div>\n<h3>Configuration: " + html_escape(r.name) + "</h3>\n<details open><summary>" +
           "as kube-extender --write-config writes it</summary>\n<pre class=\"config\">" +
           html_escape(r.result->configuration) + "</pre>\n</details>\n</div>\n";
  }
  return out + "</div>\n";
}

// The preemptions: each preemptor, its priority and node, and each of its victims with theirs; a
// victim an earlier preemptor chose already is marked (the summary counts it once).
std::string evictions_table(const std::string& name, const SimResult& res) {
  std::string out = "<h2>Evictions (" + html_escape(name) + "): " + std::to_string(res.evictions.size()) +
                    " preemptions, " + std::to_string(res.summary.victims) + " pods evicted</h2>\n";
  if (res.evictions.empty()) return out + "<p>No preemptions.</p>\n";
  out += "<table class=\"evictions\">\n" +
         header_row({"time (s)", "preemptor", "priority", "node", "victim", "victim priority"});
  std::map<std::string, bool> seen;
  for (const Eviction& e : res.evictions) {
    const size_t rows = std::max<size_t>(e.victims.size(), 1);
    const std::string span = rows > 1 ? " rowspan=\"" + std::to_string(rows) + "\"" : "";
    out += "<tr>" + cell(seconds_value(e.at), true, span) + cell(e.preemptor, false, span) +
           cell(std::to_string(e.priority), true, span) + cell(e.node, false, span);
    if (e.victims.empty()) out += cell("", false) + cell("", true) + "</tr>\n";
    for (size_t i = 0; i < e.victims.size(); ++i) {
      if (i > 0) out += "<tr>";
      const EvictedPod& v = e.victims[i];
      const bool again = seen[v.pod];
      seen[v.pod] = true;
      out += cell(v.pod + (again ? " (already terminating)" : ""), false) +
             cell(std::to_string(v.priority), true) + "</tr>\n";
    }
  }
  return out + "</table>\n";
}

// With usage samples: per node, its CPU requests' peak and its usage's p95 and peak as shares of its
// allocatable, the most used first (at most kLabelledBarsMax nodes, as the charts).
std::string node_usage_table(const std::string& name, const SimResult& res) {
  std::vector<sim::NodeUsageSummary> nodes = res.summary.node_usage;
  if (nodes.empty()) return "";
  const auto peak = [](const sim::NodeUsageSummary& n) {
    return share(n.used_peak_milli_cpu, n.allocatable_milli_cpu);
  };
  std::stable_sort(nodes.begin(), nodes.end(),
                   [&](const auto& a, const auto& b) { return peak(a) > peak(b); });
  std::string out = "<h2>Node usage (" + html_escape(name) + "): CPU, of allocatable</h2>\n";
  if (nodes.size() > kLabelledBarsMax) {
    out += "<p>The " + std::to_string(kLabelledBarsMax) + " most used of " + std::to_string(nodes.size()) +
           " nodes.</p>\n";
    nodes.resize(kLabelledBarsMax);
  }
  out += "<table class=\"node-usage\">\n" + header_row({"node", "requested peak", "usage p95", "usage peak"});
  const auto percent = [](int64_t part, int64_t whole) {
    return whole <= 0 ? std::string("-") : fixed(100.0 * share(part, whole), 1) + " %";
  };
  for (const sim::NodeUsageSummary& n : nodes) {
    out += "<tr>" + cell(n.node, false) +
           cell(percent(n.requested_peak_milli_cpu, n.allocatable_milli_cpu), true) +
           cell(percent(n.used_p95_milli_cpu, n.allocatable_milli_cpu), true) +
           cell(percent(n.used_peak_milli_cpu, n.allocatable_milli_cpu), true) + "</tr>\n";
  }
  return out + "</table>\n";
}

// Gang scheduling: each pod group's timeline (admitted, complete, timed out, deleted), in time order.
std::string pod_groups_table(const std::string& name, const SimResult& res) {
  if (!res.summary.gangs) return "";
  const auto& events = res.summary.gang_events;
  std::string out =
      "<h2>Pod groups (" + html_escape(name) + "): " + std::to_string(events.size()) + " events</h2>\n";
  if (events.empty()) return out + "<p>No pod group was admitted.</p>\n";
  out += "<table class=\"pod-groups\">\n" + header_row({"time (s)", "pod group", "event"});
  for (const sim::GangEvent& e : events) {
    out += "<tr>" + cell(seconds_value(e.at), true) + cell(e.group, false) +
           cell(std::string(sim::gang_event_name(e.what)), false) + "</tr>\n";
  }
  return out + "</table>\n";
}

// Gang scheduling's fragmentation: per shape of group and topology level, the domains that take the
// whole group on free room at the start and at the end, and the one that takes the most at the end.
std::string topology_fit_table(const std::string& name, const SimResult& res) {
  const TopologyFit& fit = res.topology_fit;
  if (fit.empty()) return "";
  std::string out = "<h3>Pod groups (" + html_escape(name) + "): domains that fit a whole group</h3>\n";
  out += "<table class=\"topology-fit\">\n" +
         header_row({"group", "level", "domains", "fit at start", "fit at end", "best at end (members)"});
  for (size_t s = 0; s < fit.shapes.size() && s < fit.end.size(); ++s) {
    for (size_t l = 0; l < fit.end[s].size(); ++l) {
      const gang::LevelFit& end = fit.end[s][l];
      const std::string start =
          s < fit.start.size() && l < fit.start[s].size() ? std::to_string(fit.start[s][l].fitting) : "-";
      const std::string best = end.best.empty() ? "-" : end.best + " (" + std::to_string(end.best_fits) + ")";
      out += "<tr>" + cell(fit.shapes[s].text(), false) +
             cell(std::string(gang::level_name(end.key)), false) + cell(std::to_string(end.domains), true) +
             cell(start, true) + cell(std::to_string(end.fitting), true) + cell(best, false) + "</tr>\n";
    }
  }
  return out + "</table>\n";
}

// The pods placed differently: counts by namespace, owner and move (shown after the summary), and
// each pod in order (at the end of the report, where a long list keeps nothing else out of sight).
struct PlacedDifferently {
  std::string counts;
  std::string list;
};

PlacedDifferently placed_differently(const std::vector<ReportRun>& runs,
                                     const std::vector<PlacementDiff>& diffs) {
  PlacedDifferently out;
  out.counts = "<h2>Placed differently: " + std::to_string(diffs.size()) + " pods</h2>\n";
  if (diffs.empty()) return out;
  struct Row {
    std::string ns, name, owner;
    const PlacementDiff* d;
  };
  std::vector<Row> rows;
  std::map<std::string, size_t> by_namespace, by_owner, by_move;
  for (const PlacementDiff& d : diffs) {
    const NamespacedName n = split_namespaced_key(d.pod);
    Row r{std::string(n.namespace_), std::string(n.name), owner_of(*runs[0].result, d.pod), &d};
    if (r.owner.empty()) r.owner = owner_of(*runs[1].result, d.pod);
    if (r.owner.empty()) r.owner = "(none)";
    ++by_namespace[r.ns];
    ++by_owner[r.ns + "/" + r.owner];
    ++by_move[d.a + " → " + d.b];
    rows.push_back(std::move(r));
  }
  out.counts += "<div class=\"tables\">\n<div>\n<h3>By namespace</h3>\n" +
                count_table("namespace", by_namespace) + "</div>\n<div>\n<h3>By owner</h3>\n" +
                count_table("namespace/owner", by_owner) + "</div>\n<div>\n<h3>By move (" +
                html_escape(runs[0].name) + " → " + html_escape(runs[1].name) + ")</h3>\n" +
                count_table("nodes", by_move, kMovesShown) + "</div>\n</div>\n";
  // Sorted by namespace, owner, then name with numbers in order (web-2 before web-10).
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.ns != b.ns) return a.ns < b.ns;
    if (a.owner != b.owner) return a.owner < b.owner;
    return natural_less(a.name, b.name);
  });
  out.list = "<h2>Placed differently: each pod</h2>\n<table class=\"placements\">\n" +
             header_row({"namespace", "pod", "owner", runs[0].name, runs[1].name});
  for (const Row& r : rows) {
    out.list += "<tr>" + cell(r.ns, false) + cell(r.name, false) + cell(r.owner, false) +
                cell(r.d->a, false) + cell(r.d->b, false) + "</tr>\n";
  }
  out.list += "</table>\n";
  return out;
}

}  // namespace

std::vector<std::string> line_diff(std::string_view a, std::string_view b, size_t context) {
  auto split = [](std::string_view s) {
    std::vector<std::string_view> out;
    while (!s.empty()) {
      const auto nl = s.find('\n');
      out.push_back(s.substr(0, nl));
      if (nl == std::string_view::npos) break;
      s.remove_prefix(nl + 1);
    }
    return out;
  };
  const auto la = split(a), lb = split(b);
  const size_t n = la.size(), m = lb.size();
  // (marker, line) for the whole of both, then cut down to the changes and their context.
  std::vector<std::pair<char, std::string_view>> all;
  constexpr size_t kMaxCells = 4'000'000;  // configurations are a few hundred lines; a cap for the rest
  if (n * m <= kMaxCells) {
    // Longest common subsequence from the ends, then walked from the start.
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = la[i] == lb[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && la[i] == lb[j]) {
        all.emplace_back(' ', la[i++]);
        ++j;
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        all.emplace_back('-', la[i++]);  // a removed line before the one that replaces it
      } else {
        all.emplace_back('+', lb[j++]);
      }
    }
  } else {
    for (auto l : la) all.emplace_back('-', l);
    for (auto l : lb) all.emplace_back('+', l);
  }
  std::vector<bool> keep(all.size(), false);
  bool changed = false;
  for (size_t k = 0; k < all.size(); ++k) {
    if (all[k].first == ' ') continue;
    changed = true;
    const size_t from = k >= context ? k - context : 0;
    for (size_t c = from; c < all.size() && c <= k + context; ++c) keep[c] = true;
  }
  std::vector<std::string> out;
  if (!changed) return out;
  for (size_t k = 0; k < all.size(); ++k) {
    if (!keep[k]) {
      if (out.empty() || out.back() != "…") out.emplace_back("…");
      continue;
    }
    out.push_back(all[k].first + std::string(all[k].second));
  }
  return out;
}

bool natural_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      // Leading zeros aside, a longer run of digits is the larger number.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      const auto na = a.substr(is, ie - is), nb = b.substr(js, je - js);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal but for leading zeros: a total order still
}

std::string html_report(const std::vector<ReportRun>& runs, const std::vector<PlacementDiff>& diffs,
                        const SimCommand& command) {
  std::string out = page_start("extender-sim report");

  out += "<h2>Run</h2>\n" + inputs_table(command) + configurations(runs);

  // The summary: format_result_summary's rows, one column per run.
  out += "<h2>Summary</h2>\n<table class=\"summary\">\n<tr><th></th>";
  for (const ReportRun& r : runs) out += "<th>" + html_escape(r.name) + "</th>";
  out += "</tr>\n";
  std::vector<SummaryRows> rows;
  for (const ReportRun& r : runs) rows.push_back(result_rows(*r.result));
  if (rows.size() == 2) align_rows(rows[0], rows[1]);
  for (size_t i = 0; !rows.empty() && i < rows[0].size(); ++i) {
    out += "<tr>" + cell(rows[0][i].first, false);
    for (const auto& run_rows : rows) out += cell(run_rows[i].second, true);
    out += "</tr>\n";
  }
  out += "</table>\n";

  // With two runs, what differs between them first, then each run's detail.
  PlacedDifferently placed;
  if (runs.size() == 2) placed = placed_differently(runs, diffs);
  out += placed.counts;

  // Shared scales: the longest run, the most pods pending at once (at least 1).
  sim::SimTime t_max{0};
  size_t v_max = 1;
  for (const ReportRun& r : runs) {
    t_max = std::max(t_max, r.result->summary.end);
    for (const auto& [at, pending] : r.result->summary.pending_over_time) {
      t_max = std::max(t_max, at);
      v_max = std::max(v_max, pending);
    }
  }
  out += "<div class=\"runs\">\n";
  for (const ReportRun& r : runs) {
    const SimResult& res = *r.result;
    out += "<section>\n<h2>" + html_escape(r.name) + "</h2>\n<h3>Pods pending over simulated time</h3>\n";
    out += pending_chart(res.summary, t_max, v_max) + "\n";
    out += "<h3>CPU requested per node at the end</h3>\n";
    out += use_chart(res.use, "cpu",
                     [](const NodeUse& n) { return share(n.milli_cpu_requested, n.milli_cpu_allocatable); }) +
           "\n";
    out += "<h3>Memory requested per node at the end</h3>\n";
    out += use_chart(res.use, "memory",
                     [](const NodeUse& n) { return share(n.memory_requested, n.memory_allocatable); }) +
           "\n";
    if (!res.pending_by_reason.empty()) {
      out += "<h3>Pending by reason</h3>\n<table>\n<tr><th>reason</th><th>pods</th></tr>\n";
      for (const auto& [reason, pods] : res.pending_by_reason)
        out += "<tr>" + cell(reason, false) + cell(std::to_string(pods), true) + "</tr>\n";
      out += "</table>\n";
    }
    out += "</section>\n";
  }
  out += "</div>\n";
  // Full width: node and pod names are long.
  for (const ReportRun& r : runs) out += evictions_table(r.name, *r.result);
  for (const ReportRun& r : runs) out += node_usage_table(r.name, *r.result);
  for (const ReportRun& r : runs)
    out += pod_groups_table(r.name, *r.result) + topology_fit_table(r.name, *r.result);
  out += placed.list;
  return out + std::string(kPageEnd);
}

}  // namespace kext::simtool

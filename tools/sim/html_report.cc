#include "tools/sim/html_report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "tools/sim/cluster_summary.h"

namespace kext::simtool {

namespace {

// Every chart's geometry, in SVG user units: the plot area inside the margins.
constexpr double kWidth = 560;
constexpr double kHeight = 220;
constexpr double kLeft = 48;
constexpr double kRight = 12;
constexpr double kTop = 12;
constexpr double kBottom = 30;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:2px 8px}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.runs{display:flex;flex-wrap:wrap;gap:2em}
.runs section{flex:1 1 560px}
svg{background:#fafafa;border:1px solid #ddd}
svg text{font-size:11px;fill:#444}
.axis{stroke:#888;stroke-width:1}
.pending{fill:none;stroke:#c0392b;stroke-width:1.5}
.cpu{fill:#2e86c1}
.memory{fill:#28b463}
)";

std::string fixed(double value, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

// Seconds as short as they print exactly enough ("0", "2.5", "86400").
std::string seconds_value(sim::SimTime t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", std::chrono::duration<double>(t).count());
  return buf;
}

double share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string text(double x, double y, const std::string& anchor, const std::string& value) {
  return "<text x=\"" + fixed(x, 1) + "\" y=\"" + fixed(y, 1) + "\" text-anchor=\"" + anchor + "\">" +
         html_escape(value) + "</text>";
}

// The axes and their end labels; `y_top`/`x_right` label the top and right ends.
std::string axes(const std::string& y_top, const std::string& x_left, const std::string& x_right) {
  const double x0 = kLeft, y0 = kTop + kPlotHeight;
  std::string out = "<line class=\"axis\" x1=\"" + fixed(x0, 1) + "\" y1=\"" + fixed(kTop, 1) + "\" x2=\"" +
                    fixed(x0, 1) + "\" y2=\"" + fixed(y0, 1) + "\"/>";
  out += "<line class=\"axis\" x1=\"" + fixed(x0, 1) + "\" y1=\"" + fixed(y0, 1) + "\" x2=\"" +
         fixed(x0 + kPlotWidth, 1) + "\" y2=\"" + fixed(y0, 1) + "\"/>";
  out += text(x0 - 4, kTop + 8, "end", y_top) + text(x0 - 4, y0, "end", "0");
  out += text(x0, y0 + 16, "start", x_left) + text(x0 + kPlotWidth, y0 + 16, "end", x_right);
  return out;
}

std::string svg_open(const std::string& label) {
  return "<svg role=\"img\" aria-label=\"" + html_escape(label) + "\" width=\"" + fixed(kWidth, 0) +
         "\" height=\"" + fixed(kHeight, 0) + "\" viewBox=\"0 0 " + fixed(kWidth, 0) + " " +
         fixed(kHeight, 0) + "\">";
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
  std::string out = svg_open("pods pending over simulated time");
  out += axes(std::to_string(v_max) + " pending", "0 s", seconds_value(t_max) + " s");
  out += "<polyline class=\"pending\" data-series=\"" + series + "\" points=\"" + points + "\"/>";
  return out + "</svg>";
}

// One bar per node, sorted by its requested share of `resource` (highest first), 0..100 %.
std::string use_chart(const ClusterUse& use, const std::string& resource,
                      const std::function<double(const NodeUse&)>& share_of) {
  std::vector<std::pair<double, const NodeUse*>> bars;
  bars.reserve(use.per_node.size());
  for (const NodeUse& n : use.per_node) bars.emplace_back(share_of(n), &n);
  std::stable_sort(bars.begin(), bars.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = svg_open(resource + " requested per node, sorted");
  out += axes("100 %", std::to_string(bars.size()) + " nodes, fullest first", resource);
  const double width = bars.empty() ? 0 : kPlotWidth / static_cast<double>(bars.size());
  // A gap between bars while they are wide enough to see it.
  const double gap = width >= 4 ? 1 : 0;
  for (size_t i = 0; i < bars.size(); ++i) {
    const double h = std::clamp(bars[i].first, 0.0, 1.0) * kPlotHeight;
    const std::string percent = fixed(100.0 * bars[i].first, 1);
    out += "<rect class=\"" + resource + "\" x=\"" + fixed(kLeft + width * static_cast<double>(i), 2) +
           "\" y=\"" + fixed(kTop + kPlotHeight - h, 2) + "\" width=\"" +
           fixed(std::max(width - gap, 0.1), 2) + "\" height=\"" + fixed(h, 2) + "\"><title>" +
           html_escape(bars[i].second->name) + ": " + resource + " " + percent + " %</title></rect>";
  }
  return out + "</svg>";
}

std::string cell(const std::string& value, bool number) {
  return std::string(number ? "<td class=\"n\">" : "<td>") + html_escape(value) + "</td>";
}

}  // namespace

std::string html_escape(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (const char c : in) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string html_report(const std::vector<ReportRun>& runs, const std::vector<PlacementDiff>& diffs) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out +=
      "<title>extender-sim report</title>\n<style>\n" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<h1>extender-sim report</h1>\n";

  // The summary: format_result_summary's rows, one column per run.
  out += "<table>\n<tr><th></th>";
  for (const ReportRun& r : runs) out += "<th>" + html_escape(r.name) + "</th>";
  out += "</tr>\n";
  std::vector<std::vector<std::pair<std::string, std::string>>> rows;
  for (const ReportRun& r : runs) {
    auto run_rows = sim::summary_rows(r.result->summary);
    for (auto& row : use_rows(*r.result)) run_rows.push_back(std::move(row));
    rows.push_back(std::move(run_rows));
  }
  for (size_t i = 0; !rows.empty() && i < rows[0].size(); ++i) {
    out += "<tr>" + cell(rows[0][i].first, false);
    for (const auto& run_rows : rows) out += cell(run_rows[i].second, true);
    out += "</tr>\n";
  }
  out += "</table>\n";

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

  if (runs.size() == 2) {
    out += "<h2>Placed differently: " + std::to_string(diffs.size()) + " pods</h2>\n";
    if (!diffs.empty()) {
      out += "<table>\n<tr><th>pod</th><th>" + html_escape(runs[0].name) + "</th><th>" +
             html_escape(runs[1].name) + "</th></tr>\n";
      for (const PlacementDiff& d : diffs)
        out += "<tr>" + cell(d.pod, false) + cell(d.a, false) + cell(d.b, false) + "</tr>\n";
      out += "</table>\n";
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace kext::simtool

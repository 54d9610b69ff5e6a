#include "sim/report/html_parts.h"

#include <algorithm>
#include <cstdio>

namespace kext::simtool {

const char* const kReportStyle =
    R"(body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1240px;padding:0 1em;color:#222;line-height:1.35}
h1{margin-bottom:.2em}
h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{margin:1.2em 0 .4em;font-size:1em}
table{border-collapse:collapse;margin:.5em 0 1em}
td,th{border:1px solid #d5d5d5;padding:3px 10px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.runs{display:flex;flex-wrap:wrap;gap:2em}
.runs>section,.runs>div{flex:1 1 560px;min-width:0}
.tables{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}
svg{background:#fcfcfc;border:1px solid #ddd;max-width:100%;height:auto;display:block}
svg text{font-size:11px;fill:#333}
svg text.title{font-size:12px;fill:#555}
.axis{stroke:#888;stroke-width:1}
.grid{stroke:#e4e4e4;stroke-width:1}
.pending{fill:none;stroke:#c0392b;stroke-width:1.5}
.cpu{fill:#2e86c1}
.memory{fill:#28b463}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow:auto;max-height:28em;font-size:12px}
pre.diff{max-height:none}
.diff .del{background:#fde2e1;color:#8a1c1c;display:block}
.diff .add{background:#dcf5dc;color:#1c6b1c;display:block}
.diff .gap{color:#888;display:block}
.note{color:#666;font-size:.9em}
table.evictions td,table.placements td{white-space:nowrap}
)";

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

std::string page_start(std::string_view title, std::string_view head_extra, std::string_view style_extra) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += head_extra;
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + html_escape(title) + "</title>\n<style>\n" + kReportStyle;
  out += style_extra;
  out += "</style>\n</head>\n<body>\n<h1>" + html_escape(title) + "</h1>\n";
  return out;
}

std::string fixed(double value, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string cell(const std::string& value, bool number, const std::string& attributes) {
  return std::string(number ? "<td class=\"n\"" : "<td") + attributes + ">" + html_escape(value) + "</td>";
}

std::string header_row(const std::vector<std::string>& names) {
  std::string out = "<tr>";
  for (const auto& n : names) out += "<th>" + html_escape(n) + "</th>";
  return out + "</tr>\n";
}

// Counts as a two-column table, most first (ties by name); at most `limit` rows, the others summed in a
// last one.
std::string count_table(const std::string& what, const std::map<std::string, size_t>& counts, size_t limit,
                        const std::string& counted) {
  std::vector<std::pair<std::string, size_t>> rows(counts.begin(), counts.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = "<table class=\"counts\">\n" + header_row({what, counted});
  size_t rest = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i >= limit) {
      rest += rows[i].second;
      continue;
    }
    out += "<tr>" + cell(rows[i].first, false) + cell(std::to_string(rows[i].second), true) + "</tr>\n";
  }
  if (rows.size() > limit) {
    out += "<tr>" + cell("(" + std::to_string(rows.size() - limit) + " others)", false) +
           cell(std::to_string(rest), true) + "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace kext::simtool

#pragma once
// The pieces extender-sim's HTML pages share (the offline --html report and the live --follow page):
// escaping, the stylesheet, number formatting, table cells and count tables, so that both pages look
// alike.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kext::simtool {

// Text as HTML element content or attribute value: & < > " ' escaped.
std::string html_escape(std::string_view text);

// The stylesheet both pages start from (fonts, headings, tables, charts' text and axes, notes).
extern const char* const kReportStyle;

// A page's start up to its heading: the doctype, `head_extra` in <head> (a refresh), the stylesheet with
// `style_extra` after it, and <h1>`title`</h1>. The page ends with kPageEnd.
std::string page_start(std::string_view title, std::string_view head_extra = "",
                       std::string_view style_extra = "");
inline constexpr std::string_view kPageEnd = "</body>\n</html>\n";

// `value` with `decimals` digits after the point ("12.5").
std::string fixed(double value, int decimals);

// One table cell, HTML-escaped; `number`: right-aligned, tabular digits. `attributes` as written
// (" rowspan=\"2\"").
std::string cell(const std::string& value, bool number, const std::string& attributes = "");

// A row of <th> cells.
std::string header_row(const std::vector<std::string>& names);

// Counts as a two-column table (`what`, `counted`), most first (ties by name); at most `limit` rows, the
// others summed in a last one.
std::string count_table(const std::string& what, const std::map<std::string, size_t>& counts,
                        size_t limit = SIZE_MAX, const std::string& counted = "pods");

}  // namespace kext::simtool

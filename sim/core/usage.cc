#include "sim/core/usage.h"

#include <charconv>
#include <cmath>

#include "common/quantile.h"

namespace kext::sim {

namespace {

// A decimal number, all of `text`; nullopt otherwise.
std::optional<double> parse_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// One "OFFSET:FRACTION" step of a time series, or the fraction alone (offset 0).
bool parse_step(std::string_view item, std::pair<SimDuration, double>& out, std::string& error) {
  std::string_view offset_text = "0";
  std::string_view fraction_text = item;
  if (const size_t colon = item.find(':'); colon != std::string_view::npos) {
    offset_text = trim(item.substr(0, colon));
    fraction_text = trim(item.substr(colon + 1));
    if (offset_text.ends_with('s')) offset_text.remove_suffix(1);
  }
  const std::optional<double> offset = parse_number(offset_text);
  const std::optional<double> fraction = parse_number(fraction_text);
  if (!offset || *offset < 0 || *offset > 365.0 * 24 * 3600) {
    error = "\"" + std::string(item) + "\": the offset is not a number of seconds from 0 to a year";
    return false;
  }
  if (!fraction || *fraction < 0) {
    error = "\"" + std::string(item) + "\": the fraction is not a non-negative number";
    return false;
  }
  out = {std::chrono::duration_cast<SimDuration>(std::chrono::duration<double>(*offset)), *fraction};
  return true;
}

}  // namespace

double UsageProfile::at(SimDuration since_start) const {
  if (steps.empty()) return 0;
  double f = steps.front().second;
  for (const auto& [offset, fraction] : steps) {
    if (offset > since_start) break;
    f = fraction;
  }
  return f;
}

std::optional<UsageProfile> parse_usage_profile(std::string_view text, std::string& error) {
  UsageProfile profile;
  text = trim(text);
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    std::pair<SimDuration, double> step;
    if (!parse_step(item, step, error)) return std::nullopt;
    if (!profile.steps.empty() && step.first <= profile.steps.back().first) {
      error = "\"" + std::string(item) + "\": offsets must ascend";
      return std::nullopt;
    }
    profile.steps.push_back(step);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  if (profile.steps.empty()) {
    error = "empty: a fraction (\"0.6\") or steps (\"0s:0.2,60s:0.8\") expected";
    return std::nullopt;
  }
  return profile;
}

const NodeUsage* SampledUsage::find(std::string_view node) const {
  const auto it = latest_.find(std::string(node));
  return it == latest_.end() ? nullptr : &it->second;
}

void SampledUsage::record(const NodeInfo& node, int64_t sampled_unix_ms, int64_t milli_cpu, int64_t memory) {
  const std::string& name = node.node->name;
  const Resources& a = node.node->allocatable;
  Window& w = windows_[name];
  w.utilization.emplace_back(a.milli_cpu > 0 ? double(milli_cpu) / double(a.milli_cpu) : 0.0,
                             a.memory > 0 ? double(memory) / double(a.memory) : 0.0);
  while (w.utilization.size() > std::max<size_t>(options_.window, 1)) w.utilization.pop_front();
  // Mean and population deviation over the window, as the load-watcher's per-node statistics.
  double cpu_sum = 0, memory_sum = 0, cpu_sq = 0, memory_sq = 0;
  for (const auto& [c, m] : w.utilization) {
    cpu_sum += c, memory_sum += m, cpu_sq += c * c, memory_sq += m * m;
  }
  const double n = static_cast<double>(w.utilization.size());
  NodeUsage& u = latest_[name];
  u.milli_cpu = milli_cpu;
  u.memory = memory;
  u.cpu_mean = cpu_sum / n;
  u.memory_mean = memory_sum / n;
  u.cpu_stddev = std::sqrt(std::max(0.0, cpu_sq / n - u.cpu_mean * u.cpu_mean));
  u.memory_stddev = std::sqrt(std::max(0.0, memory_sq / n - u.memory_mean * u.memory_mean));
  u.sampled_unix_ms = sampled_unix_ms;

  auto [it, added] = series_index_.try_emplace(name, series_.size());
  if (added) series_.push_back(NodeUsageSeries{name, a.milli_cpu, 0, {}});
  NodeUsageSeries& s = series_[it->second];
  s.allocatable_milli_cpu = a.milli_cpu;
  s.requested_peak_milli_cpu = std::max(s.requested_peak_milli_cpu, node.requested.milli_cpu);
  s.used_milli_cpu.push_back(milli_cpu);
}

std::vector<NodeUsageSummary> summarize_usage(const std::vector<NodeUsageSeries>& series) {
  std::vector<NodeUsageSummary> out;
  out.reserve(series.size());
  for (const NodeUsageSeries& s : series) {
    NodeUsageSummary u{s.node, s.allocatable_milli_cpu, s.requested_peak_milli_cpu, 0, 0};
    u.used_p95_milli_cpu = quantile(s.used_milli_cpu, 0.95);
    for (int64_t v : s.used_milli_cpu) u.used_peak_milli_cpu = std::max(u.used_peak_milli_cpu, v);
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace kext::sim

#include "sim/cluster_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "common/quantile.h"
#include "sim/core/simulator.h"

namespace kext::simtool {

namespace {

int64_t free_of(int64_t allocatable, int64_t requested) {
  return std::max<int64_t>(0, allocatable - requested);
}

std::string percent_text(std::optional<double> share) {
  if (!share.has_value()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * *share);
  return buf;
}

std::optional<double> share_of(int64_t part, int64_t whole) {
  if (whole <= 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

// The histogram bin of requested/allocatable: floor(10 * share) below 100 %, the last bin when full.
size_t bin_of(int64_t requested, int64_t allocatable) {
  if (allocatable <= 0 || requested >= allocatable) return kShareBins - 1;
  if (requested <= 0) return 0;
  // In 128 bits: 10 * requested overflows int64 for requests near the 8Ei limit.
  const auto tenths = static_cast<size_t>(static_cast<__int128>(requested) * 10 / allocatable);
  return std::min(tenths, kShareBins - 2);
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::optional<PodShape> typical_pod(std::span<const Resources> requests) {
  if (requests.empty()) return std::nullopt;
  std::vector<int64_t> cpu, memory;
  cpu.reserve(requests.size());
  memory.reserve(requests.size());
  for (const Resources& r : requests) {
    cpu.push_back(r.milli_cpu);
    memory.push_back(r.memory);
  }
  return PodShape{quantile(std::move(cpu), 0.5), quantile(std::move(memory), 0.5)};
}

Fragmentation fragmentation(const ClusterUse& use, const std::optional<PodShape>& pod) {
  if (!pod.has_value()) return {};
  int64_t free_cpu = 0, free_memory = 0, stuck_cpu = 0, stuck_memory = 0;
  for (const NodeUse& n : use.per_node) {
    const int64_t cpu = free_of(n.milli_cpu_allocatable, n.milli_cpu_requested);
    const int64_t memory = free_of(n.memory_allocatable, n.memory_requested);
    free_cpu += cpu;
    free_memory += memory;
    const bool fits = cpu >= pod->milli_cpu && memory >= pod->memory && n.pods < n.allowed_pods;
    if (!fits) {
      stuck_cpu += cpu;
      stuck_memory += memory;
    }
  }
  return {share_of(stuck_cpu, free_cpu), share_of(stuck_memory, free_memory)};
}

UseHistogram use_histogram(const ClusterUse& use) {
  UseHistogram h;
  for (const NodeUse& n : use.per_node) {
    ++h.cpu[bin_of(n.milli_cpu_requested, n.milli_cpu_allocatable)];
    ++h.memory[bin_of(n.memory_requested, n.memory_allocatable)];
  }
  return h;
}

std::string milli_cpu_text(int64_t milli_cpu) {
  if (milli_cpu % 1000 == 0) return std::to_string(milli_cpu / 1000);
  return std::to_string(milli_cpu) + "m";
}

std::string memory_text(int64_t bytes) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {int64_t{1} << 60, "Ei"}, {int64_t{1} << 50, "Pi"}, {int64_t{1} << 40, "Ti"},
      {int64_t{1} << 30, "Gi"}, {int64_t{1} << 20, "Mi"}, {int64_t{1} << 10, "Ki"}};
  if (bytes == 0) return "0";
  for (const auto& [unit, suffix] : kUnits) {
    if (bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  }
  return std::to_string(bytes);
}

namespace {

// The GPU rows, for a cluster whose nodes registered cards: the cards' memory allocated, the cards no
// pod holds, and the largest share one card can still take.
std::vector<std::pair<std::string, std::string>> gpu_rows(const GpuUse& g) {
  if (g.cards == 0) return {};
  return {
      {"GPU memory allocated", percent_text(share_of(g.memory_allocated, g.memory))},
      {"GPUs idle", std::to_string(g.cards_idle) + "/" + std::to_string(g.cards)},
      {"largest GPU share free", std::to_string(g.largest_free_share) + " MiB"},
  };
}

}  // namespace

std::vector<std::pair<std::string, std::string>> use_rows(const SimResult& result) {
  const ClusterUse& u = result.use;
  const Fragmentation f = fragmentation(u, result.typical_pod);
  const std::optional<PodShape>& pod = result.typical_pod;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"nodes used", std::to_string(u.nodes_used) + "/" + std::to_string(u.nodes)},
      {"cpu requested", percent_text(share_of(u.milli_cpu_requested, u.milli_cpu_allocatable))},
      {"memory requested", percent_text(share_of(u.memory_requested, u.memory_allocatable))},
      {"typical pod cpu", pod.has_value() ? milli_cpu_text(pod->milli_cpu) : "-"},
      {"typical pod memory", pod.has_value() ? memory_text(pod->memory) : "-"},
      {"cpu fragmented", percent_text(f.cpu)},
      {"memory fragmented", percent_text(f.memory)},
  };
  for (auto& row : gpu_rows(u.gpu)) rows.push_back(std::move(row));
  return rows;
}

SummaryRows result_rows(const SimResult& result) {
  SummaryRows rows = {
      {"kube-scheduler", result.kubernetes_version.empty() ? "-" : result.kubernetes_version}};
  for (auto& row : sim::summary_rows(result.summary)) rows.push_back(std::move(row));
  for (auto& row : use_rows(result)) rows.push_back(std::move(row));
  for (auto& row : topology_fit_rows(result.topology_fit)) rows.push_back(std::move(row));
  return rows;
}

void align_rows(SummaryRows& a, SummaryRows& b) {
  std::vector<std::string> names;
  for (const auto& row : a) names.push_back(row.first);
  std::string after;  // the name of b's previous row
  for (const auto& row : b) {
    if (std::find(names.begin(), names.end(), row.first) == names.end()) {
      auto at = after.empty() ? names.begin() : std::find(names.begin(), names.end(), after) + 1;
      names.insert(at, row.first);
    }
    after = row.first;
  }
  auto aligned = [&names](const SummaryRows& rows) {
    std::map<std::string, std::string> values(rows.begin(), rows.end());
    SummaryRows out;
    for (const std::string& n : names) {
      auto v = values.find(n);
      out.emplace_back(n, v == values.end() ? "-" : v->second);
    }
    return out;
  };
  a = aligned(a);
  b = aligned(b);
}

std::string format_result_summary(const SimResult& result, const std::string& name, const SimResult* other,
                                  const std::string& other_name) {
  SummaryRows rows = result_rows(result);
  if (other == nullptr) return sim::format_table(rows, name);
  SummaryRows other_rows = result_rows(*other);
  align_rows(rows, other_rows);
  return sim::format_table(rows, name, &other_rows, other_name);
}

std::string format_node_use(const ClusterUse& use) {
  const UseHistogram h = use_histogram(use);
  std::string out = "nodes by requested share    cpu  memory\n";
  for (size_t i = 0; i < kShareBins; ++i) {
    const std::string label =
        i + 1 == kShareBins ? "100 %"
                            : "[" + std::to_string(10 * i) + ", " + std::to_string(10 * (i + 1)) + ") %";
    out += "  " + pad_right(label, 24) + pad_left(std::to_string(h.cpu[i]), 5) +
           pad_left(std::to_string(h.memory[i]), 8) + "\n";
  }
  if (use.per_node.empty() || use.per_node.size() > kNodeListMax) return out;
  size_t width = 4;
  for (const NodeUse& n : use.per_node) width = std::max(width, n.name.size());
  const bool gpus = use.gpu.cards > 0;
  out += "  " + pad_right("node", width) + "      cpu   memory  " +
         (gpus ? pad_right("pods", 8) + "GPUs idle  GPU memory" : "pods") + "\n";
  for (const NodeUse& n : use.per_node) {
    out += "  " + pad_right(n.name, width) +
           pad_left(percent_text(share_of(n.milli_cpu_requested, n.milli_cpu_allocatable)), 9) +
           pad_left(percent_text(share_of(n.memory_requested, n.memory_allocatable)), 9) + "  ";
    const std::string pods = std::to_string(n.pods) + "/" + std::to_string(n.allowed_pods);
    if (!gpus || n.gpu.cards == 0) {
      out += pods;
    } else {
      out += pad_right(pods, 8) +
             pad_left(std::to_string(n.gpu.cards_idle) + "/" + std::to_string(n.gpu.cards), 9) +
             pad_left(percent_text(share_of(n.gpu.memory_allocated, n.gpu.memory)), 12);
    }
    out += "\n";
  }
  return out;
}

std::string format_node_usage(const std::vector<sim::NodeUsageSummary>& usage) {
  if (usage.empty() || usage.size() > kNodeListMax) return {};
  size_t width = 4;
  for (const sim::NodeUsageSummary& n : usage) width = std::max(width, n.node.size());
  std::string out = "node cpu over the usage samples, of allocatable\n  " + pad_right("node", width) +
                    "  cpu requested peak  usage p95  usage peak\n";
  for (const sim::NodeUsageSummary& n : usage) {
    out += "  " + pad_right(n.node, width) +
           pad_left(percent_text(share_of(n.requested_peak_milli_cpu, n.allocatable_milli_cpu)), 20) +
           pad_left(percent_text(share_of(n.used_p95_milli_cpu, n.allocatable_milli_cpu)), 11) +
           pad_left(percent_text(share_of(n.used_peak_milli_cpu, n.allocatable_milli_cpu)), 11) + "\n";
  }
  return out;
}

}  // namespace kext::simtool

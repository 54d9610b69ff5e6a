#pragma once
// extender-sim's text summary of how the cluster ends up: the run's counts and the cluster's use in
// one table (a column per run with --compare), fragmentation, and per-node use: a histogram of nodes
// by requested share, plus one line per node when there are few.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/resources.h"
#include "sim/run.h"

namespace kext::simtool {

// The typical pod of a run: the median CPU request and the median memory request (nearest rank, as
// common/quantile.h) of `requests`, the pods the run was given to place. nullopt for none.
std::optional<PodShape> typical_pod(std::span<const Resources> requests);

// Fragmentation, per resource: the share of the cluster's free capacity (allocatable minus
// requested, per node, at least 0) that sits on nodes where the typical pod does not fit: too little
// free CPU, too little free memory, or no pod slot left (the NodeResourcesFit filter's test,
// noderesources/fit.go fitsRequest, for these three). That room cannot take another pod like the
// ones the run placed, whatever the totals say: a spreading policy leaves it in holes too small on
// every node, and room on a node whose other resource is exhausted (stranded) counts too, because
// the pod does not fit there either. nullopt when nothing is free or there is no typical pod.
struct Fragmentation {
  std::optional<double> cpu;
  std::optional<double> memory;
};
Fragmentation fragmentation(const ClusterUse& use, const std::optional<PodShape>& pod);

// Nodes by requested share of their allocatable: bins [0, 10) %, [10, 20) %, ..., [90, 100) %, and a
// last one for full nodes (requested >= allocatable, or nothing allocatable).
inline constexpr size_t kShareBins = 11;
struct UseHistogram {
  std::array<size_t, kShareBins> cpu{};
  std::array<size_t, kShareBins> memory{};
};
UseHistogram use_histogram(const ClusterUse& use);

// Up to this many nodes, the text summary also lists each node (a screenful); beyond, the histogram
// alone.
inline constexpr size_t kNodeListMax = 20;

// The cluster rows of the summary table: nodes used, cpu and memory requested, the typical pod's cpu
// and memory, cpu and memory fragmented ("-" when undefined).
std::vector<std::pair<std::string, std::string>> use_rows(const SimResult& result);

using SummaryRows = std::vector<std::pair<std::string, std::string>>;

// The summary table's rows of a run: the kube-scheduler minor it reproduced, sim::summary_rows, then
// use_rows, then the per-level fit of its pod groups (topology_fit_rows).
SummaryRows result_rows(const SimResult& result);

// Two runs' rows with the same names in the same order, as a two-column table needs them: a row only
// one run has (gang rows, topology levels only one configuration names) comes after the row it
// follows in that run, "-" in the other.
void align_rows(SummaryRows& a, SummaryRows& b);

// sim::format_summary's table of result_rows; with `other`, a second column (align_rows).
std::string format_result_summary(const SimResult& result, const std::string& name,
                                  const SimResult* other = nullptr, const std::string& other_name = "");

// "nodes by requested share" (the histogram, cpu and memory columns) and, for at most kNodeListMax
// nodes, one line per node in the cluster's order: cpu and memory requested share, pods/allowed pods.
std::string format_node_use(const ClusterUse& use);

// With usage samples (sim::UsageOptions), for at most kNodeListMax nodes, one line per node: its CPU
// requests' peak and its CPU usage's p95 and peak, as shares of its allocatable; "" without samples.
std::string format_node_usage(const std::vector<sim::NodeUsageSummary>& usage);

// Quantity text as Kubernetes writes it: "1500m" for CPU; memory in the largest binary unit that
// divides it ("4Gi", "256Mi", "3Ki"), else bytes.
std::string milli_cpu_text(int64_t milli_cpu);
std::string memory_text(int64_t bytes);

}  // namespace kext::simtool

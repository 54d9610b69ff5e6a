#include "algorithms/node_usage.h"

namespace kext {

NodeUsage estimated_usage(const NodeUsage& sample, const NodeInfo& node, double fraction) {
  NodeUsage out = sample;
  double cpu = 0, memory = 0;
  for (const auto& p : node.pods) {
    const std::optional<int64_t>& started = p->pod->start_time;
    if (started && *started * 1000 <= sample.sampled_unix_ms) continue;  // in the sample already
    cpu += static_cast<double>(p->requests.milli_cpu) * fraction;
    memory += static_cast<double>(p->requests.memory) * fraction;
  }
  out.milli_cpu += static_cast<int64_t>(cpu);
  out.memory += static_cast<int64_t>(memory);
  if (node.node != nullptr) {
    const Resources& a = node.node->allocatable;
    if (a.milli_cpu > 0) out.cpu_mean += cpu / static_cast<double>(a.milli_cpu);
    if (a.memory > 0) out.memory_mean += memory / static_cast<double>(a.memory);
  }
  return out;
}

}  // namespace kext

#include "algorithms/scores/least_requested.h"

namespace kext {

namespace {

// int128 keeps (c - r) * 10 exact for any allocatable a node can report.
int64_t least_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return static_cast<int64_t>((static_cast<__int128>(capacity) - requested) * kMaxScore / capacity);
}

class LeastRequested final : public ScorePlugin {
 public:
  std::string_view name() const override { return "LeastRequestedPriority"; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    const Resources& alloc = node.node->allocatable;
    int64_t cpu =
        least_requested(node.nonzero_requested.milli_cpu + pod.nonzero_requests.milli_cpu, alloc.milli_cpu);
    int64_t mem = least_requested(node.nonzero_requested.memory + pod.nonzero_requests.memory, alloc.memory);
    return (cpu + mem) / 2;
  }
};

}  // namespace

std::unique_ptr<ScorePlugin> make_least_requested_score() { return std::make_unique<LeastRequested>(); }

}  // namespace kext

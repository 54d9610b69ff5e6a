#include "algorithms/gang/preemption.h"

#include <algorithm>

#include "algorithms/gang/pod_group.h"

namespace kext::gang {

void keep_gangs_whole(const PodMeta& preemptor, std::vector<preemption::Candidate>& candidates) {
  if (pod_group_key(preemptor)) {
    candidates.clear();
    return;
  }
  std::erase_if(candidates, [](const preemption::Candidate& c) {
    return std::any_of(c.victims.begin(), c.victims.end(),
                       [](const auto& v) { return pod_group_key(*v->pod).has_value(); });
  });
}

}  // namespace kext::gang

#include "algorithms/pod_requests.h"

namespace kext {

namespace {
Resources container_requests(const Container& c, bool non_zero) {
  Resources r = c.requests;
  if (non_zero) {
    if (!c.has_cpu_request) r.milli_cpu = kDefaultMilliCpuRequest;
    if (!c.has_memory_request) r.memory = kDefaultMemoryRequest;
  }
  return r;
}
}  // namespace

Resources compute_pod_requests(const Pod& pod, bool non_zero) {
  Resources sum;
  for (const auto& c : pod.containers) sum.add(container_requests(c, non_zero));
  Resources sidecars;
  Resources init;
  for (const auto& c : pod.init_containers) {
    Resources req = container_requests(c, non_zero);
    Resources candidate;
    if (c.restartable) {
      sum.add(req);
      sidecars.add(req);
      candidate = sidecars;
    } else {
      candidate = req;
      candidate.add(sidecars);
    }
    init.max_with(candidate);
  }
  sum.max_with(init);
  sum.add(pod.overhead);
  sum.pods = 0;
  return sum;
}

PodInfo make_pod_info(std::shared_ptr<const Pod> pod) {
  PodInfo info;
  info.requests = compute_pod_requests(*pod, false);
  info.nonzero_requests = compute_pod_requests(*pod, true);
  info.pod = std::move(pod);
  return info;
}

}  // namespace kext

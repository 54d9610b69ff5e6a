#include "algorithms/pod_requests.h"

#include <algorithm>
#include <string_view>

namespace kext {

namespace {

// The PodResourcesOptions a minor's scheduler passes to PodRequests.
struct RequestRules {
  bool sidecars = false;    // restartPolicy: Always is known: such init containers run beside the rest
  bool use_status = false;  // UseStatusResources (InPlacePodVerticalScaling)
  bool pod_level = false;   // !SkipPodLevelResources (PodLevelResources)
  // NonMissingContainerRequests: the scoring default for a container that names no cpu / memory.
  bool default_cpu = false;
  bool default_memory = false;
};

RequestRules rules_at(KubeVersion v) {
  RequestRules r;
  r.sidecars = since::restartable_init_containers(v);
  r.use_status = since::allocated_resources(v);
  r.pod_level = since::pod_level_resources(v);
  return r;
}

// A resource list and whether it names cpu / memory (a key the scoring default must not overwrite).
struct Named {
  Resources amounts;
  bool cpu = false;
  bool memory = false;

  void add_names(const Named& o) {
    cpu = cpu || o.cpu;
    memory = memory || o.memory;
  }
};

// One container's requests: its spec's or, with in-place resize, the larger of the spec, what it runs
// with and what the kubelet allocated, without the spec while the resize is infeasible
// (component-helpers resource/helpers.go determineContainerReqs). Only a status with `resources`
// counts (AggregateContainerRequests: cs.Resources != nil).
Named container_requests(const Container& c, const Pod& pod, bool use_status) {
  Named out{c.requests, c.has_cpu_request, c.has_memory_request};
  if (!use_status || !c.status) return out;
  if (pod.resize_infeasible) out = Named{};
  out.amounts.max_with(c.status->requests);
  out.amounts.max_with(c.status->allocated);
  out.add_names(Named{{}, c.status->names_cpu, c.status->names_memory});
  return out;
}

// applyNonMissing: a missing key gets the default, an explicit 0 stays 0.
Resources with_defaults(Named n, const RequestRules& r) {
  if (r.default_cpu && !n.cpu) n.amounts.milli_cpu = kDefaultMilliCpuRequest;
  if (r.default_memory && !n.memory) n.amounts.memory = kDefaultMemoryRequest;
  return std::move(n.amounts);
}

// AggregateContainerRequests: per resource, the larger of the containers' sum with the sidecars and
// each init container with the sidecars started before it (KEP-753's InitContainerUse).
Named aggregate_containers(const Pod& pod, const RequestRules& r) {
  Named sum;
  for (const auto& c : pod.containers) {
    Named n = container_requests(c, pod, r.use_status);
    sum.add_names(n);
    sum.amounts.add(with_defaults(std::move(n), r));
  }
  Resources sidecars;
  Resources init;
  for (const auto& c : pod.init_containers) {
    const bool sidecar = r.sidecars && c.restartable;
    // A resize reaches only the sidecars: the other init containers have exited.
    Named n = container_requests(c, pod, r.use_status && sidecar);
    sum.add_names(n);
    Resources req = with_defaults(std::move(n), r);
    if (sidecar) {
      sum.amounts.add(req);
      sidecars.add(req);
      init.max_with(sidecars);
    } else {
      req.add(sidecars);
      init.max_with(req);
    }
  }
  sum.amounts.max_with(init);
  return sum;
}

bool is_hugepages(std::string_view name) { return name.starts_with("hugepages-"); }

// IsPodLevelRequestsSet: spec.resources.requests names a resource pod-level resources support (cpu,
// memory, hugepages-*: IsSupportedPodLevelResource).
bool pod_level_requests_set(const Pod& pod) {
  const auto& p = pod.pod_level_requests;
  if (!p) return false;
  return p->names_cpu || p->names_memory ||
         std::any_of(p->amounts.scalars.begin(), p->amounts.scalars.end(),
                     [](const ScalarResource& s) { return is_hugepages(s.name); });
}

// applyPodLevelResources: each supported resource the pod level names replaces the containers' amount.
void apply_pod_level(Named& n, const PodLevelRequests& p) {
  if (p.names_cpu) n.amounts.milli_cpu = p.amounts.milli_cpu;
  if (p.names_memory) n.amounts.memory = p.amounts.memory;
  n.add_names(Named{{}, p.names_cpu, p.names_memory});
  for (const auto& s : p.amounts.scalars)
    if (is_hugepages(s.name)) n.amounts.set_scalar(s.name, s.value);
}

// PodRequests.
Named pod_requests(const Pod& pod, const RequestRules& r) {
  Named out = aggregate_containers(pod, r);
  if (r.pod_level && pod_level_requests_set(pod)) apply_pod_level(out, *pod.pod_level_requests);
  out.amounts.add(pod.overhead);
  // The overhead names what it sets (the model keeps no key for an explicit 0 there: RuntimeClass
  // overheads are positive).
  out.add_names(Named{{}, pod.overhead.milli_cpu != 0, pod.overhead.memory != 0});
  out.amounts.pods = 0;
  return out;
}

}  // namespace

Resources compute_pod_requests(const Pod& pod, bool non_zero, KubeVersion version) {
  RequestRules r = rules_at(version);
  if (!non_zero) return pod_requests(pod, r).amounts;
  // calculateResource's non-zero requests (getNonMissingContainerRequests): every container's missing
  // cpu / memory defaults, unless the pod-level requests are set; then only a resource that the
  // requests name nowhere, neither level nor the overhead, gets the default.
  if (r.pod_level && pod_level_requests_set(pod)) {
    Named plain = pod_requests(pod, r);
    if (plain.cpu && plain.memory) return std::move(plain.amounts);
    r.default_cpu = !plain.cpu;
    r.default_memory = !plain.memory;
    return pod_requests(pod, r).amounts;
  }
  return compute_scored_pod_requests(pod, version);
}

Resources compute_scored_pod_requests(const Pod& pod, KubeVersion version) {
  RequestRules r = rules_at(version);
  r.default_cpu = r.default_memory = true;
  return pod_requests(pod, r).amounts;
}

Resources compute_fit_scored_pod_requests(const Pod& pod, KubeVersion version) {
  RequestRules r = rules_at(version);
  r.use_status = false;
  r.pod_level = false;
  r.default_cpu = r.default_memory = true;
  return pod_requests(pod, r).amounts;
}

bool has_restartable_init_container(const Pod& pod) {
  return std::any_of(pod.init_containers.begin(), pod.init_containers.end(),
                     [](const Container& c) { return c.restartable; });
}

PodInfo make_pod_info(std::shared_ptr<const Pod> pod, KubeVersion version) {
  PodInfo info;
  info.requests = compute_pod_requests(*pod, false, version);
  info.nonzero_requests = compute_pod_requests(*pod, true, version);
  info.pod = std::move(pod);
  return info;
}

}  // namespace kext

#include "algorithms/filters/fit_version_rules.h"

#include "algorithms/pod_requests.h"

namespace kext {

bool fit_rejects_sidecars(KubeVersion version, const Pod& pod) {
  return since::restartable_init_containers(version) && !since::sidecar_requests(version) &&
         has_restartable_init_container(pod);
}

bool fit_delegates_to_dra(KubeVersion version, const ClusterView* cluster, std::string_view name,
                          int64_t allocatable) {
  if (!since::dra_extended_resources(version) || allocatable > 0) return false;
  // The DRA manager's DeviceClassResolver: a name some class maps.
  const auto* names = cluster ? cluster->dra_extended_resources : nullptr;
  return names && names->contains(name);
}

}  // namespace kext

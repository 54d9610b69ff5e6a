#pragma once
// ImageLocalityPriority: the v1.16 formula (pkg/scheduler/algorithm/priorities/image_locality.go),
// favouring nodes that already hold the pod's container images.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "algorithms/image_names.h"
#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"

namespace kext {

inline constexpr int64_t kImageLocalityMinThreshold = 23LL * 1024 * 1024;
inline constexpr int64_t kImageLocalityMaxThreshold = 1000LL * 1024 * 1024;

// "ImageLocalityPriority": for each of the pod's regular containers (v1.16 ignores init containers) whose
// image (by image_key) the node lists in status.images, add int64(size * (nodes having it / nodes scored)),
// the spread being counted in prepare() over the nodes of this request. The sum is clamped to [minThreshold,
// maxThreshold] (image_locality.go) and scaled: 10 * (sum - min) / (max - min). The size is the node's own
// reported size (v1.16 took whichever node the cache saw first). No reduce.
// shown_as: the name it is shown under (AliasedScore); empty = its own.
std::unique_ptr<ScorePlugin> make_image_locality_score(std::string_view shown_as = {});

// "ImageLocality", 0..100 (kube-scheduler imagelocality/image_locality.go): the same per-image sum over the
// regular containers, and since::image_locality_init_containers(version) the init containers too, clamped
// to [minThreshold, maxThreshold × containers summed] and scaled to 0..100. The spread is counted over the
// nodes of the request, as above (kube-scheduler counts its whole snapshot).
std::unique_ptr<ScorePlugin> make_image_locality_plugin_score(KubeVersion version = {});

}  // namespace kext

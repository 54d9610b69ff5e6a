#include "algorithms/scores/image_locality.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kext {

std::string normalized_image_name(std::string_view image) {
  // Same test as Kubernetes: a ':' after the last '/' is a tag (or the digest's "sha256:"); one
  // before it belongs to a registry port.
  auto colon = image.rfind(':');
  auto slash = image.rfind('/');
  std::string out(image);
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) out += ":latest";
  return out;
}

namespace {

constexpr std::string_view kDockerHub = "docker.io";

// distribution/reference splitDockerDomain: the first path component is a registry only if it
// looks like a host (has '.' or ':', is "localhost", or has upper case, which repositories cannot).
bool is_registry(std::string_view component) {
  if (component == "localhost") return true;
  if (component.find_first_of(".:") != std::string_view::npos) return true;
  return std::any_of(component.begin(), component.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// The repository's last path component, without tag or digest: a cheap, allocation-free key that
// must agree before the full canonical names are worth building.
std::string_view image_basename(std::string_view image) {
  if (auto at = image.find('@'); at != std::string_view::npos) image = image.substr(0, at);
  auto slash = image.rfind('/');
  auto colon = image.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    image = image.substr(0, colon);
  }
  if (slash != std::string_view::npos) image = image.substr(slash + 1);
  return image;
}

struct PodImage {
  std::string canonical;
  std::string_view basename;  // points into canonical
  int64_t nodes_with_image = 0;
};

struct ImagePrepared final : ScorePrepared {
  std::vector<PodImage> images;  // one per regular container, in container order
  int64_t total_nodes = 0;
};

// The node's reported size of the image, or -1 if the node does not have it.
int64_t size_on_node(const PodImage& image, const Node& node) {
  for (const auto& entry : node.images) {
    for (const auto& name : entry.names) {
      if (image_basename(name) != image.basename) continue;
      if (canonical_image_name(name) == image.canonical) return entry.size_bytes;
    }
  }
  return -1;
}

class ImageLocality final : public ScorePlugin {
 public:
  std::string_view name() const override { return "ImageLocalityPriority"; }

  std::unique_ptr<ScorePrepared> prepare(const PodContext& pod,
                                         std::span<const NodeInfo* const> nodes) const override {
    auto prepared = std::make_unique<ImagePrepared>();
    prepared->total_nodes = static_cast<int64_t>(nodes.size());
    prepared->images.reserve(pod.pod.containers.size());
    for (const auto& c : pod.pod.containers) {
      PodImage img;
      img.canonical = c.image.empty() ? std::string() : canonical_image_name(c.image);
      prepared->images.push_back(std::move(img));
    }
    // Basenames are taken only after the vector stops growing, since they view into the strings.
    for (auto& img : prepared->images) img.basename = image_basename(img.canonical);
    for (size_t i = 0; i < prepared->images.size(); ++i) {
      auto& img = prepared->images[i];
      if (img.canonical.empty()) continue;
      // Two containers with one image share the count rather than scanning every node twice.
      auto same = std::find_if(prepared->images.begin(), prepared->images.begin() + static_cast<ptrdiff_t>(i),
                               [&](const PodImage& o) { return o.canonical == img.canonical; });
      if (same != prepared->images.begin() + static_cast<ptrdiff_t>(i)) {
        img.nodes_with_image = same->nodes_with_image;
        continue;
      }
      for (const NodeInfo* n : nodes) {
        if (size_on_node(img, *n->node) >= 0) ++img.nodes_with_image;
      }
    }
    return prepared;
  }

  int64_t score(const PodContext&, const ScorePrepared* prepared, const NodeInfo& node) const override {
    // v1.16 scores 0 when its priority metadata is missing; same here without prepare().
    const auto* p = dynamic_cast<const ImagePrepared*>(prepared);
    if (p == nullptr || p->total_nodes == 0) return 0;
    int64_t sum = 0;
    for (const auto& img : p->images) {
      if (img.canonical.empty()) continue;
      int64_t size = size_on_node(img, *node.node);
      if (size < 0) continue;
      // Same operation order as scaledImageScore so the truncation matches bit for bit.
      double spread = static_cast<double>(img.nodes_with_image) / static_cast<double>(p->total_nodes);
      sum += static_cast<int64_t>(static_cast<double>(size) * spread);
    }
    sum = std::clamp(sum, kImageLocalityMinThreshold, kImageLocalityMaxThreshold);
    return kMaxScore * (sum - kImageLocalityMinThreshold) /
           (kImageLocalityMaxThreshold - kImageLocalityMinThreshold);
  }
};

}  // namespace

std::string canonical_image_name(std::string_view image) {
  std::string name = normalized_image_name(image);
  std::string_view view = name;
  std::string_view domain = kDockerHub;
  std::string_view remainder = view;
  if (auto slash = view.find('/'); slash != std::string_view::npos && is_registry(view.substr(0, slash))) {
    domain = view.substr(0, slash);
    remainder = view.substr(slash + 1);
  }
  if (domain == "index.docker.io") domain = kDockerHub;
  if (domain != kDockerHub) return name;
  std::string out(kDockerHub);
  out += '/';
  // Official images live under "library/" on Docker Hub.
  if (remainder.find('/') == std::string_view::npos) out += "library/";
  out += remainder;
  return out;
}

std::unique_ptr<ScorePlugin> make_image_locality_score() { return std::make_unique<ImageLocality>(); }

}  // namespace kext

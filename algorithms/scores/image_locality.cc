#include "algorithms/scores/image_locality.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "algorithms/saturating.h"

namespace kext {

namespace {

struct PodImage {
  bool named = false;  // an empty image name never matches
  uint64_t key = 0;
  int64_t nodes_with_image = 0;
};

struct ImagePrepared final : ScorePrepared {
  std::vector<PodImage> images;  // one per container scored (init ones first when they count)
  int64_t total_nodes = 0;
  // Every node's score, in the order of the nodes prepare() saw: working it out there looks each
  // image up once per node instead of twice (count, then score), and the map only reads it.
  std::vector<int64_t> node_scores;
};

// The node's reported size of the image, or -1 if the node does not have it.
int64_t size_on_node(const PodImage& image, const Node& node) { return node.images.size_of(image.key); }

class ImageLocality final : public AliasedScore {
 public:
  // init_containers: whether the pod's init containers' images count (modern only).
  ImageLocality(bool modern, bool init_containers, std::string_view shown_as)
      : AliasedScore(modern ? "ImageLocality" : "ImageLocalityPriority", shown_as),
        modern_(modern),
        init_containers_(init_containers) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost, with NodeImages' filter and the search
  // from the key's estimated rank, cheaper than a binary search behind the filter, the binary search
  // alone, a scan of all of a node's image names, or looking each node up twice. The two passes of
  // prepare() cost a little more there, with the nodes warm, and save more than that with them cold,
  // as prioritize meets them (docs/performance.md "Figures behind design choices in the code").
  uint64_t cost_per_node_ns() const override { return 10; }

  std::unique_ptr<ScorePrepared> prepare(const PodContext& pod,
                                         std::span<const NodeInfo* const> nodes) const override {
    auto prepared = std::make_unique<ImagePrepared>();
    ImagePrepared& p = *prepared;
    p.total_nodes = static_cast<int64_t>(nodes.size());
    auto add = [&](const Container& c) {
      p.images.push_back(PodImage{!c.image.empty(), c.image.empty() ? 0 : image_key(c.image), 0});
    };
    // image_locality.go sumImageScores: init containers first, then the regular ones (kubernetes PR
    // #123366); before, and in v1.16, the regular ones only.
    if (init_containers_) {
      for (const auto& c : pod.pod.init_containers) add(c);
    }
    for (const auto& c : pod.pod.containers) add(c);
    // sizes[row[i] * nodes + n]: image i's size on node n (-1: absent). Two containers with one image
    // share a row rather than looking every node up twice.
    const size_t n_nodes = nodes.size();
    std::vector<size_t> row(p.images.size(), 0);
    std::vector<int64_t> sizes;
    std::vector<size_t> maybe_nodes(n_nodes);
    for (size_t i = 0; i < p.images.size(); ++i) {
      auto& img = p.images[i];
      if (!img.named) continue;
      auto same = std::find_if(p.images.begin(), p.images.begin() + static_cast<ptrdiff_t>(i),
                               [&](const PodImage& o) { return o.named && o.key == img.key; });
      if (same != p.images.begin() + static_cast<ptrdiff_t>(i)) {
        img.nodes_with_image = same->nodes_with_image;
        row[i] = row[static_cast<size_t>(same - p.images.begin())];
        continue;
      }
      row[i] = sizes.size() / std::max<size_t>(n_nodes, 1);
      const size_t base = sizes.size();
      sizes.resize(base + n_nodes, -1);
      // Two passes: the Bloom filters first, each node that may have the image reading ahead the entry
      // its search starts at, then the searches. One pass waited on each search's line in turn, and
      // the filter's answer, a branch hard to predict, kept the core from running ahead to the next.
      size_t n_maybe = 0;
      for (size_t n = 0; n < n_nodes; ++n) {
        const NodeImages& images = nodes[n]->node->images;
        const bool maybe = images.may_have(img.key);
        if (maybe) images.prefetch(img.key);
        maybe_nodes[n_maybe] = n;
        n_maybe += maybe;
      }
      for (size_t m = 0; m < n_maybe; ++m) {
        const size_t n = maybe_nodes[m];
        const int64_t size = nodes[n]->node->images.search(img.key);  // the filter passed it above
        sizes[base + n] = size;
        if (size >= 0) ++img.nodes_with_image;
      }
    }
    p.node_scores.resize(n_nodes);
    for (size_t n = 0; n < n_nodes; ++n) {
      p.node_scores[n] = combine(p, [&](size_t i) { return sizes[row[i] * n_nodes + n]; });
    }
    return prepared;
  }

  int64_t score(const PodContext&, const ScorePrepared* prepared, const NodeInfo& node) const override {
    // v1.16 scores 0 when its priority metadata is missing; same here without prepare(). The engine
    // hands each plugin what its own prepare() returned, so the cast needs no check (a dynamic_cast
    // per node was a large share of this plugin's cost).
    const auto* p = static_cast<const ImagePrepared*>(prepared);
    if (p == nullptr) return 0;
    return combine(*p, [&](size_t i) { return size_on_node(p->images[i], *node.node); });
  }

  int64_t score_at(const PodContext& pod, const ScorePrepared* prepared,
                   std::span<const NodeInfo* const> nodes, size_t i) const override {
    const auto* p = static_cast<const ImagePrepared*>(prepared);
    if (p != nullptr && p->node_scores.size() == nodes.size()) return p->node_scores[i];
    return score(pod, prepared, *nodes[i]);
  }

 private:
  // One node's score from the size of each pod image on it (size_of(i) < 0: the node lacks image i).
  template <typename SizeOf>
  int64_t combine(const ImagePrepared& p, const SizeOf& size_of) const {
    if (p.total_nodes == 0) return 0;
    int64_t sum = 0;
    for (size_t i = 0; i < p.images.size(); ++i) {
      const auto& img = p.images[i];
      if (!img.named) continue;
      const int64_t size = size_of(i);
      if (size < 0) continue;
      // Same operation order as scaledImageScore so the truncation matches bit for bit.
      double spread = static_cast<double>(img.nodes_with_image) / static_cast<double>(p.total_nodes);
      // Saturating: a few images reporting sizes near 2^63 bytes must clamp to the maximum below,
      // not wrap to a negative sum (or hit the undefined double-to-int64 cast at 2^63).
      sum = sat_add(sum, saturating_cast(static_cast<double>(size) * spread));
    }
    // image_locality.go calculatePriority: the upper bound grows with the count of the containers
    // scored and the scale is MaxNodeScore; v1.16 had one fixed bound and MaxPriority.
    const int64_t max_threshold =
        modern_ ? sat_mul(kImageLocalityMaxThreshold, static_cast<int64_t>(p.images.size()))
                : kImageLocalityMaxThreshold;
    if (max_threshold <= kImageLocalityMinThreshold) return 0;
    sum = std::clamp(sum, kImageLocalityMinThreshold, max_threshold);
    return saturate(div128(
        static_cast<__int128>(modern_ ? kMaxNodeScore : kMaxScore) * (sum - kImageLocalityMinThreshold),
        max_threshold - kImageLocalityMinThreshold));
  }

 private:
  bool modern_;
  bool init_containers_;  // since::image_locality_init_containers, read once
};

}  // namespace

std::unique_ptr<ScorePlugin> make_image_locality_score(std::string_view shown_as) {
  return std::make_unique<ImageLocality>(false, false, shown_as);
}

std::unique_ptr<ScorePlugin> make_image_locality_plugin_score(KubeVersion version) {
  return std::make_unique<ImageLocality>(true, since::image_locality_init_containers(version),
                                         std::string_view());
}

}  // namespace kext

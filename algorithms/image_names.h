#pragma once
// Container image names as the scheduler compares them, and the compact key nodes keep instead of
// the names themselves.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kext {

// normalizedImageName: an image with neither tag nor digest gets ":latest".
std::string normalized_image_name(std::string_view image);

// normalized_image_name, then Docker Hub's implicit forms spelled out, so "nginx", "library/nginx"
// and "index.docker.io/library/nginx" all become "docker.io/library/nginx:latest". Kubernetes
// leaves this as a TODO (pod "nginx" never matches a containerd node's "docker.io/library/nginx:
// latest"); closing the gap only adds matches that name the very same image.
std::string canonical_image_name(std::string_view image);

// 64-bit FNV-1a of canonical_image_name(image), computed without building the string: a node lists
// ~50 images with several names each, and both decoding and ImageLocality's per-node lookup would
// otherwise allocate per name. Two different canonical names share a key with probability ~2^-64
// per pair.
uint64_t image_key(std::string_view image);

// One status.images entry as the API reports it.
struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
};

// What a node keeps of one image name: its key and the image's reported size.
struct NodeImage {
  uint64_t key = 0;
  int64_t size_bytes = 0;
};

// A node's images: one NodeImage per name sorted by key (sort_by_key), behind a 512-bit Bloom filter
// of the keys. A pod's image is absent from most nodes (extender-gen's: 50 images of a pool of 400 on
// each), and the filter, one cache line, answers most of those without a search, where a binary one at 500
// names of 5000 nodes missed the cache on ~5 of the 25 lines that ~100 keys of 16 bytes fill, per
// lookup (image_size stood out in prioritize's CPU profile). Two bits per key: few absent keys still
// search at a hundred keys.
class NodeImages {
 public:
  NodeImages() = default;
  // Sorts and fills the filter; the only way to set the images, so the two cannot disagree.
  NodeImages(std::vector<NodeImage> images);  // NOLINT: implicit, as the vector it replaces

  // The size of the image with this key, or -1 if the node lacks it.
  int64_t size_of(uint64_t key) const;
  // False: the node surely lacks the key. True: it may have it (the sorted keys decide).
  bool may_have(uint64_t key) const;
  // The entry the search for this key starts at, read ahead of search() (ImageLocality::prepare).
  void prefetch(uint64_t key) const;
  // size_of() without the filter, for a key may_have() has already let through.
  int64_t search(uint64_t key) const;

  size_t size() const { return images_.size(); }
  bool empty() const { return images_.empty(); }
  const NodeImage& operator[](size_t i) const { return images_[i]; }
  auto begin() const { return images_.begin(); }
  auto end() const { return images_.end(); }

 private:
  static constexpr size_t kFilterWords = 8;  // 512 bits: one cache line

  std::array<uint64_t, kFilterWords> filter_{};
  std::vector<NodeImage> images_;
};

// One NodeImage per name, sorted by key (sort_by_key).
std::vector<NodeImage> index_images(std::span<const ContainerImage> images);

// Sorts a node's images by key, stably: of two entries with one key, the API's first stays first and
// gives the size. A node lists ~50 images under ~2 names each; sorted, ImageLocality finds a pod's
// image in ~7 comparisons instead of a scan of all ~100 (bench/engine_bench.cc BM_ScorePluginCost
// measures ImageLocality's cost per node).
void sort_by_key(std::vector<NodeImage>& images);

// The size of the image with this key among images sorted by key (the first entry's, of equal keys),
// or -1 if none has it.
int64_t image_size(std::span<const NodeImage> sorted, uint64_t key);

}  // namespace kext

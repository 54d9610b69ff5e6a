#include "algorithms/image_names.h"

#include <algorithm>
#include <utility>

namespace kext {

namespace {

// The two filter bits of a key: the top 18 bits of a Fibonacci-hashed key (FNV-1a's low bits mix the
// name's bytes weakly), 9 bits each.
std::array<uint32_t, 2> filter_bits(uint64_t key) {
  const uint64_t m = key * 0x9E3779B97F4A7C15ULL;
  return {static_cast<uint32_t>(m >> 55), static_cast<uint32_t>((m >> 46) & 511)};
}

constexpr std::string_view kDockerHub = "docker.io";
constexpr std::string_view kLatest = ":latest";

// distribution/reference splitDockerDomain: the first path component is a registry only if it
// looks like a host (has '.' or ':', is "localhost", or has upper case, which repositories cannot).
bool is_registry(std::string_view component) {
  if (component == "localhost") return true;
  if (component.find_first_of(".:") != std::string_view::npos) return true;
  return std::any_of(component.begin(), component.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// Same test as Kubernetes: a ':' after the last '/' is a tag (or the digest's "sha256:"); one
// before it belongs to a registry port.
bool has_tag_or_digest(std::string_view image) {
  auto colon = image.rfind(':');
  auto slash = image.rfind('/');
  return colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
}

// The canonical name as up to four pieces whose concatenation it is; shared by the string and the
// key so they cannot disagree.
struct CanonicalPieces {
  std::string_view parts[4];
};

CanonicalPieces canonical_pieces(std::string_view image) {
  const std::string_view suffix = has_tag_or_digest(image) ? std::string_view() : kLatest;
  std::string_view domain = kDockerHub;
  std::string_view remainder = image;
  if (auto slash = image.find('/'); slash != std::string_view::npos && is_registry(image.substr(0, slash))) {
    domain = image.substr(0, slash);
    remainder = image.substr(slash + 1);
  }
  if (domain == "index.docker.io") domain = kDockerHub;
  if (domain != kDockerHub) return {{image, suffix, {}, {}}};
  // Official images live under "library/" on Docker Hub.
  const std::string_view library = remainder.find('/') == std::string_view::npos ? "library/" : "";
  return {{"docker.io/", library, remainder, suffix}};
}

}  // namespace

std::string normalized_image_name(std::string_view image) {
  std::string out(image);
  if (!has_tag_or_digest(image)) out += kLatest;
  return out;
}

std::string canonical_image_name(std::string_view image) {
  std::string out;
  for (std::string_view part : canonical_pieces(image).parts) out += part;
  return out;
}

uint64_t image_key(std::string_view image) {
  uint64_t h = 14695981039346656037ULL;
  for (std::string_view part : canonical_pieces(image).parts) {
    for (char c : part) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ULL;
    }
  }
  return h;
}

std::vector<NodeImage> index_images(std::span<const ContainerImage> images) {
  std::vector<NodeImage> out;
  for (const auto& img : images) {
    for (const auto& name : img.names) out.push_back(NodeImage{image_key(name), img.size_bytes});
  }
  sort_by_key(out);
  return out;
}

void sort_by_key(std::vector<NodeImage>& images) { std::ranges::stable_sort(images, {}, &NodeImage::key); }

NodeImages::NodeImages(std::vector<NodeImage> images) : images_(std::move(images)) {
  sort_by_key(images_);
  for (const NodeImage& im : images_) {
    for (uint32_t bit : filter_bits(im.key)) filter_[bit / 64] |= uint64_t{1} << (bit % 64);
  }
}

bool NodeImages::may_have(uint64_t key) const {
  for (uint32_t bit : filter_bits(key)) {
    if (!(filter_[bit / 64] >> (bit % 64) & 1)) return false;
  }
  return true;
}

int64_t NodeImages::size_of(uint64_t key) const { return may_have(key) ? search(key) : -1; }

int64_t NodeImages::search(uint64_t key) const { return image_size(images_, key); }

namespace {
// Where image_size's search starts: the key's share of 2^64 times the entry count.
size_t estimated_rank(uint64_t key, size_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>(key) * n) >> 64);
}
}  // namespace

void NodeImages::prefetch(uint64_t key) const {
  if (!images_.empty()) __builtin_prefetch(&images_[estimated_rank(key, images_.size())]);
}

// The keys are 64-bit hashes, spread evenly over their range, so a key's share of 2^64 places it within
// a few entries of its rank: the search starts there and steps to the first entry not below the key
// (lower_bound's answer, so of equal keys the first). A binary search read ~5 of the ~25 cache lines
// that ~100 entries fill, each a miss on a node not touched since; this reads one or two, and
// prioritize at 500 cloud names of 5000 nodes spends less CPU per request (docs/performance.md "Figures
// behind design choices in the code"). Keys chosen to crowd together only lengthen the steps, never past the
// node's image count.
int64_t image_size(std::span<const NodeImage> sorted, uint64_t key) {
  const size_t n = sorted.size();
  if (n == 0) return -1;
  size_t i = estimated_rank(key, n);
  if (sorted[i].key < key) {
    while (++i < n && sorted[i].key < key) {
    }
  } else {
    while (i > 0 && sorted[i - 1].key >= key) --i;
  }
  return i < n && sorted[i].key == key ? sorted[i].size_bytes : -1;
}

}  // namespace kext

#include "algorithms/gpu/device_fit.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>

#include "algorithms/namespaced_key.h"

namespace kext::gpu {

namespace {

// The value of a resource the container names, or nullopt.
std::optional<int64_t> named(const Resources& r, std::string_view name) {
  for (const auto& s : r.scalars)
    if (s.name == name) return s.value;
  return std::nullopt;
}

// strings.Contains(strings.ToUpper(haystack), strings.ToUpper(needle)) for ASCII, without copies (the
// filter asks it of every card of every node).
bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
  auto up = [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); };
  if (needle.empty()) return true;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && up(haystack[i + j]) == up(needle[j])) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Whether any comma-separated entry of `list` satisfies `match` (an empty list: no constraint, the
// callers check that first).
template <typename Match>
bool any_entry(std::string_view list, Match match) {
  while (true) {
    const size_t comma = list.find(',');
    if (match(trim(list.substr(0, comma)))) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

// pkg/device/devices.go CheckType: the card's model against use / nouse lists of case-insensitive
// substrings; an empty value is no constraint.
bool type_allowed(const PodPreferences& p, const std::string& card_type) {
  if (p.use_types.empty() && p.nouse_types.empty()) return true;
  auto match = [&](std::string_view t) { return !t.empty() && contains_ignoring_case(card_type, t); };
  if (!trim(p.use_types).empty() && !any_entry(p.use_types, match)) return false;
  if (!trim(p.nouse_types).empty() && any_entry(p.nouse_types, match)) return false;
  return true;
}

// pkg/device/devices.go CheckUUID: exact UUIDs.
bool uuid_allowed(const PodPreferences& p, const std::string& id) {
  auto match = [&](std::string_view u) { return u == id; };
  if (!trim(p.use_uuids).empty() && !any_entry(p.use_uuids, match)) return false;
  if (!trim(p.nouse_uuids).empty() && any_entry(p.nouse_uuids, match)) return false;
  return true;
}

// pkg/util/util.go PolicyContains.
bool policy_contains(std::string_view policy, std::string_view name) {
  return any_entry(policy, [&](std::string_view p) { return p == name; });
}

bool cordoned(const NodeDevices& n, const std::string& id) {
  return std::find(n.cordoned.begin(), n.cordoned.end(), id) != n.cordoned.end();
}

// policy/gpu_policy.go DeviceListsScore.ComputeScore: the card's use with this container's request.
void compute_score(DeviceUsage& u, const ContainerRequest& r, const Weights& w) {
  const Device& d = *u.device;
  if (d.count == 0 || d.cores == 0 || d.memory == 0) {
    u.score = 0;
    return;
  }
  // ComputeScore adds the request only to a card whose type equals the request's, "NVIDIA"; the device
  // plugin registers the model ("NVIDIA-Tesla T4"), so on a real node the score is the card's use alone.
  const bool counts_request = d.type == kVendor;
  const int32_t request = counts_request ? 1 : 0;
  const int32_t core = counts_request ? r.cores : 0;
  const int32_t mem = !counts_request ? 0
                      : r.memory_percent != 0 && r.memory_percent != 101
                          ? static_cast<int32_t>(int64_t{d.memory} * r.memory_percent / 100)
                          : r.memory;
  const float used_score = static_cast<float>(request + u.used) / static_cast<float>(d.count);
  const float core_score = static_cast<float>(core + u.used_cores) / static_cast<float>(d.cores);
  const float mem_score = static_cast<float>(mem + u.used_memory) / static_cast<float>(d.memory);
  u.score = 10.0f * (static_cast<float>(w.slot) * used_score + static_cast<float>(w.core) * core_score +
                     static_cast<float>(w.memory) * mem_score);
}

// How policy/gpu_policy.go DeviceUsageList.Less orders a node's cards for one policy, worked out once.
struct CardOrder {
  enum class Kind { kChain, kMutex, kBinpack, kSpread } kind = Kind::kSpread;
  bool numa_bind = false;
  std::vector<std::string_view> chain;  // kChain: binpack, spread, numa (gpuSortKeyChain)

  CardOrder(std::string_view policy, bool numa) : numa_bind(numa) {
    if (policy.find(',') != std::string_view::npos || policy == "numa") {
      kind = Kind::kChain;
      any_entry(policy, [&](std::string_view p) {
        for (std::string_view key : {"binpack", "spread", "numa"})
          if (p == key && std::find(chain.begin(), chain.end(), key) == chain.end()) chain.push_back(key);
        return false;
      });
      if (chain.empty()) chain = {"spread"};
      if (numa_bind && chain[0] != "numa") {
        std::erase(chain, std::string_view("numa"));
        chain.insert(chain.begin(), "numa");
      }
    } else if (policy == "mutex") {
      kind = Kind::kMutex;
    } else if (policy == "binpack") {
      kind = Kind::kBinpack;
    }
  }

  bool less(const DeviceUsage& a, const DeviceUsage& b) const {
    const float si = a.score, sj = b.score;
    const int ni = a.device->numa, nj = b.device->numa;
    switch (kind) {
      case Kind::kChain:
        for (std::string_view key : chain) {
          if (key == "binpack" && si != sj) return si < sj;
          if (key == "spread" && si != sj) return si > sj;
          if (key == "numa" && ni != nj) return ni < nj;
        }
        return a.device->index < b.device->index;
      case Kind::kMutex:
        return a.used != b.used ? a.used > b.used : ni < nj;
      case Kind::kBinpack:
        if (numa_bind) return ni == nj ? si < sj : ni > nj;
        return si != sj ? si < sj : ni < nj;
      case Kind::kSpread:
        if (numa_bind) return ni == nj ? si > sj : ni < nj;
        return si != sj ? si > sj : ni < nj;
    }
    return false;
  }
};

// sort.Sort as Go runs it on a card list: insertion sort up to 12 elements (sort/zsortinterface.go
// pdqsort's maxInsertion), which keeps equal cards in their order. HAMi's lists are a node's cards;
// above 12, Go's pdqsort may order equal cards differently.
void sort_devices(std::vector<DeviceUsage>& list, const CardOrder& order) {
  for (size_t i = 1; i < list.size(); ++i)
    for (size_t j = i; j > 0 && order.less(list[j], list[j - 1]); --j) std::swap(list[j], list[j - 1]);
}

// The node's card with this UUID (getDevicePairScoreMap's lookup), or nullptr.
const Device* card_with(const std::vector<DeviceUsage>& all, const std::string& id) {
  for (const auto& u : all)
    if (u.device->id == id) return u.device;
  return nullptr;
}

// nvidia/device.go computeWorstSingleCard: the card with the least NVLink to the others that fit.
std::vector<ContainerDevice> worst_single_card(const std::vector<ContainerDevice>& fit,
                                               const std::vector<DeviceUsage>& all) {
  int worst = 0;
  std::vector<ContainerDevice> out;
  for (const auto& a : fit) {
    int total = 0;
    const Device* da = card_with(all, a.uuid);
    for (const auto& b : fit)
      if (b.uuid != a.uuid && da) total += da->pair_score(b.uuid);
    if (out.empty() || total < worst) {
      worst = total;
      out = {a};
    }
  }
  return out;
}

// nvidia/device.go generateCombinations + computeBestCombination: of the `k`-card subsets in
// lexicographic order, the first with the highest sum of pair scores.
std::vector<ContainerDevice> best_combination(const std::vector<ContainerDevice>& fit, size_t k,
                                              const std::vector<DeviceUsage>& all) {
  std::vector<ContainerDevice> best;
  int best_score = -1;
  bool found = false;
  std::vector<size_t> pick(k);
  for (size_t i = 0; i < k; ++i) pick[i] = i;
  while (k <= fit.size()) {
    int total = 0;
    for (size_t i = 0; i + 1 < k; ++i) {
      const Device* d = card_with(all, fit[pick[i]].uuid);
      for (size_t z = i + 1; z < k; ++z) total += d ? d->pair_score(fit[pick[z]].uuid) : 0;
    }
    if (!found || total > best_score) {
      found = true;
      best_score = total;
      best.clear();
      for (size_t i : pick) best.push_back(fit[i]);
    }
    // The next subset in lexicographic order.
    size_t i = k;
    while (i > 0 && pick[i - 1] == fit.size() - k + i - 1) --i;
    if (i == 0) break;
    ++pick[i - 1];
    for (size_t j = i; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
  return best;
}

// What the walk of nvidia/device.go Fit carries from card to card.
struct Walk {
  ContainerRequest k;
  int32_t wanted = 0;  // originReq
  int prev_numa = -1;
  std::vector<ContainerDevice> picked;  // tmpDevs
};

// The card's checks in Fit's order, up to the memory it would take; false (and the failure counted)
// when the card is turned away.
bool card_fits(const DeviceUsage& u, Walk& w, const PodRequest& pr, const NodeDevices& nd, bool mutex,
               FitFailure& f, int32_t& memreq) {
  const Device& d = *u.device;
  if (!d.health) return ++f.unhealthy, false;
  if (cordoned(nd, d.id)) return ++f.cordoned, false;
  const PodPreferences& p = pr.preferences;
  if (!type_allowed(p, d.type) || (p.mode && p.mode->find(d.mode) == std::string::npos))
    return ++f.type_mismatch, false;
  if (p.numa_bind && w.prev_numa != d.numa) {
    // A container's cards come from one NUMA node: a new node starts the pick again.
    if (w.k.nums != w.wanted) f.numa_mismatch += static_cast<int>(w.picked.size());
    w.k.nums = w.wanted;
    w.prev_numa = d.numa;
    w.picked.clear();
  }
  if (!uuid_allowed(p, d.id)) return ++f.uuid_mismatch, false;
  if (d.count <= u.used) return ++f.slots_exhausted, false;
  if (mutex && u.used > 0) return ++f.exclusive_conflict, false;
  if (w.k.cores > 100) w.k.cores = 100;
  memreq = w.k.memory > 0 ? w.k.memory : 0;
  if (w.k.memory_percent != 101 && w.k.memory == 0) memreq = d.memory * w.k.memory_percent / 100;
  const int32_t free_memory = d.memory - u.used_memory;
  if (free_memory < memreq) {
    if (free_memory > f.best_free_memory) f.best_free_memory = free_memory, f.needed_memory = memreq;
    return f.too_small += d.memory < memreq, ++f.memory_short, false;
  }
  const int32_t free_cores = d.cores - u.used_cores;
  if (free_cores < w.k.cores) {
    if (free_cores > f.best_free_cores) f.best_free_cores = free_cores, f.needed_cores = w.k.cores;
    return f.too_small += d.cores < w.k.cores, ++f.cores_short, false;
  }
  // 100 cores asks for the card alone; a request of no cores cannot go to a card whose cores are all taken.
  if (d.cores == 100 && w.k.cores == 100 && u.used > 0) return ++f.exclusive_conflict, false;
  if (d.cores != 0 && u.used_cores == d.cores && w.k.cores == 0) return ++f.cores_exhausted, false;
  // MIG cards need a profile and placement (CustomFilterRule); the extender does not allocate them.
  if (d.mode == "mig") return ++f.mig_unsupported, false;
  return true;
}

// nvidia/device.go Fit: the container's cards among `cards` (sorted, walked from the end), or nullopt.
std::optional<std::vector<ContainerDevice>> fit_container(const std::vector<const DeviceUsage*>& cards,
                                                          const ContainerRequest& request,
                                                          const PodRequest& pr, const NodeDevices& nd,
                                                          const std::vector<DeviceUsage>& all,
                                                          FitFailure& f) {
  Walk w{request, request.nums, -1, {}};
  const bool topology = policy_contains(pr.gpu_policy, "topology-aware");
  const bool mutex = policy_contains(pr.gpu_policy, "mutex");
  for (size_t i = cards.size(); i-- > 0;) {
    int32_t memreq = 0;
    if (!card_fits(*cards[i], w, pr, nd, mutex, f, memreq)) continue;
    if (w.k.nums > 0) {
      if (!topology) --w.k.nums;
      w.picked.push_back(ContainerDevice{cards[i]->device->id, memreq, w.k.cores});
    }
    if (w.k.nums == 0 && !topology) return w.picked;
  }
  const size_t wanted = static_cast<size_t>(std::max(w.wanted, 0));
  if (topology && w.picked.size() == wanted) return w.picked;
  if (topology && w.picked.size() > wanted)
    return wanted == 1 ? worst_single_card(w.picked, all) : best_combination(w.picked, wanted, all);
  f.fitted = static_cast<int>(w.picked.size());
  return std::nullopt;
}

// score.go getNodeResources: the cards whose type names the vendor, in any case.
bool is_nvidia(const Device& d) { return contains_ignoring_case(d.type, kVendor); }

// score.go fitInDevices for one container: score and sort the node's cards, fit, and add the cards
// taken to the node's use for the containers after it.
std::optional<std::vector<ContainerDevice>> fit_in_devices(std::vector<DeviceUsage>& node,
                                                           const ContainerRequest& r, const PodRequest& pr,
                                                           const NodeDevices& nd, FitFailure& f) {
  for (auto& u : node) compute_score(u, r, pr.preferences.weights);
  sort_devices(node, CardOrder(pr.gpu_policy, pr.preferences.numa_bind));
  std::vector<const DeviceUsage*> cards;
  for (const auto& u : node)
    if (is_nvidia(*u.device)) cards.push_back(&u);
  f.cards_on_node = static_cast<int32_t>(cards.size());
  f.needed_cards = r.nums;
  if (r.nums > static_cast<int32_t>(cards.size())) return std::nullopt;
  auto picked = fit_container(cards, r, pr, nd, node, f);
  if (!picked) return std::nullopt;
  for (const auto& c : *picked) {
    for (auto& u : node) {
      if (u.device->id != c.uuid) continue;
      ++u.used;
      u.used_cores += c.cores;
      u.used_memory += c.memory;
      break;
    }
  }
  return picked;
}

}  // namespace

ContainerRequest container_request(const Container& c, const SharingConfig& config) {
  const auto nums = named(c.requests, config.count_resource);
  if (!nums) return {};
  int32_t memory = 0;
  if (const auto m = named(c.requests, config.memory_resource)) {
    // HAMi refuses a memory request outside int32 rather than truncate it: the container then asks
    // for no card at all (GenerateResourceRequests).
    if (*m < 0 || *m > INT32_MAX) return {};
    memory = static_cast<int32_t>(*m);
  }
  int32_t percent = 101;
  if (const auto p = named(c.requests, config.memory_percent_resource))
    percent = *p > 100 ? 100 : *p > 0 ? static_cast<int32_t>(*p) : 101;
  if (percent == 101 && memory == 0) {
    if (config.default_memory != 0)
      memory = config.default_memory;
    else
      percent = 100;
  }
  int32_t cores = config.default_cores;
  if (const auto k = named(c.requests, config.cores_resource)) cores = static_cast<int32_t>(*k);
  return {static_cast<int32_t>(*nums), memory, percent, cores};
}

PodRequest pod_request(const Pod& pod, const SharingConfig& config) {
  PodRequest out;
  for (const auto& c : pod.init_containers) out.containers.push_back(container_request(c, config));
  for (const auto& c : pod.containers) out.containers.push_back(container_request(c, config));
  out.init_containers = pod.init_containers.size();
  if (pod.gpu_preferences) out.preferences = *pod.gpu_preferences;
  out.node_policy = out.preferences.node_policy.value_or(config.node_policy);
  out.gpu_policy = out.preferences.gpu_policy.value_or(config.gpu_policy);
  return out;
}

std::vector<DeviceUsage> node_usage(const NodeDevices& devices,
                                    std::span<const std::shared_ptr<const PodInfo>> pods) {
  std::vector<DeviceUsage> out;
  out.reserve(devices.devices.size());
  for (const auto& d : devices.devices) out.push_back(DeviceUsage{&d});
  for (const auto& p : pods) {
    if (!p->pod->gpu_shares) continue;
    for (const auto& s : p->pod->gpu_shares->shares) {
      for (auto& u : out) {
        if (u.device->id != s.uuid) continue;
        u.used += std::max<int32_t>(s.slots, 1);
        u.used_memory += s.memory;
        u.used_cores += s.cores;
        break;
      }
    }
  }
  return out;
}

}  // namespace kext::gpu

namespace kext::gpu {

bool FitFailure::unresolvable() const {
  const int never = unhealthy + cordoned + type_mismatch + uuid_mismatch + mig_unsupported + too_small;
  return needed_cards > cards_on_node - never;
}

std::string FitFailure::reason() const {
  const std::string n = std::to_string(needed_cards);
  if (cards_on_node == 0) return "node(s) had no GPU registered by HAMi's device plugin";
  if (needed_cards > cards_on_node)
    return "node(s) had " + std::to_string(cards_on_node) + " GPU(s), fewer than the " + n + " asked";
  if (fitted > 0 && numa_mismatch == 0)
    return "node(s) had " + std::to_string(fitted) + " of the " + n + " GPU(s) asked free";
  // The check that turned the most cards away names the node's failure. Memory and cores are named
  // together when cards fell short of each: the card with the most memory free may lack the cores.
  const std::string memory = "no GPU with " + std::to_string(needed_memory) + " MiB free: best card " +
                             std::to_string(best_free_memory) + " MiB";
  const std::string cores = "no GPU with " + std::to_string(needed_cores) +
                            "% of its cores free: best card " + std::to_string(best_free_cores) + "%";
  const std::string both = "node(s) had " + memory + "; " + cores;
  const std::pair<int, std::string> causes[] = {
      {memory_short, cores_short ? both : "node(s) had " + memory},
      {cores_short, memory_short ? both : "node(s) had " + cores},
      {slots_exhausted, "node(s) had no GPU with a free slot"},
      {exclusive_conflict, "node(s) had no idle GPU for a pod that takes a whole card"},
      {cores_exhausted, "node(s) had no GPU with cores left"},
      {numa_mismatch, "node(s) had no NUMA node with " + n + " GPU(s) free (nvidia.com/numa-bind)"},
      {unhealthy, "node(s) had no healthy GPU"},
      {cordoned, "node(s) had only cordoned GPUs (hami.io/device-cordon)"},
      {type_mismatch, "node(s) had no GPU of the type or mode the pod asks for"},
      {uuid_mismatch, "node(s) had no GPU with a UUID the pod allows"},
      {mig_unsupported, "node(s) had only GPUs in MIG mode, which the extender does not allocate"},
  };
  const auto* top = &causes[0];
  for (const auto& c : causes)
    if (c.first > top->first) top = &c;
  return top->second;
}

NodeFit fit_pod(const PodRequest& request, const NodeDevices& devices, std::vector<DeviceUsage> usage) {
  NodeFit out;
  if (!request.preferences.error.empty()) {
    out.error = request.preferences.error;
    return out;
  }
  if (!devices.error.empty()) {
    out.error = devices.error;
    return out;
  }
  out.allocation.resize(request.containers.size());
  // Each init container alone on the node's use (they run one after another), in the cards' order.
  for (size_t i = 0; i < request.init_containers && i < request.containers.size(); ++i) {
    if (request.containers[i].nums <= 0) continue;
    std::vector<DeviceUsage> alone = usage;
    FitFailure f;
    auto picked = fit_in_devices(alone, request.containers[i], request, devices, f);
    if (!picked) return out.failure = f, out;
    out.allocation[i] = std::move(*picked);
  }
  // The containers together, each seeing the cards the ones before it took.
  for (size_t i = request.init_containers; i < request.containers.size(); ++i) {
    if (request.containers[i].nums <= 0) continue;
    FitFailure f;
    auto picked = fit_in_devices(usage, request.containers[i], request, devices, f);
    if (!picked) return out.failure = f, out;
    out.allocation[i] = std::move(*picked);
  }
  out.fits = true;
  return out;
}

float node_score(std::span<const DeviceUsage> usage) {
  int32_t used = 0, used_cores = 0, used_memory = 0, total = 0, total_cores = 0, total_memory = 0;
  for (const auto& u : usage) {
    used += u.used;
    used_cores += u.used_cores;
    used_memory += u.used_memory;
    total += u.device->count;
    total_cores += u.device->cores;
    total_memory += u.device->memory;
  }
  if (total == 0 || total_cores == 0 || total_memory == 0) return 0;
  const float use_score = static_cast<float>(used) / static_cast<float>(total);
  const float core_score = static_cast<float>(used_cores) / static_cast<float>(total_cores);
  const float mem_score = static_cast<float>(used_memory) / static_cast<float>(total_memory);
  return 10.0f * (use_score + core_score + mem_score);
}

std::string encode_allocation(const PodAllocation& allocation) {
  std::string out;
  for (const auto& container : allocation) {
    for (const auto& d : container) {
      out += d.uuid;
      out += ',';
      out += kVendor;
      out += ',' + std::to_string(d.memory) + ',' + std::to_string(d.cores) + ':';
    }
    out += ';';
  }
  return out;
}

std::string undecoded_sharer(const NodeInfo& node) {
  for (const auto& p : node.pods)
    if (cards_undecoded(p->pod->gpu_shares))
      return namespaced_key(p->pod->namespace_, p->pod->name) + ": " + p->pod->gpu_shares->error;
  return "";
}

NodeFit fit_on_node(const PodRequest& request, const NodeInfo& node) {
  if (std::string bad = undecoded_sharer(node); !bad.empty()) {
    NodeFit out;
    out.error = "node(s) had a pod whose GPU allocation did not decode: " + bad;
    out.use_unknown = true;
    return out;
  }
  return fit_pod(request, *node.node->gpus, node_usage(*node.node->gpus, node.pods));
}

std::shared_ptr<const PodShares> shares_on_node(const Pod& pod, const NodeInfo& node,
                                                const SharingConfig& config) {
  const PodRequest request = pod_request(pod, config);
  if (!request.asks() || !node.node || !node.node->gpus) return nullptr;
  const NodeFit fit = fit_on_node(request, node);
  if (!fit.fits) return nullptr;
  return std::make_shared<const PodShares>(collapse_allocation(fit.allocation, pod.init_containers.size()));
}

PodShares collapse_allocation(const PodAllocation& allocation, size_t init_containers) {
  // pkg/device/initContainer.go CollapseInitContainerUsage: init containers run one after another (their
  // peak, one slot), the containers together (their sum, a slot each); a card holds the larger.
  struct Use {
    int32_t memory = 0, cores = 0, slots = 0;
  };
  std::map<std::string, std::pair<Use, Use>> by_card;  // uuid -> (init peak, containers' sum), UUID order
  for (size_t i = 0; i < allocation.size(); ++i) {
    for (const auto& c : allocation[i]) {
      auto& [init, app] = by_card[c.uuid];
      if (i < init_containers) {
        init.memory = std::max(init.memory, c.memory);
        init.cores = std::max(init.cores, c.cores);
        init.slots = 1;
      } else {
        app.memory += c.memory;
        app.cores += c.cores;
        ++app.slots;
      }
    }
  }
  PodShares out;
  for (const auto& [uuid, use] : by_card) {
    const auto& [init, app] = use;
    out.shares.push_back(DeviceShare{uuid, std::max({init.slots, app.slots, 1}),
                                     std::max(init.memory, app.memory), std::max(init.cores, app.cores)});
  }
  return out;
}

}  // namespace kext::gpu

#include "tools/gen/cluster.h"

#include <algorithm>

#include "tools/gen/prng.h"

namespace kext::gen {

namespace {

constexpr int64_t kEpoch = 1767225600;  // 2026-01-01T00:00:00Z: fixed so that output depends on the seed only
constexpr size_t kImagePool = 400;
constexpr size_t kSystemImages = 10;  // on every node: kube-proxy, CNI, log shipper...
constexpr size_t kImagesPerNode = 50;
constexpr size_t kApps = 60;
const char* const kNamespaces[] = {"default", "payments", "search", "batch", "web"};
constexpr int32_t kPriorities[] = {0, 100, 100, 1000, 1000, 1000, 10000};

struct InstanceType {
  const char* name;
  int64_t cpu;
  int64_t memory_gi;
};
constexpr InstanceType kInstanceTypes[] = {
    {"m5.xlarge", 4, 16}, {"m5.2xlarge", 8, 32}, {"m5.4xlarge", 16, 64}, {"c5.4xlarge", 16, 32}, {"r5.2xlarge", 8, 64}};

std::vector<Image> make_images(Prng& rng) {
  std::vector<Image> images;
  for (size_t i = 0; i < kImagePool; ++i) {
    Image im;
    im.repo = i < kSystemImages ? "registry.k8s.io/system/component-" + std::to_string(i)
                                : "registry.example.com/team-" + std::to_string(i % 23) + "/service-" + std::to_string(i);
    im.tag = "v1." + std::to_string(rng.below(30)) + "." + std::to_string(rng.below(20));
    im.digest = rng.hex(64);
    im.size_bytes = 5'000'000 + static_cast<int64_t>(rng.below(900'000'000));
    images.push_back(std::move(im));
  }
  return images;
}

std::string condition(const char* type, const char* status, const char* reason, const char* message, int64_t t) {
  return std::string(R"({"type":")") + type + R"(","status":")" + status + R"(","lastHeartbeatTime":")" +
         rfc3339(kEpoch + 86400 * 30) + R"(","lastTransitionTime":")" + rfc3339(t) + R"(","reason":")" + reason +
         R"(","message":")" + message + "\"}";
}

NodeSpec make_node(size_t i, const std::vector<Image>& images, Prng& rng) {
  NodeSpec n;
  char name[32];
  std::snprintf(name, sizeof name, "node-%05zu", i);
  n.name = name;
  const InstanceType& it = kInstanceTypes[rng.below(std::size(kInstanceTypes))];
  const std::string zone = std::string("eu-west-1") + static_cast<char>('a' + i % 3);
  const int64_t created = kEpoch + static_cast<int64_t>(rng.below(86400 * 20));
  n.unschedulable = rng.chance(1);
  n.dedicated = rng.chance(8);
  const bool prefer_no_schedule = rng.chance(5);
  n.cpu_milli = it.cpu * 1000 - 90;
  n.memory_ki = it.memory_gi * 1024 * 1024 - 1536 * 1024;
  const std::string ip = "10." + std::to_string(i / 65536 % 256) + "." + std::to_string(i / 256 % 256) + "." +
                         std::to_string(i % 256);
  const std::string pool = n.dedicated ? "batch" : (i % 4 == 0 ? "general-b" : "general-a");

  // Keys sorted bytewise, as Go marshals maps.
  std::string s = R"({"metadata":{"name":")" + n.name + R"(","uid":")" + rng.uid() + R"(","resourceVersion":")" +
                  std::to_string(1000000 + rng.below(9000000)) + R"(","creationTimestamp":")" + rfc3339(created) +
                  R"(","labels":{"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/instance-type":")" + it.name +
                  R"(","beta.kubernetes.io/os":"linux","disk":")" + (i % 2 ? "ssd" : "hdd") +
                  R"(","failure-domain.beta.kubernetes.io/region":"eu-west-1","failure-domain.beta.kubernetes.io/zone":")" +
                  zone + R"(","kubernetes.io/arch":"amd64","kubernetes.io/hostname":")" + n.name +
                  R"(","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":")" + it.name +
                  R"(","nodepool":")" + pool + R"(","topology.kubernetes.io/region":"eu-west-1","topology.kubernetes.io/zone":")" +
                  zone + R"("},"annotations":{"csi.volume.kubernetes.io/nodeid":"{\"ebs.csi.aws.com\":\"i-)" + rng.hex(17) +
                  R"(\"}","node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true"}},"spec":{"podCIDR":"10.244.)" +
                  std::to_string(i % 256) + R"(.0/24","podCIDRs":["10.244.)" + std::to_string(i % 256) +
                  R"(.0/24"],"providerID":"aws:///)" + zone + "/i-" + rng.hex(17) + "\"";
  if (n.unschedulable) s += R"(,"unschedulable":true)";
  std::vector<std::string> taints;
  if (n.unschedulable) taints.push_back(R"({"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule","timeAdded":")" + rfc3339(created + 3600) + "\"}");
  if (n.dedicated) taints.push_back(R"({"key":"dedicated","value":"batch","effect":"NoSchedule"})");
  if (prefer_no_schedule) taints.push_back(R"({"key":"spot","value":"true","effect":"PreferNoSchedule"})");
  if (!taints.empty()) {
    s += R"(,"taints":[)";
    for (size_t k = 0; k < taints.size(); ++k) s += (k ? "," : "") + taints[k];
    s += "]";
  }
  const std::string cpu = std::to_string(it.cpu), mem = std::to_string(it.memory_gi * 1024 * 1024) + "Ki";
  s += R"(},"status":{"capacity":{"cpu":")" + cpu + R"(","ephemeral-storage":"104845292Ki","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":")" +
       mem + R"(","pods":"110"},"allocatable":{"cpu":")" + std::to_string(n.cpu_milli) +
       R"(m","ephemeral-storage":"95551679124","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":")" +
       std::to_string(n.memory_ki) + R"(Ki","pods":"110"},"conditions":[)" +
       condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available", created) + "," +
       condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", created) + "," +
       condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available", created) + "," +
       condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", created + 40) +
       R"(],"addresses":[{"type":"InternalIP","address":")" + ip + R"("},{"type":"Hostname","address":"ip-)" + ip +
       R"(.eu-west-1.compute.internal"},{"type":"InternalDNS","address":"ip-)" + ip +
       R"(.eu-west-1.compute.internal"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{"machineID":")" +
       rng.hex(32) + R"(","systemUUID":")" + rng.uid() + R"(","bootID":")" + rng.uid() +
       R"x(","kernelVersion":"6.1.0-18-cloud-amd64","osImage":"Debian GNU/Linux 12 (bookworm)","containerRuntimeVersion":"containerd://1.7.13","kubeletVersion":"v1.30.4","kubeProxyVersion":"v1.30.4","operatingSystem":"linux","architecture":"amd64"},"images":[)x";
  // The kubelet lists images largest first; system images are everywhere, the rest vary by node.
  std::vector<size_t> picked;
  for (size_t k = 0; k < kSystemImages; ++k) picked.push_back(k);
  while (picked.size() < kImagesPerNode) {
    size_t k = kSystemImages + rng.below(images.size() - kSystemImages);
    if (std::find(picked.begin(), picked.end(), k) == picked.end()) picked.push_back(k);
  }
  std::sort(picked.begin(), picked.end(), [&](size_t a, size_t b) {
    return images[a].size_bytes != images[b].size_bytes ? images[a].size_bytes > images[b].size_bytes : a < b;
  });
  for (size_t k = 0; k < picked.size(); ++k) {
    const Image& im = images[picked[k]];
    s += (k ? R"(,{"names":[")" : R"({"names":[")") + im.repo + "@sha256:" + im.digest + "\",\"" + im.repo + ":" +
         im.tag + R"("],"sizeBytes":)" + std::to_string(im.size_bytes) + "}";
  }
  s += "]}}";
  n.json = std::move(s);
  return n;
}

}  // namespace

size_t feasible_nodes_to_find(size_t nodes) {
  if (nodes < 100) return nodes;
  int64_t percentage = 50 - static_cast<int64_t>(nodes) / 125;
  if (percentage < 5) percentage = 5;
  return std::max<size_t>(100, nodes * static_cast<size_t>(percentage) / 100);
}

size_t preemption_candidates(size_t nodes) { return std::min(nodes, std::max<size_t>(100, nodes / 10)); }

Cluster make_cluster(const GenOptions& o) {
  Prng rng(o.seed);
  Cluster c;
  c.images = make_images(rng);
  c.nodes.reserve(o.nodes);
  for (size_t i = 0; i < o.nodes; ++i) c.nodes.push_back(make_node(i, c.images, rng));

  std::vector<std::string> app_hash, app_owner;
  for (size_t a = 0; a < kApps; ++a) {
    app_hash.push_back(rng.hex(10));
    app_owner.push_back(rng.uid());
  }
  c.pods_on.resize(o.nodes);
  for (size_t i = 0; i < o.nodes; ++i) {
    const NodeSpec& n = c.nodes[i];
    // Up to ~70% of the node requested, so that most pods fit somewhere and preemption has work.
    const int64_t cpu_budget = n.cpu_milli * 7 / 10 / static_cast<int64_t>(std::max<size_t>(1, o.pods_per_node));
    const int64_t mem_budget = n.memory_ki / 1024 * 7 / 10 / static_cast<int64_t>(std::max<size_t>(1, o.pods_per_node));
    for (size_t k = 0; k < o.pods_per_node; ++k) {
      PodSpec p;
      const size_t a = rng.below(kApps);
      p.app = "app-" + std::to_string(a);
      p.namespace_ = kNamespaces[a % std::size(kNamespaces)];
      p.template_hash = app_hash[a];
      p.owner_uid = app_owner[a];
      p.name = p.app + "-" + p.template_hash + "-" + rng.hex(5);
      p.uid = rng.uid();
      p.node = n.name;
      p.image = c.images[kSystemImages + a * 5 % (kImagePool - kSystemImages)].repo + ":" +
                c.images[kSystemImages + a * 5 % (kImagePool - kSystemImages)].tag;
      p.priority = kPriorities[rng.below(std::size(kPriorities))];
      p.cpu_milli = 50 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(std::max<int64_t>(1, cpu_budget * 3 / 2))));
      p.memory_mi = 64 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(std::max<int64_t>(1, mem_budget * 3 / 2))));
      p.created = kEpoch + 86400 * 21 + static_cast<int64_t>(rng.below(86400 * 7));
      p.tolerates_dedicated = n.dedicated;
      c.pods_on[i].push_back(c.pods.size());
      c.pods.push_back(std::move(p));
    }
  }
  // A budget over every third app; some allow no disruption, so preemption has violations to weigh.
  for (size_t a = 0; a < kApps; a += 3) {
    PdbSpec pdb;
    pdb.app = "app-" + std::to_string(a);
    pdb.name = pdb.app + "-pdb";
    pdb.namespace_ = kNamespaces[a % std::size(kNamespaces)];
    pdb.uid = rng.uid();
    pdb.min_available = 1 + static_cast<int32_t>(rng.below(3));
    pdb.disruptions_allowed = static_cast<int32_t>(rng.below(3));
    c.pdbs.push_back(std::move(pdb));
  }
  return c;
}

}  // namespace kext::gen

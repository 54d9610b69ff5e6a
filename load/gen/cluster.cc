#include "load/gen/cluster.h"

#include <algorithm>

#include "load/gen/prng.h"

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
constexpr InstanceType kInstanceTypes[] = {{"m5.xlarge", 4, 16},
                                           {"m5.2xlarge", 8, 32},
                                           {"m5.4xlarge", 16, 64},
                                           {"c5.4xlarge", 16, 32},
                                           {"r5.2xlarge", 8, 64}};

std::vector<Image> make_images(Prng& rng) {
  std::vector<Image> images;
  for (size_t i = 0; i < kImagePool; ++i) {
    Image im;
    im.repo = i < kSystemImages
                  ? "registry.k8s.io/system/component-" + std::to_string(i)
                  : "registry.example.com/team-" + std::to_string(i % 23) + "/service-" + std::to_string(i);
    const uint64_t minor = rng.below(30);
    im.tag = "v1." + std::to_string(minor) + "." + std::to_string(rng.below(20));
    im.digest = rng.hex(64);
    im.size_bytes = 5'000'000 + static_cast<int64_t>(rng.below(900'000'000));
    images.push_back(std::move(im));
  }
  return images;
}

// Where node `i` stands in the generated fleet.
struct NodePlace {
  std::string ip;
  std::string host;  // the DNS name EC2 gives the node's primary address, which is the node's name on EKS
  std::string zone;
  std::string pool;
  int64_t created = 0;
};

std::string node_ip(size_t i) {
  return "10." + std::to_string(i / 65536 % 256) + "." + std::to_string(i / 256 % 256) + "." +
         std::to_string(i % 256);
}

std::string node_host(const std::string& ip) {
  std::string dashed = ip;
  std::replace(dashed.begin(), dashed.end(), '.', '-');
  return "ip-" + dashed + ".eu-west-1.compute.internal";
}

// ObjectMeta: the labels the kubelet registers the node with (pkg/kubelet/kubelet_node_status.go
// initialNode, the cloud provider's instance type and topology), then the cluster's own.
void set_node_metadata(kubeobjects::Node& o, const NodeSpec& n, const InstanceType& it, const NodePlace& at,
                       size_t i, Prng& rng) {
  o.metadata.name = n.name;
  o.metadata.uid = rng.uid();
  o.metadata.resource_version = std::to_string(1000000 + rng.below(9000000));
  o.metadata.created = at.created;
  o.metadata.labels = {{"beta.kubernetes.io/arch", "amd64"},
                       {"beta.kubernetes.io/instance-type", it.name},
                       {"beta.kubernetes.io/os", "linux"},
                       {"disk", i % 2 ? "ssd" : "hdd"},
                       {"failure-domain.beta.kubernetes.io/region", "eu-west-1"},
                       {"failure-domain.beta.kubernetes.io/zone", at.zone},
                       {"kubernetes.io/arch", "amd64"},
                       {"kubernetes.io/hostname", n.name},
                       {"kubernetes.io/os", "linux"},
                       {"node.kubernetes.io/instance-type", it.name},
                       {"nodepool", at.pool},
                       {"topology.kubernetes.io/region", "eu-west-1"},
                       {"topology.kubernetes.io/zone", at.zone}};
  o.metadata.annotations = {
      {"csi.volume.kubernetes.io/nodeid", R"({"ebs.csi.aws.com":"i-)" + rng.hex(17) + "\"}"},
      {"node.alpha.kubernetes.io/ttl", "0"},
      {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}};
}

// NodeSpec: pod CIDR, provider ID and the taints (the node lifecycle controller's unschedulable taint
// on a cordoned node).
void set_node_spec(kubeobjects::Node& o, const NodeSpec& n, const NodePlace& at, bool prefer_no_schedule,
                   size_t i, Prng& rng) {
  o.pod_cidr = "10.244." + std::to_string(i % 256) + ".0/24";
  o.pod_cidrs = {o.pod_cidr};
  o.provider_id = "aws:///" + at.zone + "/i-" + rng.hex(17);
  o.unschedulable = n.unschedulable;
  if (n.unschedulable)
    o.taints.push_back({"node.kubernetes.io/unschedulable", "", "NoSchedule", at.created + 3600});
  if (n.dedicated) o.taints.push_back({"dedicated", "batch", "NoSchedule", 0});
  if (prefer_no_schedule) o.taints.push_back({"spot", "true", "PreferNoSchedule", 0});
}

// NodeStatus as the kubelet reports it (pkg/kubelet/nodestatus/setters.go MachineInfo, the pressure and
// Ready conditions, NodeAddress, VersionInfo), allocatable being NodeSpec's cpu_milli and memory_ki.
void set_node_status(kubeobjects::Node& o, const NodeSpec& n, const InstanceType& it, const NodePlace& at,
                     Prng& rng) {
  o.capacity = {{"cpu", std::to_string(it.cpu)},
                {"ephemeral-storage", "104845292Ki"},
                {"hugepages-1Gi", "0"},
                {"hugepages-2Mi", "0"},
                {"memory", std::to_string(it.memory_gi * 1024 * 1024) + "Ki"},
                {"pods", "110"}};
  o.allocatable = {{"cpu", std::to_string(n.cpu_milli) + "m"},
                   {"ephemeral-storage", "95551679124"},
                   {"hugepages-1Gi", "0"},
                   {"hugepages-2Mi", "0"},
                   {"memory", std::to_string(n.memory_ki) + "Ki"},
                   {"pods", "110"}};
  const int64_t heartbeat = kEpoch + 86400 * 30;
  o.conditions = {
      {"MemoryPressure", "False", heartbeat, at.created, "KubeletHasSufficientMemory",
       "kubelet has sufficient memory available"},
      {"DiskPressure", "False", heartbeat, at.created, "KubeletHasNoDiskPressure",
       "kubelet has no disk pressure"},
      {"PIDPressure", "False", heartbeat, at.created, "KubeletHasSufficientPID",
       "kubelet has sufficient PID available"},
      {"Ready", "True", heartbeat, at.created + 40, "KubeletReady", "kubelet is posting ready status"}};
  o.addresses = {{"InternalIP", at.ip}, {"Hostname", at.host}, {"InternalDNS", at.host}};
  o.kubelet_port = 10250;
  kubeobjects::NodeSystemInfo& info = o.node_info.emplace();
  info.machine_id = rng.hex(32);
  info.system_uuid = rng.uid();
  info.boot_id = rng.uid();
  info.kernel_version = "6.1.0-18-cloud-amd64";
  info.os_image = "Debian GNU/Linux 12 (bookworm)";
  info.container_runtime_version = "containerd://1.7.13";
  info.kubelet_version = "v1.30.4";
  info.kube_proxy_version = "v1.30.4";
  info.operating_system = "linux";
  info.architecture = "amd64";
}

// status.images: the kubelet lists them largest first (pkg/kubelet/nodestatus/setters.go Images); system
// images are everywhere, the rest vary by node.
void set_node_images(kubeobjects::Node& o, const std::vector<Image>& images, Prng& rng) {
  std::vector<size_t> picked;
  for (size_t k = 0; k < kSystemImages; ++k) picked.push_back(k);
  while (picked.size() < kImagesPerNode) {
    size_t k = kSystemImages + rng.below(images.size() - kSystemImages);
    if (std::find(picked.begin(), picked.end(), k) == picked.end()) picked.push_back(k);
  }
  std::sort(picked.begin(), picked.end(), [&](size_t a, size_t b) {
    return images[a].size_bytes != images[b].size_bytes ? images[a].size_bytes > images[b].size_bytes : a < b;
  });
  for (size_t k : picked) {
    const Image& im = images[k];
    o.images.push_back({{im.repo + "@sha256:" + im.digest, im.repo + ":" + im.tag}, im.size_bytes});
  }
}

NodeSpec make_node(size_t i, bool cloud_name, const std::vector<Image>& images, Prng& rng) {
  NodeSpec n;
  NodePlace at;
  at.ip = node_ip(i);
  at.host = node_host(at.ip);
  if (cloud_name) {
    n.name = at.host;
  } else {
    char name[32];
    std::snprintf(name, sizeof name, "node-%05zu", i);
    n.name = name;
  }
  const InstanceType& it = kInstanceTypes[rng.below(std::size(kInstanceTypes))];
  at.zone = std::string("eu-west-1") + static_cast<char>('a' + i % 3);
  at.created = kEpoch + static_cast<int64_t>(rng.below(86400 * 20));
  n.unschedulable = rng.chance(1);
  n.dedicated = rng.chance(8);
  const bool prefer_no_schedule = rng.chance(5);
  n.cpu_milli = it.cpu * 1000 - 90;
  n.memory_ki = it.memory_gi * 1024 * 1024 - 1536 * 1024;
  at.pool = n.dedicated ? "batch" : (i % 4 == 0 ? "general-b" : "general-a");

  set_node_metadata(n.object, n, it, at, i, rng);
  set_node_spec(n.object, n, at, prefer_no_schedule, i, rng);
  set_node_status(n.object, n, it, at, rng);
  set_node_images(n.object, images, rng);
  n.json = kubeobjects::to_json(n.object);
  return n;
}

}  // namespace

size_t feasible_nodes_to_find(size_t nodes) {
  if (nodes < 100) return nodes;
  int64_t percentage = 50 - static_cast<int64_t>(nodes) / 125;
  if (percentage < 5) percentage = 5;
  return std::max<size_t>(100, nodes * static_cast<size_t>(percentage) / 100);
}

void write_cluster_list(const Cluster& c, const std::function<void(std::string_view)>& out) {
  rapidjson::StringBuffer buf;
  kubeobjects::JsonWriter w(buf);
  // The writer keeps its nesting, so the buffer can be handed on and emptied after every item.
  auto flush = [&] {
    out(std::string_view(buf.GetString(), buf.GetSize()));
    buf.Clear();
  };
  w.StartObject();
  w.Key("kind");
  w.String("List");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("metadata");
  w.StartObject();
  w.Key("resourceVersion");
  w.String("");
  w.EndObject();
  w.Key("items");
  w.StartArray();
  for (const auto& n : c.nodes) {
    kubeobjects::write(w, n.object, kubeobjects::TypeMeta::kWrite);
    flush();
  }
  for (const auto& p : c.pods) {
    kubeobjects::write(w, pod_object(p), kubeobjects::TypeMeta::kWrite);
    flush();
  }
  for (const auto& p : c.pdbs) kubeobjects::write(w, pdb_object(p), kubeobjects::TypeMeta::kWrite);
  w.EndArray();
  w.EndObject();
  flush();
  out("\n");
}

std::string cluster_list_json(const Cluster& c) {
  std::string s;
  write_cluster_list(c, [&](std::string_view piece) { s += piece; });
  return s;
}

size_t preemption_candidates(size_t nodes) { return std::min(nodes, std::max<size_t>(100, nodes / 10)); }

Cluster make_cluster(const GenOptions& o) {
  Prng rng(o.seed);
  Cluster c;
  c.images = make_images(rng);
  c.nodes.reserve(o.nodes);
  for (size_t i = 0; i < o.nodes; ++i) c.nodes.push_back(make_node(i, o.cloud_names, c.images, rng));

  std::vector<std::string> app_hash, app_owner;
  for (size_t a = 0; a < kApps; ++a) {
    app_hash.push_back(rng.hex(10));
    app_owner.push_back(rng.uid());
  }
  c.pods_on.resize(o.nodes);
  for (size_t i = 0; i < o.nodes; ++i) {
    const NodeSpec& n = c.nodes[i];
    // Up to seven tenths of the node requested, so that most pods fit somewhere and preemption has work.
    const int64_t cpu_budget =
        n.cpu_milli * 7 / 10 / static_cast<int64_t>(std::max<size_t>(1, o.pods_per_node));
    const int64_t mem_budget =
        n.memory_ki / 1024 * 7 / 10 / static_cast<int64_t>(std::max<size_t>(1, o.pods_per_node));
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
      p.cpu_milli = 50 + static_cast<int64_t>(
                             rng.below(static_cast<uint64_t>(std::max<int64_t>(1, cpu_budget * 3 / 2))));
      p.memory_mi = 64 + static_cast<int64_t>(
                             rng.below(static_cast<uint64_t>(std::max<int64_t>(1, mem_budget * 3 / 2))));
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

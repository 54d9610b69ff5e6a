#include "algorithms/filters/node_ports.h"

namespace kext {
namespace {

// HostPortInfo's wildcard address (pkg/scheduler/framework/types.go DefaultBindAllHostIP).
constexpr std::string_view kBindAllHostIP = "0.0.0.0";

// HostPortInfo.sanitize: an empty host IP is the wildcard and an empty protocol is TCP. Decoded pods
// already carry "TCP"; a model built by hand may not.
std::string_view host_ip_of(const HostPort& p) { return p.host_ip.empty() ? kBindAllHostIP : p.host_ip; }
std::string_view protocol_of(const HostPort& p) {
  return p.protocol.empty() ? std::string_view("TCP") : std::string_view(p.protocol);
}

// HostPortInfo.CheckConflict for one used port: the same protocol and port, and host IPs that are
// equal or of which either is the wildcard. Ports <= 0 are never added nor checked (Add, CheckConflict).
// Only "0.0.0.0" is the wildcard there, not "::".
bool conflicts(const HostPort& want, const HostPort& used) {
  if (want.port <= 0 || used.port <= 0 || want.port != used.port) return false;
  if (protocol_of(want) != protocol_of(used)) return false;
  const std::string_view a = host_ip_of(want), b = host_ip_of(used);
  return a == kBindAllHostIP || b == kBindAllHostIP || a == b;
}

class PodFitsHostPorts final : public AliasedFilter {
 public:
  explicit PodFitsHostPorts(std::string_view shown_as)
      : AliasedFilter(kPodFitsHostPortsPredicate, shown_as) {}

  // Its cost per node: bench/engine_bench.cc BM_FilterPluginCost (ten pods a node, none with a host port).
  uint64_t cost_per_node_ns() const override { return 3; }

  // A pod without host ports fits every node: PreFilter returns Skip (nodeports/node_ports.go).
  bool can_fail(const PodContext& pod) const override { return !pod.pod.host_ports.empty(); }

  // kube-scheduler keeps each node's used ports in NodeInfo.UsedPorts (types.go updateUsedPorts, from
  // util.GetHostPorts of every pod on the node); here they are read from the node's pods, which the
  // decoder gave the same ports (k8s_decode.cc decode_pod). Most pods have none, so this is a walk
  // over the node's pods and, for the few with host ports, a handful of comparisons.
  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    const std::vector<HostPort>& wanted = pod.pod.host_ports;
    if (wanted.empty()) return FilterCode::kSuccess;
    for (const auto& info : node.pods) {
      for (const HostPort& used : info->pod->host_ports) {
        for (const HostPort& want : wanted) {
          if (conflicts(want, used)) {
            reasons.emplace_back("node(s) didn't have free ports for the requested pod ports");
            return FilterCode::kUnschedulable;
          }
        }
      }
    }
    return FilterCode::kSuccess;
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_node_ports_filter(std::string_view shown_as) {
  return std::make_unique<PodFitsHostPorts>(shown_as);
}

}  // namespace kext

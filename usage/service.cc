#include "usage/service.h"

#include <stdexcept>
#include <string>

#include "usage/metrics_api_source.h"

namespace kext::usage {

namespace {

// The well-known label the kubelet sets to the node's hostname (k8s.io/api/core/v1
// well_known_labels.go LabelHostname).
constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";

const Node* node_named(const ClusterState& state, std::string_view name) {
  const NodeInfo* info = state.find_node(name);
  return info && info->node ? info->node.get() : nullptr;
}

std::unique_ptr<Source> make_source(const UsageConfig& config, kube::ApiClient* api,
                                    const StateStore& state) {
  if (config.source == UsageSourceKind::kPrometheus)
    return std::make_unique<PrometheusSource>(config.prometheus, node_resolver_from(state));
  if (!api) {
    throw std::runtime_error(
        "usage.source metricsAPI reads the Kubernetes API: give --in-cluster, --kubeconfig or --api-server");
  }
  return std::make_unique<MetricsApiSource>(*api);
}

}  // namespace

AllocatableOf allocatable_from(const StateStore& state) {
  return [&state](std::string_view name) -> std::optional<Allocatable> {
    const Node* node = node_named(*state.current(), name);
    if (!node) return std::nullopt;
    return Allocatable{node->allocatable.milli_cpu, node->allocatable.memory};
  };
}

NodeResolver node_resolver_from(const StateStore& state) {
  return [&state](std::string_view value) -> std::string {
    const std::string_view host = strip_port(value);
    const std::shared_ptr<const ClusterState> s = state.current();
    if (node_named(*s, host)) return std::string(host);
    std::string found;
    s->nodes.for_each([&](const auto&, const std::shared_ptr<const NodeInfo>& info) {
      if (!found.empty() || !info || !info->node) return;
      auto it = info->node->labels.find(std::string(kHostnameLabel));
      if (it != info->node->labels.end() && it->second == host) found = info->node->name;
    });
    return found;
  };
}

Service::Service(const UsageConfig& config, kube::ApiClient* api, StateStore& state,
                 std::function<void()> on_error)
    : source_(make_source(config, api, state)) {
  store_ = std::make_unique<Store>(
      StoreSettings(config), allocatable_from(state), unix_ms_now, LogFn(),
      [&state](std::shared_ptr<const UsageView> v) { state.publish_usage(std::move(v)); });
  poller_ = std::make_unique<Poller>(*source_, *store_, std::chrono::seconds(config.interval_seconds),
                                     std::move(on_error));
}

Service::~Service() { stop(); }

}  // namespace kext::usage

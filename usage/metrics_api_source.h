#pragma once
// Node usage from the resource metrics API (metrics.k8s.io/v1beta1 NodeMetrics, as metrics-server
// serves it and `kubectl top nodes` reads it), listed through the extender's API client.
#include <string_view>

#include "kube/client/api_client.h"
#include "usage/source.h"

namespace kext::usage {

inline constexpr std::string_view kNodeMetricsPath = "/apis/metrics.k8s.io/v1beta1/nodes";

class MetricsApiSource final : public Source {
 public:
  explicit MetricsApiSource(kube::ApiClient& api) : api_(api) {}
  std::string_view name() const override { return "metricsAPI"; }
  FetchResult fetch() override;

 private:
  kube::ApiClient& api_;
};

// A NodeMetricsList's items as samples: metadata.name, usage.cpu and usage.memory (quantities),
// timestamp (RFC 3339). An item that cannot be read is an error naming it: the list is one answer.
FetchResult parse_node_metrics_list(std::string_view body);

}  // namespace kext::usage

#pragma once
// Where node usage samples come from: one fetch of every node's current usage, run by the poller
// (poller.h) off the request path. Implementations: MetricsApiSource (metrics_api_source.h) and
// PrometheusSource (prometheus_source.h).
#include <string_view>

#include "usage/usage_store.h"

namespace kext::usage {

class Source {
 public:
  virtual ~Source() = default;
  // The source's name in logs and in kube_extender_usage_fetch_errors_total{source}.
  virtual std::string_view name() const = 0;
  // Every node's latest sample, or the error; never throws.
  virtual FetchResult fetch() = 0;
};

}  // namespace kext::usage

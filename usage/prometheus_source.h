#pragma once
// Node usage from Prometheus: two instant queries (/api/v1/query), one giving each node's CPU in use
// (cores) and one its memory in use (bytes), node-exporter's metrics by default (policy/usage_config.h).
// A result's `nodeLabel` label names the node (NodeResolver).
//
// Use: PrometheusSource source(config, resolver); FetchResult r = source.fetch(); r.samples (one per
// node both queries name) or r.error. fetch() blocks for at most the timeout of each query.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy/usage_config.h"
#include "usage/source.h"

namespace httplib {
class Client;
}  // namespace httplib

namespace kext::usage {

// A label value as the node it names; "" when it names none (the series is skipped).
using NodeResolver = std::function<std::string(std::string_view label_value)>;

// "10.0.0.1:9100" -> "10.0.0.1", "node-1:9100" -> "node-1", "[fd00::1]:9100" -> "fd00::1"; a value
// without a port is returned whole.
std::string_view strip_port(std::string_view value);

// One series of an instant vector: its `nodeLabel` value, its value and the evaluation time.
struct VectorPoint {
  std::string label;
  double value = 0;
  int64_t unix_ms = 0;
};
struct VectorResult {
  std::vector<VectorPoint> points;
  std::string error;  // empty: success
};

// An /api/v1/query answer (Prometheus' HTTP API: status, data.resultType "vector", data.result[] of
// {metric, value: [time, "value"]}). A series without `node_label`, or whose value is not a finite
// number (NaN, +Inf), is skipped; status "error" is an error with Prometheus' errorType and error.
VectorResult parse_query_response(std::string_view body, std::string_view node_label);

// The samples of the nodes both results name, by `resolve` (strip_port then the name when empty):
// CPU cores as millicores, memory bytes, measured at the later of the two evaluation times.
FetchResult join_results(const VectorResult& cpu, const VectorResult& memory, const NodeResolver& resolve);

class PrometheusSource final : public Source {
 public:
  // resolve: how a label value names a node; empty: strip_port of the value is the node's name.
  explicit PrometheusSource(PrometheusUsageConfig config, NodeResolver resolve = {},
                            std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~PrometheusSource() override;
  std::string_view name() const override { return "prometheus"; }
  FetchResult fetch() override;
  const PrometheusUsageConfig& config() const { return config_; }

 private:
  VectorResult query(const std::string& promql);

  PrometheusUsageConfig config_;
  NodeResolver resolve_;
  std::string path_prefix_;  // the url's path, without a trailing '/'
  std::string query_url_;    // for errors: the url of /api/v1/query
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace kext::usage

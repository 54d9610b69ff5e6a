#pragma once
// The ExtenderConfiguration's `usage:` section: where the load-aware plugins' node usage comes from
// (usage/: the metrics API or Prometheus), how often it is read and when it counts as stale. Decoded
// strictly, as the rest of the file (config.h): errors are PolicyErrors naming the field's path.
#include <cstdint>
#include <string>
#include <string_view>

#include "json/json.h"

namespace kext {

enum class UsageSourceKind { kMetricsApi, kPrometheus };

// node-exporter's metrics: CPU cores in use and memory bytes in use, by instance.
inline constexpr std::string_view kDefaultPrometheusCpuQuery =
    R"(sum by (instance) (rate(node_cpu_seconds_total{mode!="idle"}[1m])))";
inline constexpr std::string_view kDefaultPrometheusMemoryQuery =
    "node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes";
inline constexpr std::string_view kDefaultPrometheusNodeLabel = "instance";

struct PrometheusUsageConfig {
  std::string url;  // "http://prometheus.monitoring:9090", a path prefix allowed
  std::string cpu_query{kDefaultPrometheusCpuQuery};
  std::string memory_query{kDefaultPrometheusMemoryQuery};
  // The result label whose value names the node: its name, or its kubernetes.io/hostname label, a
  // ":port" suffix ignored (node-exporter's instance is "host:9100").
  std::string node_label{kDefaultPrometheusNodeLabel};
  bool operator==(const PrometheusUsageConfig&) const = default;
};

struct UsageConfig {
  UsageSourceKind source = UsageSourceKind::kMetricsApi;
  int64_t interval_seconds = 30;
  int64_t stale_after_seconds = 120;
  int64_t window_seconds = 600;
  double estimate_fraction = 1.0;    // UsageView::estimate_fraction, 0..1
  PrometheusUsageConfig prometheus;  // source prometheus only
  bool operator==(const UsageConfig&) const = default;
};

// `v` at `path` ("usage"). Throws PolicyError("<path>.<field>: <what>").
UsageConfig parse_usage_config(const json::Value& v, const std::string& path);

// The section as config_to_json writes it, every field given (prometheus only with that source).
rapidjson::Document usage_config_document(const UsageConfig& c);

std::string_view usage_source_name(UsageSourceKind kind);

}  // namespace kext

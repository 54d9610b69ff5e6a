// The configuration files of examples/ load as the extender loads --config, so that one copied from
// there starts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "policy/config.h"

namespace kext {
namespace examples_test {
namespace {

const std::filesystem::path kExamples = std::filesystem::path(KEXT_SOURCE_DIR) / "examples";

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The extender's own kinds and kube-scheduler's; the other YAML files there are other programs' (a
// Prometheus configuration).
bool is_scheduling_file(const std::string& text) {
  return text.find("apiVersion: " + std::string(kConfigApiVersion)) != std::string::npos ||
         text.find("apiVersion: " + std::string(kSchedulerConfigApiVersion)) != std::string::npos;
}

TEST(Examples, EveryConfigurationLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string text = read_text(entry.path());
    if (!is_scheduling_file(text)) continue;
    EXPECT_NO_THROW(load_scheduling_file(text)) << entry.path();
    ++loaded;
  }
  EXPECT_GE(loaded, 4);  // kube-scheduler-config, pack, spread, load-aware
}

TEST(Examples, LoadAwareScoresByPrometheusUsage) {
  const LoadedFile loaded = load_scheduling_file(read_text(kExamples / "load-aware.yaml"));
  ASSERT_TRUE(loaded.usage.has_value());
  EXPECT_EQ(loaded.usage->source, UsageSourceKind::kPrometheus);
  EXPECT_EQ(loaded.usage->prometheus.url, "http://prometheus-server.monitoring.svc:9090");
  // node-exporter's queries, as examples/prometheus-node-exporter.yaml's scrapes label them.
  EXPECT_EQ(loaded.usage->prometheus.cpu_query, kDefaultPrometheusCpuQuery);
  EXPECT_EQ(loaded.usage->prometheus.node_label, "instance");
  const Config config = parse_config(loaded.effective_config);
  ASSERT_EQ(config.scores.size(), 2u);
  EXPECT_EQ(config.scores[0].name, kTargetLoadPackingPlugin);
  EXPECT_EQ(config.scores[1].name, kLoadVariationRiskBalancingPlugin);
  EXPECT_TRUE(config.filters.empty());
  EXPECT_EQ(config.args.target_load_packing.target_utilization, 70);
  EXPECT_EQ(config.args.target_load_packing.default_requests_milli_cpu, 2000);
  EXPECT_EQ(config.args.target_load_packing.default_requests_multiplier, 2.0);
  EXPECT_EQ(config.args.load_variation.safe_variance_sensitivity, 2.0);
}

}  // namespace
}  // namespace examples_test
}  // namespace kext

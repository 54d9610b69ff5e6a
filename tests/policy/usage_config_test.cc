// policy/usage_config.cc: the ExtenderConfiguration's `usage:` section, through the whole file's
// decoder (policy/config.cc) and back through config_to_json.
#include "policy/usage_config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/config.h"

namespace kext {
namespace usage_config_test {
namespace {

std::string with_usage(const std::string& usage) {
  return R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration","usage":)" + usage + "}";
}

std::string error_of(const std::string& usage) {
  try {
    parse_config(with_usage(usage));
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "";
}

TEST(UsageConfig, AbsentMeansNoSource) {
  EXPECT_FALSE(
      parse_config(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})").usage);
  EXPECT_FALSE(load_scheduling_file(default_config_json()).usage);
}

TEST(UsageConfig, DefaultsAndFields) {
  const UsageConfig metrics = *parse_config(with_usage(R"({"source":"metricsAPI"})")).usage;
  EXPECT_EQ(metrics, UsageConfig{});
  EXPECT_EQ(metrics.interval_seconds, 30);
  EXPECT_EQ(metrics.stale_after_seconds, 120);
  EXPECT_EQ(metrics.window_seconds, 600);

  const UsageConfig prom = *parse_config(with_usage(R"({"source":"prometheus","intervalSeconds":15,
      "staleAfterSeconds":60,"windowSeconds":300,"estimateFraction":0.5,
      "prometheus":{"url":"http://prometheus:9090","nodeLabel":"node"}})"))
                                .usage;
  EXPECT_EQ(prom.source, UsageSourceKind::kPrometheus);
  EXPECT_EQ(prom.interval_seconds, 15);
  EXPECT_EQ(prom.stale_after_seconds, 60);
  EXPECT_EQ(prom.window_seconds, 300);
  EXPECT_DOUBLE_EQ(prom.estimate_fraction, 0.5);
  EXPECT_EQ(prom.prometheus.url, "http://prometheus:9090");
  EXPECT_EQ(prom.prometheus.node_label, "node");
  EXPECT_EQ(prom.prometheus.cpu_query, kDefaultPrometheusCpuQuery);
  EXPECT_EQ(prom.prometheus.memory_query, kDefaultPrometheusMemoryQuery);
}

TEST(UsageConfig, ErrorsNameTheField) {
  struct Case {
    std::string usage, error;
  };
  for (const Case& c : std::vector<Case>{
           {"[]", "usage: must be an object, got array"},
           {"{}", "usage.source: required (metricsAPI or prometheus)"},
           {R"({"source":"top"})", "usage.source: unknown value \"top\" (known: metricsAPI, prometheus)"},
           {R"({"source":"metricsAPI","interval":30})", "usage.interval: unknown field"},
           {R"({"source":"metricsAPI","intervalSeconds":"30s"})",
            "usage.intervalSeconds: must be an integer, got string"},
           {R"({"source":"metricsAPI","windowSeconds":0})",
            "usage.windowSeconds: must be in 1..86400, got 0"},
           {R"({"source":"metricsAPI","intervalSeconds":60,"staleAfterSeconds":30})",
            "usage.staleAfterSeconds: must be at least intervalSeconds (60): every sample would be stale"},
           {R"({"source":"metricsAPI","estimateFraction":1.5})", "usage.estimateFraction: must be in 0..1"},
           {R"({"source":"metricsAPI","prometheus":{"url":"http://p"}})",
            "usage.prometheus: only with source prometheus"},
           {R"({"source":"prometheus"})", "usage.prometheus: required with source prometheus (its url)"},
           {R"({"source":"prometheus","prometheus":{}})", "usage.prometheus.url: required"},
           {R"({"source":"prometheus","prometheus":{"url":"prometheus:9090"}})",
            "usage.prometheus.url: must start with http:// or https://, got \"prometheus:9090\""},
           {R"({"source":"prometheus","prometheus":{"url":"http://p","cpuQuery":""}})",
            "usage.prometheus.cpuQuery: must not be empty"},
           {R"({"source":"prometheus","prometheus":{"url":"http://p","query":"up"}})",
            "usage.prometheus.query: unknown field"},
       }) {
    EXPECT_EQ(error_of(c.usage), c.error) << c.usage;
  }
}

TEST(UsageConfig, RoundTripsThroughConfigToJson) {
  for (const std::string& usage :
       {std::string(R"({"source":"metricsAPI","intervalSeconds":10,"estimateFraction":0.25})"),
        std::string(R"({"source":"prometheus","prometheus":{"url":"https://p/prefix","cpuQuery":"a",
                         "memoryQuery":"b","nodeLabel":"node"}})")}) {
    const Config config = parse_config(with_usage(usage));
    ASSERT_TRUE(config.usage);
    EXPECT_EQ(parse_config(config_to_json(config)), config) << usage;
    EXPECT_EQ(parse_config(config_to_json(config, true)), config) << usage;
  }
  EXPECT_EQ(load_scheduling_file(with_usage(R"({"source":"metricsAPI"})")).usage, UsageConfig{});
}

}  // namespace
}  // namespace usage_config_test
}  // namespace kext

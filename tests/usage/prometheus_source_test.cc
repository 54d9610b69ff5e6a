#include "usage/prometheus_source.h"

#include <gtest/gtest.h>

namespace kext::usage {
namespace prometheus_source_test {
namespace {

// /api/v1/query answers as Prometheus writes them (its HTTP API's "Instant queries").
constexpr std::string_view kCpuAnswer = R"({"status":"success","data":{"resultType":"vector","result":[
  {"metric":{"instance":"node-1:9100"},"value":[1700000000.5,"1.25"]},
  {"metric":{"instance":"10.0.0.2:9100"},"value":[1700000000.5,"0.5"]},
  {"metric":{"instance":"node-3:9100"},"value":[1700000000.5,"NaN"]},
  {"metric":{"job":"node"},"value":[1700000000.5,"2"]}]}})";
constexpr std::string_view kMemoryAnswer = R"({"status":"success","data":{"resultType":"vector","result":[
  {"metric":{"instance":"node-1:9100","job":"node"},"value":[1700000001.25,"2147483648"]},
  {"metric":{"instance":"10.0.0.2:9100"},"value":[1700000001.25,"1e9"]},
  {"metric":{"instance":"node-3:9100"},"value":[1700000001.25,"1024"]}]}})";

TEST(PrometheusSource, StripPort) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases{
      {"node-1:9100", "node-1"},     {"node-1", "node-1"},   {"10.0.0.1:9100", "10.0.0.1"},
      {"[fd00::1]:9100", "fd00::1"}, {"fd00::1", "fd00::1"}, {"", ""}};
  for (const auto& [in, want] : cases) EXPECT_EQ(strip_port(in), want) << in;
}

TEST(PrometheusSource, ParsesAnInstantVector) {
  const VectorResult r = parse_query_response(kCpuAnswer, "instance");
  ASSERT_EQ(r.error, "");
  // NaN and the series without the label are skipped.
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].label, "node-1:9100");
  EXPECT_DOUBLE_EQ(r.points[0].value, 1.25);
  EXPECT_EQ(r.points[0].unix_ms, 1700000000500);
}

TEST(PrometheusSource, ParseErrors) {
  struct Case {
    std::string_view body, error;
  };
  for (const Case& c : std::vector<Case>{
           {"not json", "Prometheus: the answer is not a JSON object"},
           {R"({"status":"error","errorType":"bad_data","error":"parse error at char 5"})",
            "Prometheus: bad_data: parse error at char 5"},
           {R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
            "Prometheus: the query's result is not an instant vector"},
       }) {
    EXPECT_EQ(parse_query_response(c.body, "instance").error, c.error) << c.body;
  }
}

TEST(PrometheusSource, JoinsCpuAndMemoryByNode) {
  const VectorResult cpu = parse_query_response(kCpuAnswer, "instance");
  const VectorResult memory = parse_query_response(kMemoryAnswer, "instance");
  // 10.0.0.2 is node-2's address: a resolver maps it, the default (strip_port) does not.
  const NodeResolver resolve = [](std::string_view v) -> std::string {
    const std::string_view host = strip_port(v);
    return host == "10.0.0.2" ? "node-2" : std::string(host);
  };
  const FetchResult r = join_results(cpu, memory, resolve);
  ASSERT_TRUE(r.ok()) << r.error;
  const std::vector<Sample> want{{"node-1", 1250, 2147483648, 1700000001250},
                                 {"node-2", 500, 1000000000, 1700000001250}};
  EXPECT_EQ(r.samples, want);
  EXPECT_EQ(join_results(cpu, memory, {}).samples.size(), 2u);  // node-1 and "10.0.0.2"
  VectorResult failed;
  failed.error = "HTTP 503";
  EXPECT_EQ(join_results(cpu, failed, resolve).error, "memoryQuery: HTTP 503");
}

TEST(PrometheusSource, ADownServerIsAnError) {
  PrometheusUsageConfig config;
  config.url = "http://127.0.0.1:1/prometheus/";  // nothing listens on port 1
  PrometheusSource source(config, {}, std::chrono::seconds(5));
  const FetchResult r = source.fetch();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("cpuQuery: GET http://127.0.0.1:1/prometheus/api/v1/query"), std::string::npos)
      << r.error;
}

}  // namespace
}  // namespace prometheus_source_test
}  // namespace kext::usage

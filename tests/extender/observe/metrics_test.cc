// GET /metrics after known traffic, read back line by line as a Prometheus scraper would.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <set>

#include "tests/support/test_server.h"
#include "tests/support/wait.h"

namespace kext::testing {
namespace metrics_test {
namespace {

std::string node(const std::string& name, const std::string& spec = "") {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"("},"spec":{)" + spec +
         R"(},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}})";
}

std::string cluster() {
  return R"({"kind":"List","items":[)" + node("n1") + "," + node("n2") + "," +
         node("n3", R"("unschedulable":true)") +
         R"(,{"kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"u-p"},"spec":{"nodeName":"n1","containers":[{"name":"c"}]},"status":{"phase":"Running"}})" +
         R"(,{"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"b","namespace":"default"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"a":"b"}}},"status":{"disruptionsAllowed":0}})" +
         R"(,{"kind":"Namespace","metadata":{"name":"default"}},{"kind":"Namespace","metadata":{"name":"kube-system"}})" +
         R"(,{"kind":"Service","metadata":{"name":"s","namespace":"default"},"spec":{"selector":{"a":"b"}}})" +
         R"(,{"kind":"Service","metadata":{"name":"none","namespace":"default"},"spec":{}})" +
         R"(,{"kind":"ReplicaSet","metadata":{"name":"r","namespace":"default"},"spec":{"selector":{"matchLabels":{"a":"b"}}}})" +
         R"(,{"kind":"StatefulSet","metadata":{"name":"t","namespace":"default"},"spec":{"selector":{"matchLabels":{"a":"b"}}}}]})";
}

const std::string kRequest =
    R"({"Pod":{"metadata":{"name":"new","namespace":"default","uid":"u-new"},"spec":{"containers":[{"name":"c"}]}},"NodeNames":["n1","n2","n3","ghost"]})";

struct Sample {
  std::string name;    // metric name with suffix
  std::string labels;  // as written, without le
  std::string le;      // bucket bound, empty when none
  double value = 0;
};

// Parses the text format strictly enough to catch malformed lines: `# HELP`/`# TYPE` comments, or
// `name{k="v",…} value`.
std::vector<Sample> parse_metrics(const std::string& text, std::map<std::string, std::string>& types) {
  std::vector<Sample> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    EXPECT_NE(eol, std::string::npos) << "last line not terminated";
    if (eol == std::string::npos) break;
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.rfind("# TYPE ", 0) == 0) {
      const size_t sp = line.find(' ', 7);
      types[line.substr(7, sp - 7)] = line.substr(sp + 1);
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) continue;
    Sample s;
    const size_t brace = line.find('{');
    if (brace == std::string::npos) {  // `name value`: a series without labels
      const size_t sp = line.find(' ');
      EXPECT_NE(sp, std::string::npos) << line;
      if (sp == std::string::npos) continue;
      s.name = line.substr(0, sp);
      s.value = std::stod(line.substr(sp + 1));
      out.push_back(s);
      continue;
    }
    const size_t close = line.find("} ");
    EXPECT_TRUE(close != std::string::npos && brace < close) << line;
    if (close == std::string::npos) continue;
    s.name = line.substr(0, brace);
    std::string labels = line.substr(brace + 1, close - brace - 1);
    if (size_t le = labels.find("le=\""); le != std::string::npos) {
      s.le = labels.substr(le + 4, labels.find('"', le + 4) - le - 4);
      labels = labels.substr(0, le == 0 ? 0 : le - 1);
    }
    s.labels = labels;
    size_t used = 0;
    const std::string value = line.substr(close + 2);
    s.value = value == "+Inf" ? INFINITY : std::stod(value, &used);
    EXPECT_EQ(used, value.size()) << line;
    out.push_back(s);
  }
  return out;
}

double value_of(const std::vector<Sample>& samples, const std::string& name, const std::string& labels) {
  for (const auto& s : samples) {
    if (s.name == name && s.labels == labels && s.le.empty()) return s.value;
  }
  return -1;
}

TEST(Metrics, CountsLatenciesAndCacheAfterKnownTraffic) {
  TestServer server(state_from_json(cluster()));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(server.post("/filter", kRequest)->status, 200);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(server.post("/prioritize", kRequest)->status, 200);
  ASSERT_EQ(server.post("/filter", "{")->status, 400);
  ASSERT_EQ(server.client().Get("/healthz")->status, 200);
  server.metrics().set_watch_lag_seconds("pods", 1.5);

  // The counters move after each reply is written; poll until the last request is in.
  std::optional<httplib::Response> res;
  wait_until([&] {
    auto got = server.client().Get("/metrics");
    res = got ? std::optional(*got) : std::nullopt;
    return !res || res->status != 200 ||
           res->body.find(R"(kube_extender_requests_total{verb="healthz",code="200"} 1)") !=
               std::string::npos;
  });
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string text = res->body;
  std::map<std::string, std::string> types;
  const auto samples = parse_metrics(text, types);

  EXPECT_EQ(value_of(samples, "kube_extender_build_info", R"(version="test")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_requests_total", R"(verb="filter",code="200")"), 3);
  EXPECT_EQ(value_of(samples, "kube_extender_requests_total", R"(verb="filter",code="400")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_requests_total", R"(verb="prioritize",code="200")"), 2);
  EXPECT_EQ(value_of(samples, "kube_extender_requests_total", R"(verb="healthz",code="200")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_request_duration_seconds_count", R"(verb="filter")"), 4);
  EXPECT_GT(value_of(samples, "kube_extender_request_duration_seconds_sum", R"(verb="filter")"), 0);
  EXPECT_EQ(value_of(samples, "kube_extender_request_bytes_sum", R"(verb="filter")"),
            3.0 * kRequest.size() + 1);
  // Only the decoded requests describe work: 3 filters of 4 nodes.
  EXPECT_EQ(value_of(samples, "kube_extender_request_nodes_count", R"(verb="filter")"), 3);
  EXPECT_EQ(value_of(samples, "kube_extender_request_nodes_sum", R"(verb="filter")"), 12);
  for (const char* phase : {"decode", "compute", "encode"}) {
    const std::string labels = std::string(R"(verb="prioritize",phase=")") + phase + "\"";
    EXPECT_EQ(value_of(samples, "kube_extender_phase_duration_seconds_count", labels), 2) << phase;
  }
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="nodes")"), 3);
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="pods")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="poddisruptionbudgets")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="namespaces")"), 2);
  // The Service without a selector is not kept.
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="services")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="replicationcontrollers")"), 0);
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="replicasets")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_cache_objects", R"(resource="statefulsets")"), 1);
  EXPECT_EQ(value_of(samples, "kube_extender_watch_lag_seconds", R"(resource="pods")"), 1.5);

  // Every histogram: buckets in increasing `le`, cumulative counts never decrease, +Inf = _count.
  std::map<std::string, std::vector<Sample>> buckets;  // family{labels}
  for (const auto& s : samples) {
    if (!s.le.empty()) buckets[s.name.substr(0, s.name.size() - 7) + "{" + s.labels + "}"].push_back(s);
  }
  ASSERT_FALSE(buckets.empty());
  for (const auto& [series, bs] : buckets) {
    const std::string family = series.substr(0, series.find('{'));
    EXPECT_EQ(types[family], "histogram") << family;
    EXPECT_EQ(bs.back().le, "+Inf") << series;
    for (size_t i = 1; i < bs.size(); ++i) {
      EXPECT_LE(bs[i - 1].value, bs[i].value) << series << " le=" << bs[i].le;
      if (i + 1 < bs.size()) {
        EXPECT_LT(std::stod(bs[i - 1].le), std::stod(bs[i].le)) << series;
      }
    }
    const std::string labels = series.substr(series.find('{') + 1, series.size() - series.find('{') - 2);
    EXPECT_EQ(bs.back().value, value_of(samples, family + "_count", labels)) << series;
    EXPECT_GE(value_of(samples, family + "_sum", labels), 0) << series;
  }
  // Every sample belongs to a declared family.
  for (const auto& s : samples) {
    std::string family = s.name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      if (family.ends_with(suffix) && types.count(family.substr(0, family.size() - std::strlen(suffix)))) {
        family = family.substr(0, family.size() - std::strlen(suffix));
      }
    }
    EXPECT_TRUE(types.count(family)) << s.name;
  }
}

// The kube-scheduler minor the plugins reproduce is an info gauge, as the build's: absent until main sets
// it, then one series with the version and where it came from.
TEST(Metrics, KubernetesSemanticsIsAnInfoGauge) {
  Metrics metrics("test");
  std::map<std::string, std::string> types;
  EXPECT_EQ(metrics.render(nullptr).find("kube_extender_kubernetes_semantics_info"), std::string::npos);
  metrics.set_kubernetes_semantics("1.31", "apiserver");
  const auto samples = parse_metrics(metrics.render(nullptr), types);
  EXPECT_EQ(types["kube_extender_kubernetes_semantics_info"], "gauge");
  EXPECT_EQ(
      value_of(samples, "kube_extender_kubernetes_semantics_info", R"(version="1.31",source="apiserver")"),
      1);
  EXPECT_EQ(value_of(samples, "kube_extender_build_info", R"(version="test")"), 1);
  size_t series = 0;
  for (const Sample& s : samples) series += s.name == "kube_extender_kubernetes_semantics_info";
  EXPECT_EQ(series, 1u);
}

// Failed calls to the API server, by resource and status, read from their counter at each scrape;
// absent without an API server.
TEST(Metrics, ApiErrorsAreCountedByResourceAndStatus) {
  Metrics metrics("test");
  EXPECT_EQ(metrics.render(nullptr).find("kube_extender_api_errors_total"), std::string::npos);
  std::vector<Metrics::ApiErrorSeries> counts = {{"leases", "404", 3}, {"pods", "refused", 1}};
  metrics.set_api_errors([&counts] { return counts; });
  std::map<std::string, std::string> types;
  auto samples = parse_metrics(metrics.render(nullptr), types);
  EXPECT_EQ(types["kube_extender_api_errors_total"], "counter");
  EXPECT_EQ(value_of(samples, "kube_extender_api_errors_total", R"(resource="leases",status="404")"), 3);
  EXPECT_EQ(value_of(samples, "kube_extender_api_errors_total", R"(resource="pods",status="refused")"), 1);
  counts[0].count = 4;
  samples = parse_metrics(metrics.render(nullptr), types);
  EXPECT_EQ(value_of(samples, "kube_extender_api_errors_total", R"(resource="leases",status="404")"), 4);
}

// The heap gauges follow what the program holds: a block large enough for malloc to mmap shows in in_use
// while it lives and is gone from it once freed; the rendered text carries both states.
TEST(Metrics, HeapBytesFollowLiveAllocations) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizers replace malloc, and glibc's mallinfo2 then sees none of the heap (all zeros);
  // the README test command's Release build runs this.
  GTEST_SKIP() << "sanitizer build: mallinfo2 does not see the sanitizer's allocator";
#endif
  constexpr size_t kBlock = size_t{64} << 20;
  const HeapBytes before = heap_bytes();
  EXPECT_GT(before.in_use, 0u);
  auto block = std::make_unique<char[]>(kBlock);
  block[0] = block[kBlock - 1] = 1;
  const HeapBytes during = heap_bytes();
  EXPECT_GE(during.in_use, before.in_use + kBlock);
  block.reset();
  EXPECT_LT(heap_bytes().in_use, during.in_use - kBlock / 2);

  Metrics metrics("test");
  std::map<std::string, std::string> types;
  const auto samples = parse_metrics(metrics.render(nullptr), types);
  EXPECT_EQ(types["kube_extender_heap_bytes"], "gauge");
  EXPECT_GT(value_of(samples, "kube_extender_heap_bytes", R"(state="in_use")"), 0);
  EXPECT_GE(value_of(samples, "kube_extender_heap_bytes", R"(state="free")"), 0);
}

}  // namespace
}  // namespace metrics_test
}  // namespace kext::testing

// Decoding cost: a bare RapidJSON parse of the body vs the extender's decode, both modes; full mode
// cold (every node parsed) and warm (node bytes seen before, as in prioritize after filter and pod
// after pod).
#include <benchmark/benchmark.h>

#include "bench/synthetic_cluster.h"
#include "kube/codec/extender_args.h"

namespace {

// cloud: node names as EKS writes them (extender-gen --node-names cloud, 38-43 bytes), else short.
const kext::bench::Workload& workload(size_t n, bool cloud = false) {
  static std::map<std::pair<size_t, bool>, kext::bench::Workload> cache;
  auto it = cache.find({n, cloud});
  if (it == cache.end()) {
    it = cache
             .emplace(std::pair(n, cloud),
                      kext::bench::make_workload(n, 0, kext::gen::GenOptions{}.seed, cloud))
             .first;
  }
  return it->second;
}

void BM_BareParseFull(benchmark::State& st) {
  const std::string& body = workload(static_cast<size_t>(st.range(0))).full_request;
  for (auto _ : st) {
    rapidjson::Document d;
    d.Parse(body.data(), body.size());
    benchmark::DoNotOptimize(d.IsObject());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(body.size()));
}

void BM_DecodeFull(benchmark::State& st) {
  const std::string& body = workload(static_cast<size_t>(st.range(0))).full_request;
  for (auto _ : st) {
    kext::ExtenderArgs args;
    kext::decode_extender_args(body, args);
    benchmark::DoNotOptimize(args.nodes.size());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(body.size()));
}

void BM_DecodeFullWarmCache(benchmark::State& st) {
  const std::string& body = workload(static_cast<size_t>(st.range(0))).full_request;
  kext::NodeDecodeCache cache;
  {
    kext::ExtenderArgs warm;
    kext::decode_extender_args(body, warm, &cache);
  }
  for (auto _ : st) {
    kext::ExtenderArgs args;
    kext::decode_extender_args(body, args, &cache);
    benchmark::DoNotOptimize(args.nodes.size());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(body.size()));
}

// Args: names, cloud names (1) or short (0).
void BM_DecodeNames(benchmark::State& st) {
  const std::string& body = workload(static_cast<size_t>(st.range(0)), st.range(1) != 0).names_request;
  for (auto _ : st) {
    kext::ExtenderArgs args;
    kext::decode_extender_args(body, args);
    benchmark::DoNotOptimize(args.node_names.size());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(body.size()));
}

// The prioritize reply for every name of the request (args: names, cloud names or short).
void BM_EncodePrioritize(benchmark::State& st) {
  const auto& w = workload(static_cast<size_t>(st.range(0)), st.range(1) != 0);
  kext::NameList hosts;
  std::vector<int64_t> scores;
  for (size_t i = 0; i < w.node_names.size(); ++i) {
    hosts.push_back(w.node_names[i]);
    scores.push_back(static_cast<int64_t>(i % 11));
  }
  size_t bytes = 0;
  for (auto _ : st) {
    const std::string reply = kext::encode_prioritize_reply(hosts, scores);
    bytes = reply.size();
    benchmark::DoNotOptimize(reply.data());
  }
  st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(bytes));
}

BENCHMARK(BM_BareParseFull)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DecodeFull)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DecodeFullWarmCache)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DecodeNames)->ArgsProduct({{500, 5000}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EncodePrioritize)->ArgsProduct({{500, 5000}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

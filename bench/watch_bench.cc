// Live cluster state: watch events applied per second (split, parse, decode, apply, publish), the
// cache's memory for a 5000-node / 150,000-pod cluster against the size of the same objects as JSON,
// and the time to the initial sync of that cluster from the in-repo API server.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <map>

#include "kube/client/cache_sinks.h"
#include "kube/client/event_splitter.h"
#include "kube/client/live_state.h"
#include "kube/codec/k8s_decode.h"
#include "load/gen/cluster.h"
#include "tests/support/fake_apiserver.h"

namespace {

using namespace kext;

const gen::Cluster& cluster(size_t nodes, size_t pods_per_node) {
  static std::map<std::pair<size_t, size_t>, gen::Cluster> made;
  auto key = std::make_pair(nodes, pods_per_node);
  auto it = made.find(key);
  if (it == made.end()) {
    gen::GenOptions o;
    o.nodes = nodes;
    o.pods_per_node = pods_per_node;
    o.seed = 7;
    it = made.emplace(key, gen::make_cluster(o)).first;
  }
  return it->second;
}

void load(kube::ResourceSink& sink, const std::vector<std::string>& objects) {
  sink.list_begin();
  for (const auto& text : objects) {
    rapidjson::Document d;
    d.Parse<json::kParseFlags>(text.data(), text.size());
    sink.list_item(d);
  }
  sink.list_end();
}

std::vector<std::string> node_objects(const gen::Cluster& c) {
  std::vector<std::string> out;
  for (const auto& n : c.nodes) out.push_back(n.json);
  return out;
}

std::vector<std::string> pod_objects(const gen::Cluster& c) {
  std::vector<std::string> out;
  for (const auto& p : c.pods) out.push_back(gen::pod_json(p));
  return out;
}

// MODIFIED events for every pod of a 500-node cluster, as one watch stream, fed in socket-sized pieces
// the way the socket delivers them; each piece is applied and published as one batch.
void BM_WatchEventsApplied(benchmark::State& state) {
  const auto& c = cluster(500, 30);
  StateStore store;
  StateCache cache(&store);
  auto nodes = kube::make_node_sink(cache);
  auto pods = kube::make_pod_sink(cache);
  load(*nodes, node_objects(c));
  const auto pod_texts = pod_objects(c);
  load(*pods, pod_texts);
  std::string stream;
  for (const auto& p : pod_texts) stream += "{\"type\":\"MODIFIED\",\"object\":" + p + "}\n";
  size_t events = 0;
  for (auto _ : state) {
    kube::EventSplitter splitter;
    for (size_t i = 0; i < stream.size(); i += 16384) {
      splitter.feed(std::string_view(stream).substr(i, 16384), [&](std::string_view text) {
        rapidjson::Document ev;
        ev.Parse<json::kParseFlags>(text.data(), text.size());
        pods->event(kube::EventType::Modified, ev["object"]);
        ++events;
      });
      pods->flush();
    }
  }
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["bytes_per_event"] =
      static_cast<double>(stream.size()) / static_cast<double>(pod_texts.size());
}
BENCHMARK(BM_WatchEventsApplied)->Unit(benchmark::kMillisecond)->UseRealTime();

// Decoded objects only (the cache's own per-event cost, without JSON).
void BM_CacheUpsertsApplied(benchmark::State& state) {
  const auto& c = cluster(500, 30);
  StateStore store;
  StateCache cache(&store);
  auto nodes = kube::make_node_sink(cache);
  load(*nodes, node_objects(c));
  std::vector<Pod> decoded;
  for (const auto& text : pod_objects(c)) {
    rapidjson::Document d;
    d.Parse<json::kParseFlags>(text.data(), text.size());
    decoded.push_back(decode_pod(d, "pod"));
  }
  size_t n = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < decoded.size(); i += 64) {
      auto b = cache.batch();
      for (size_t j = i; j < std::min(decoded.size(), i + 64); ++j) b.upsert_pod(decoded[j]);
      n += std::min<size_t>(64, decoded.size() - i);
    }
  }
  state.counters["upserts_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CacheUpsertsApplied)->Unit(benchmark::kMillisecond)->UseRealTime();

size_t heap_in_use() { return mallinfo2().uordblks; }

void BM_CacheMemory(benchmark::State& state) {
  const size_t node_count = static_cast<size_t>(state.range(0));
  const auto& c = cluster(node_count, 30);
  const auto nodes_json = node_objects(c);
  const auto pods_json = pod_objects(c);
  size_t json_bytes = 0;
  for (const auto& s : nodes_json) json_bytes += s.size();
  for (const auto& s : pods_json) json_bytes += s.size();
  for (auto _ : state) {
    malloc_trim(0);
    const size_t before = heap_in_use();
    auto cache = std::make_unique<StateCache>();
    {
      auto ns = kube::make_node_sink(*cache);
      auto ps = kube::make_pod_sink(*cache);
      load(*ns, nodes_json);
      load(*ps, pods_json);
    }
    auto view = cache->view();
    const size_t after = heap_in_use();
    state.counters["pods"] = static_cast<double>(view->pods_by_uid.size());
    state.counters["json_MB"] = static_cast<double>(json_bytes) / 1e6;
    state.counters["cache_MB"] = static_cast<double>(after - before) / 1e6;
    state.counters["cache_over_json"] = static_cast<double>(after - before) / static_cast<double>(json_bytes);
  }
}
BENCHMARK(BM_CacheMemory)->Arg(5000)->Iterations(1)->Unit(benchmark::kMillisecond);

// From an empty cache to /readyz: paginated lists (500 per page) over mutual TLS from the in-repo server.
void BM_InitialSync(benchmark::State& state) {
  const size_t node_count = static_cast<size_t>(state.range(0));
  const auto& c = cluster(node_count, 30);
  kext::testing::FakeApiServer api;
  for (const auto& n : c.nodes)
    api.put("nodes", kubeobjects::to_json(n.object, kubeobjects::TypeMeta::kWrite));
  for (const auto& p : c.pods) api.put("pods", gen::pod_json(p));
  for (const auto& b : c.pdbs) api.put("poddisruptionbudgets", kubeobjects::to_json(gen::pdb_object(b)));
  api.compact();  // the load's history is not needed: watches start from the list
  kube::ApiConfig cfg;
  kube::set_server_url(cfg, api.url());
  cfg.ca_pem = kube::read_config_file(std::string(KEXT_CERTS_DIR) + "/ca.crt", "ca");
  cfg.client_cert_pem = kube::read_config_file(std::string(KEXT_CERTS_DIR) + "/client.crt", "cert");
  cfg.client_key_pem = kube::read_config_file(std::string(KEXT_CERTS_DIR) + "/client.key", "key");
  kube::ApiClient client(cfg);
  for (auto _ : state) {
    StateStore store;
    kube::LiveStateOptions o;
    o.housekeeping_interval = std::chrono::milliseconds(5);
    kube::LiveState live(client, store, o);
    const auto t0 = std::chrono::steady_clock::now();
    live.start();
    while (!store.ready()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    state.counters["pods"] = static_cast<double>(store.current()->pods_by_uid.size());
    state.counters["nodes"] = static_cast<double>(store.current()->node_object_count());
    live.stop();
  }
}
BENCHMARK(BM_InitialSync)->Arg(5000)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// --policy files: parse_policy + build_engine, then the engine filters and scores a fixture pod on the
// fixture cluster's nodes, so that policy arguments (RequestedToCapacityRatio shapes, weights,
// parallelThreshold) reach the algorithms.
#include <set>

#include "common/read_file.h"
#include "extender/codec/k8s_decode.h"
#include "tests/fuzz/fuzz_common.h"

using namespace kext;

namespace {

struct Scene {
  Pod pod;
  std::vector<const NodeInfo*> nodes;
};

const Scene& scene() {
  static const Scene* s = [] {
    auto* sc = new Scene();
    std::string body;
    read_whole_file(std::string(KEXT_FUZZ_FIXTURES_DIR) + "/cache/0028-preempt--high-1.json", body);
    rapidjson::Document doc;
    doc.Parse(body.data(), body.size());
    sc->pod = decode_pod(doc["Pod"], "Pod");
    fuzz::fixture_state()->nodes.for_each(
        [&](const std::string&, const std::shared_ptr<const NodeInfo>& info) {
          if (info->node) sc->nodes.push_back(info.get());
        });
    return sc;
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Policy policy;
  try {
    policy = parse_policy(fuzz::as_text(data, size));
  } catch (const PolicyError& e) {
    fuzz::check(e.what()[0] != '\0', "policy: PolicyError without a message");
    return 0;
  }
  // What parse_policy promises build_engine.
  fuzz::check(!policy.predicates.empty() || !policy.priorities.empty(),
              "policy: accepted with nothing enabled");
  std::set<std::string> seen;
  for (const auto& p : policy.priorities) {
    fuzz::check(p.weight >= 1 && p.weight <= 1000000, "policy: weight out of range for " + p.name);
    fuzz::check(seen.insert(p.name).second, "policy: duplicate priority " + p.name);
  }
  fuzz::check(policy.preemption.max_candidates >= 1, "policy: maxCandidates < 1");
  fuzz::check(policy.parallel_threshold >= 0, "policy: negative parallelThreshold");

  const std::unique_ptr<Engine> engine = build_engine(policy);
  fuzz::check(engine->filters().size() == policy.predicates.size() &&
                  engine->scores().size() == policy.priorities.size(),
              "policy: engine does not have the policy's algorithms");
  const Scene& s = scene();
  const PodContext pod(s.pod);
  const std::vector<FilterStatus> statuses = engine->filter(pod, s.nodes);
  fuzz::check(statuses.size() == s.nodes.size(), "policy: not one filter status per node");
  const ScoreMatrix m = engine->score(pod, s.nodes);
  fuzz::check(m.combined.size() == s.nodes.size(), "policy: not one score per node");
  for (size_t a = 0; a < m.algorithms; ++a) {
    for (size_t n = 0; n < m.nodes; ++n) {
      fuzz::check(m.at(a, n) >= 0 && m.at(a, n) <= kMaxScore,
                  "policy: " + std::string(engine->scores()[a].plugin->name()) + " scored " +
                      std::to_string(m.at(a, n)) + ", outside 0..10");
    }
  }
  for (int64_t c : m.combined) fuzz::check(c >= 0 && c <= kMaxScore, "policy: combined score outside 0..10");
  return 0;
}

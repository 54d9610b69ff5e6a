// --policy / --config files: the ExtenderConfiguration decoder (parse_config, its write-config round
// trip) and the legacy parse_policy + build_engine, then the engine filters and scores a fixture pod on
// the fixture cluster's nodes, so that arguments (RequestedToCapacityRatio shapes, weights,
// parallelThreshold) reach the algorithms.
#include <set>

#include "common/read_file.h"
#include "kube/codec/k8s_decode.h"
#include "policy/config.h"
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
    fuzz::fixture_state()->nodes.for_each([&](std::string_view, const std::shared_ptr<const NodeInfo>& info) {
      if (info->node) sc->nodes.push_back(info.get());
    });
    return sc;
  }();
  return *s;
}

// Every score on the wire's 0..10, whichever arithmetic computed it.
void check_engine(const Engine& engine) {
  const Scene& s = scene();
  const PodContext pod(s.pod);
  const std::vector<FilterStatus> statuses = engine.filter(pod, s.nodes);
  fuzz::check(statuses.size() == s.nodes.size(), "policy: not one filter status per node");
  const ScoreMatrix m = engine.score(pod, s.nodes);
  fuzz::check(m.combined.size() == s.nodes.size(), "policy: not one score per node");
  for (size_t a = 0; a < m.algorithms; ++a) {
    for (size_t n = 0; n < m.nodes; ++n) {
      fuzz::check(m.at(a, n) >= 0 && m.at(a, n) <= kMaxScore,
                  "policy: " + std::string(engine.scores()[a].plugin->name()) + " scored " +
                      std::to_string(m.at(a, n)) + ", outside 0..10");
    }
  }
  for (int64_t c : m.combined) fuzz::check(c >= 0 && c <= kMaxScore, "policy: combined score outside 0..10");
}

// The new format: what parse_config accepts compiles, and --write-config's text reads back the same.
void fuzz_config(std::string_view text) {
  Config config;
  try {
    config = parse_config(text);
  } catch (const PolicyError& e) {
    fuzz::check(e.what()[0] != '\0', "config: PolicyError without a message");
    return;
  }
  fuzz::check(parse_config(config_to_json(config)) == config,
              "config: write-config does not read back the same");
  const Profile profile = compile(config);
  fuzz::check(profile.engine.filters().size() == config.filters.size() &&
                  profile.engine.scores().size() == config.scores.size(),
              "config: engine does not have the configuration's plugins");
  check_engine(profile.engine);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_config(fuzz::as_text(data, size));
  Policy policy;
  try {
    policy = parse_policy(fuzz::as_text(data, size));
  } catch (const PolicyError& e) {
    fuzz::check(e.what()[0] != '\0', "policy: PolicyError without a message");
    return 0;
  }
  // The legacy policy's ExtenderConfiguration, when there is one, reads back the same.
  if (const ConfigFromPolicy c = config_from_policy(policy); c.config) {
    fuzz::check(parse_config(config_to_json(*c.config)) == *c.config,
                "policy: its configuration does not read back");
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
  fuzz::check(policy.parallel_min_work_us >= 0 && policy.parallel_min_work_us <= kMaxParallelMinWorkUs,
              "policy: parallelMinWorkMicroseconds out of range");

  const std::unique_ptr<Engine> engine = build_engine(policy);
  fuzz::check(engine->filters().size() == policy.predicates.size() &&
                  engine->scores().size() == policy.priorities.size(),
              "policy: engine does not have the policy's algorithms");
  check_engine(*engine);
  return 0;
}

#pragma once
// Shared by the libFuzzer harnesses: the fixed cluster state and policies they run against, and the
// cheap invariants they check besides "no crash". A broken invariant prints what broke and aborts, which
// libFuzzer reports as a crash and saves the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "algorithms/engine.h"
#include "kube/state/cluster_state.h"
#include "kube/state/snapshot_loader.h"
#include "kube/state/state_cache.h"
#include "extender/verbs/verbs.h"
#include "json/json.h"
#include "policy/policy.h"

namespace kext::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "\nINVARIANT BROKEN: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Every filter and every priority (RequestedToCapacityRatio with a shape over cpu, memory and an
// extended resource), all predicates checked: the most code a request can reach.
inline constexpr std::string_view kEverythingPolicy = R"({
  "kind": "Policy",
  "predicates": [
    {"name": "CheckNodeUnschedulable"}, {"name": "PodFitsHost"}, {"name": "MatchNodeSelector"},
    {"name": "PodFitsResources"}, {"name": "PodToleratesNodeTaints"}
  ],
  "priorities": [
    {"name": "LeastRequestedPriority", "weight": 1},
    {"name": "MostRequestedPriority", "weight": 2},
    {"name": "BalancedResourceAllocation", "weight": 3},
    {"name": "RequestedToCapacityRatioPriority", "weight": 4, "argument": {"requestedToCapacityRatioArguments": {
      "shape": [{"utilization": 0, "score": 10}, {"utilization": 50, "score": 3}, {"utilization": 100, "score": 0}],
      "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}, {"name": "example.com/gpu", "weight": 3}]}}},
    {"name": "NodeAffinityPriority", "weight": 5},
    {"name": "TaintTolerationPriority", "weight": 6},
    {"name": "ImageLocalityPriority", "weight": 7}
  ],
  "alwaysCheckAllPredicates": true,
  "preemption": {"semantics": "current", "maxCandidates": 2}
})";

// tests/fixtures/kube-scheduler-1.26/cluster.json: 5 nodes, 9 pods, 1 PDB.
inline std::shared_ptr<const ClusterState> fixture_state() {
  static const std::shared_ptr<const ClusterState> state =
      load_snapshot_files({std::string(KEXT_FUZZ_FIXTURES_DIR) + "/cluster.json"});
  return state;
}

// The verbs as the server runs them, over the fixture state. No node decode cache: a cache hit would
// make an input's coverage depend on the inputs before it.
struct VerbsFixture {
  Profile profile = compile(parse_policy(kEverythingPolicy));
  StateStore store;
  Verbs verbs{profile, store, 0};
  VerbsFixture() { store.publish(fixture_state()); }
};

inline const VerbsFixture& verbs_fixture() {
  static const VerbsFixture* f = new VerbsFixture();  // never destroyed: the harness exits without teardown
  return *f;
}

// Parses a reply or encoded document; replies are read back without UTF-8 validation, as the scheduler's
// encoding/json reads them (it substitutes invalid bytes rather than failing).
inline bool parse_json(std::string_view text, rapidjson::Document& doc) {
  doc.Parse<rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseIterativeFlag>(text.data(), text.size());
  return !doc.HasParseError();
}

// A verb reply: 200 with a JSON body, or 400 with {"Error": "<non-empty message>"}.
inline void check_reply(const Reply& r, std::string_view verb, rapidjson::Document& doc) {
  check(parse_json(r.body, doc), std::string(verb) + ": reply is not JSON: " + r.body.substr(0, 300));
  if (r.status == 200) return;
  check(r.status == 400, std::string(verb) + ": status " + std::to_string(r.status) + " for a bad request");
  check(doc.IsObject() && doc.MemberCount() == 1, std::string(verb) + ": error reply is not {\"Error\": …}");
  const json::Value* e = json::find(doc, "Error");
  check(e && e->IsString() && e->GetStringLength() > 0,
        std::string(verb) + ": error reply without an Error message");
}

// The GET /debug/decisions rendering of a verb's decision must be JSON too.
inline void check_decision(const VerbTrace& trace, std::string_view verb) {
  if (!trace.decision) return;
  std::shared_ptr<const Decision> d(trace.decision.get(), [](const Decision*) {});
  std::string text = decisions_to_json({&d, 1});
  rapidjson::Document doc;
  check(parse_json(text, doc) && doc.IsObject(),
        std::string(verb) + ": decision is not JSON: " + text.substr(0, 300));
}

// The state's cross-references hold: every pod bound to a node is in that node's list and the node's
// requested sums are its pods' requests; node_object_count counts node objects; no terminal pods.
inline void check_state(const ClusterState& s) {
  size_t node_objects = 0;
  s.nodes.for_each([&](std::string_view name_view, const std::shared_ptr<const NodeInfo>& info) {
    const std::string name(name_view);
    check(info != nullptr, "state: null NodeInfo for " + name);
    if (info->node) {
      ++node_objects;
      check(info->node->name == name, "state: node " + info->node->name + " filed under " + name);
    } else {
      check(!info->pods.empty(), "state: entry " + name + " has neither a node object nor pods");
    }
    Resources sum, nonzero;
    bool small = true;
    auto is_small = [](const Resources& r) {
      auto ok = [](int64_t v) { return v > -(int64_t{1} << 53) && v < (int64_t{1} << 53); };
      bool all = ok(r.milli_cpu) && ok(r.memory) && ok(r.ephemeral_storage) && ok(r.pods);
      for (const auto& sc : r.scalars) all = all && ok(sc.value);
      return all;
    };
    for (const auto& p : info->pods) {
      check(p && p->pod, "state: null pod on node " + name);
      check(p->pod->node_name == name,
            "state: pod " + p->pod->name + " of node " + p->pod->node_name + " listed on " + name);
      const std::string key = StateCache::pod_key(*p->pod);
      const PodInfo* indexed = s.find_pod(key);
      check(indexed == p.get(), "state: pod " + key + " on node " + name + " is not the indexed one");
      small = small && is_small(p->requests) && is_small(p->nonzero_requests);
      if (small) {
        sum.add(p->requests);
        nonzero.add(p->nonzero_requests);
      }
    }
    // Sums near the int64 range may saturate, and then subtracting a pod cannot restore them.
    small = small && is_small(info->requested) && is_small(info->nonzero_requested);
    if (small) {
      auto same = [](Resources a, Resources b) {
        std::erase_if(a.scalars, [](const ScalarResource& r) { return r.value == 0; });
        std::erase_if(b.scalars, [](const ScalarResource& r) { return r.value == 0; });
        return a == b;
      };
      check(same(sum, info->requested),
            "state: node " + name + "'s requested is not the sum of its pods' requests");
      check(same(nonzero, info->nonzero_requested),
            "state: node " + name + "'s nonzero_requested is not its pods' sum");
    }
  });
  check(node_objects == s.node_object_count(), "state: node_object_count " +
                                                   std::to_string(s.node_object_count()) + " but " +
                                                   std::to_string(node_objects) + " node objects");
  s.pods_by_uid.for_each([&](std::string_view key_view, const std::shared_ptr<const PodInfo>& p) {
    const std::string key(key_view);
    check(p && p->pod, "state: null pod under " + key);
    check(!p->pod->is_terminal(), "state: terminal pod " + key + " kept");
    if (p->pod->node_name.empty()) return;
    const NodeInfo* n = s.find_node(p->pod->node_name);
    check(n != nullptr, "state: pod " + key + " bound to " + p->pod->node_name + ", which has no entry");
    bool listed = false;
    for (const auto& q : n->pods) listed = listed || q.get() == p.get();
    check(listed, "state: pod " + key + " is missing from node " + p->pod->node_name + "'s list");
  });
  // The indexes the topology plugins read, against the nodes they index: every bound pod in exactly
  // one group, with the group's namespace and labels; the label counts those of the node objects.
  std::unordered_map<const PodInfo*, int> grouped;
  s.pod_groups.for_each([&](std::string_view, const std::shared_ptr<const PodGroup>& g) {
    check(g != nullptr, "state: null pod group");
    for (const auto& p : g->pods) {
      check(p->pod->namespace_ == g->first.namespace_ && p->pod->labels.get() == g->first.labels.get(),
            "state: pod " + p->pod->name + " grouped with other pods' namespace or labels");
      ++grouped[p.get()];
    }
  });
  size_t bound = 0;
  NodeLabelIndex labels;
  s.nodes.for_each([&](std::string_view, const std::shared_ptr<const NodeInfo>& info) {
    for (const auto& p : info->pods) {
      ++bound;
      check(grouped[p.get()] == 1,
            "state: bound pod " + p->pod->name + " in " + std::to_string(grouped[p.get()]) + " pod groups");
    }
    if (!info->node) return;
    for (const auto& [k, v] : info->node->labels) {
      ++labels[k].nodes;
      ++labels[k].values[v];
    }
  });
  check(grouped.size() == bound, "state: pod groups hold pods bound to no node");
  check(labels == *s.node_labels, "state: the node label index differs from the nodes' labels");
}

}  // namespace kext::fuzz

#include "load/gen/requests.h"

#include <algorithm>

#include "kubeobjects/objects.h"

namespace kext::gen {

namespace {

using kubeobjects::JsonWriter;

constexpr size_t kVictimsPerNode = 4;

void str(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::string text(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

}  // namespace

PodSpec pending_pod(const Cluster& c, Prng& rng, size_t cycle, int32_t priority) {
  PodSpec p;
  const size_t a = rng.below(60);
  p.app = "app-" + std::to_string(a);
  p.namespace_ = "default";
  p.template_hash = rng.hex(10);
  p.owner_uid = rng.uid();
  p.name = p.app + "-" + p.template_hash + "-" + rng.hex(5);
  p.uid = rng.uid();
  const Image& im = c.images[10 + rng.below(c.images.size() - 10)];
  p.image = im.repo + ":" + im.tag;
  p.priority = priority;
  p.cpu_milli = priority == kPreemptorPriority ? 2000 + static_cast<int64_t>(rng.below(2000))
                                               : 100 + static_cast<int64_t>(rng.below(900));
  p.memory_mi = priority == kPreemptorPriority ? 4096 + static_cast<int64_t>(rng.below(4096))
                                               : 128 + static_cast<int64_t>(rng.below(1024));
  p.created = kTrafficStart + static_cast<int64_t>(cycle);
  p.tolerates_dedicated = rng.chance(10);
  return p;
}

std::string extender_args(const Cluster& c, const std::string& pod_json, const std::vector<size_t>& nodes,
                          bool full) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Pod");
  kubeobjects::write_raw(w, pod_json);
  w.Key("Nodes");
  if (full) {
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    for (size_t i : nodes) kubeobjects::write_raw(w, c.nodes[i].json);
    w.EndArray();
    w.EndObject();
    w.Key("NodeNames");
    w.Null();
  } else {
    w.Null();
    w.Key("NodeNames");
    w.StartArray();
    for (size_t i : nodes) str(w, c.nodes[i].name);
    w.EndArray();
  }
  w.EndObject();
  return text(buf);
}

std::string preemption_args(const Cluster& c, const std::string& pod_json, std::vector<size_t> nodes,
                            int32_t priority, bool full) {
  // Go marshals map keys sorted; node names are zero-padded, so index order is name order.
  std::sort(nodes.begin(), nodes.end());
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Pod");
  kubeobjects::write_raw(w, pod_json);
  w.Key("NodeNameToVictims");
  if (!full) {
    w.Null();
    w.Key("NodeNameToMetaVictims");
  }
  w.StartObject();
  for (size_t i : nodes) {
    std::vector<size_t> victims;
    for (size_t p : c.pods_on[i]) {
      if (c.pods[p].priority < priority) victims.push_back(p);
    }
    std::sort(victims.begin(), victims.end(), [&](size_t a, size_t b) {
      return c.pods[a].priority != c.pods[b].priority ? c.pods[a].priority < c.pods[b].priority : a < b;
    });
    if (victims.size() > kVictimsPerNode) victims.resize(kVictimsPerNode);
    if (victims.empty()) continue;
    std::reverse(victims.begin(), victims.end());
    int violations = 0;
    for (size_t p : victims) {
      for (const auto& pdb : c.pdbs) {
        if (pdb.app == c.pods[p].app && pdb.namespace_ == c.pods[p].namespace_ &&
            pdb.disruptions_allowed <= 0)
          ++violations;
      }
    }
    w.Key(c.nodes[i].name.data(), static_cast<rapidjson::SizeType>(c.nodes[i].name.size()));
    w.StartObject();
    w.Key("Pods");
    w.StartArray();
    for (size_t p : victims) {
      if (full) {
        kubeobjects::write(w, pod_object(c.pods[p]));
      } else {
        w.StartObject();
        w.Key("UID");
        str(w, c.pods[p].uid);
        w.EndObject();
      }
    }
    w.EndArray();
    w.Key("NumPDBViolations");
    w.Int(violations);
    w.EndObject();
  }
  w.EndObject();
  if (full) {
    w.Key("NodeNameToMetaVictims");
    w.Null();
  }
  w.EndObject();
  return text(buf);
}

std::string binding_args(const PodSpec& pod, const std::string& node) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("PodName");
  str(w, pod.name);
  w.Key("PodNamespace");
  str(w, pod.namespace_);
  w.Key("PodUID");
  str(w, pod.uid);
  w.Key("Node");
  str(w, node);
  w.EndObject();
  return text(buf);
}

}  // namespace kext::gen

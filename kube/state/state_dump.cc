#include "kube/state/state_dump.h"

#include <algorithm>
#include <vector>

#include "algorithms/namespaced_key.h"

namespace kext {

namespace {

void resources(std::string& out, const Resources& r) {
  out += std::to_string(r.milli_cpu) + "m," + std::to_string(r.memory) + "," +
         std::to_string(r.ephemeral_storage);
  for (const auto& s : r.scalars) out += "," + s.name + "=" + std::to_string(s.value);
}

void labels(std::string& out, const Labels& l) {
  bool first = true;
  for (const auto& [k, v] : l) {
    if (!first) out += ',';
    first = false;
    out += k + "=" + v;
  }
}

std::string node_line(std::string_view name, const NodeInfo& n) {
  std::string line = "node " + std::string(name);
  if (n.node) {
    const Node& o = *n.node;
    line += " allocatable=";
    resources(line, o.allocatable);
    line += ",pods=" + std::to_string(o.allocatable.pods) + " labels=";
    labels(line, o.labels);
    line += " taints=";
    for (size_t i = 0; i < o.taints.size(); ++i) {
      line += (i ? "," : "") + o.taints[i].key + "=" + o.taints[i].value + ":" + o.taints[i].effect;
    }
    uint64_t image_sum = 0;  // an order-independent digest of the image keys and sizes
    for (const auto& im : o.images) image_sum += im.key ^ static_cast<uint64_t>(im.size_bytes);
    line += std::string(" unschedulable=") + (o.unschedulable ? "1" : "0") +
            " images=" + std::to_string(o.images.size()) + "/" + std::to_string(image_sum);
  } else {
    line += " (no object)";
  }
  line += " requested=";
  resources(line, n.requested);
  line += " nonzero=";
  resources(line, n.nonzero_requested);
  std::vector<std::string> uids;
  uids.reserve(n.pods.size());
  for (const auto& p : n.pods) uids.push_back(p->pod->uid);
  std::sort(uids.begin(), uids.end());
  line += " pods=";
  for (size_t i = 0; i < uids.size(); ++i) line += (i ? "," : "") + uids[i];
  return line;
}

std::string pod_line(std::string_view key, const PodInfo& info) {
  const PodMeta& p = *info.pod;
  std::string line = "pod " + std::string(key) + " " + namespaced_key(p.namespace_, p.name) +
                     " node=" + p.node_name + " phase=" + p.phase +
                     " priority=" + (p.priority ? std::to_string(*p.priority) : "-") +
                     " start=" + (p.start_time ? std::to_string(*p.start_time) : "-") +
                     " terminating=" + (p.terminating ? "1" : "0") + " labels=";
  labels(line, p.labels);
  line += " requests=";
  resources(line, info.requests);
  line += " nonzero=";
  resources(line, info.nonzero_requests);
  return line;
}

void selector(std::string& out, const LabelSelector& s) {
  labels(out, s.match_labels);
  for (const auto& r : s.match_expressions) {
    out += ";" + r.key + " " + r.op + " (";
    for (size_t i = 0; i < r.values.size(); ++i) out += (i ? "," : "") + r.values[i];
    out += ")";
  }
}

std::string pdb_line(const PodDisruptionBudget& b) {
  std::string line = "pdb " + namespaced_key(b.namespace_, b.name) +
                     " allowed=" + std::to_string(b.disruptions_allowed) + " selector=";
  if (!b.selector) {
    line += "nil";
  } else {
    selector(line, *b.selector);
  }
  std::vector<std::string> disrupted = b.disrupted_pods;
  std::sort(disrupted.begin(), disrupted.end());
  line += " disrupted=";
  for (size_t i = 0; i < disrupted.size(); ++i) line += (i ? "," : "") + disrupted[i];
  return line;
}

// "service default/web selector=app=web": the kind's resource name, singular.
std::string workload_line(WorkloadKind kind, const WorkloadSelector& w) {
  std::string_view resource = workload_resource(kind);
  std::string line = std::string(resource.substr(0, resource.size() - 1)) + " " +
                     namespaced_key(w.namespace_, w.name) + " selector=";
  selector(line, w.selector);
  return line;
}

// "podgroup train/bert minMember=8 timeout=120s minResources=16000m,0,0 created=1795752000";
// upstream's: "podgroup train/bert (scheduling.k8s.io) minCount=8 ...", "basic" for its basic policy;
// a topology constraint at the end: " required-topology=rack preferred-topology=block".
std::string gang_line(const gang::PodGroupSpec& g) {
  std::string line = "podgroup " + g.key() + (g.all_or_nothing ? "" : " basic") + " " +
                     std::string(g.min_field()) + "=" + std::to_string(g.min_member) +
                     " timeout=" + std::to_string(g.timeout_seconds()) + "s minResources=";
  resources(line, g.min_resources);
  line += " created=" + std::to_string(g.creation_unix_seconds);
  if (!g.topology.required.empty()) line += " required-topology=" + g.topology.required;
  if (!g.topology.preferred.empty()) line += " preferred-topology=" + g.topology.preferred;
  return line;
}

}  // namespace

std::string dump_state(const ClusterState& state) {
  std::vector<std::string> lines;
  lines.reserve(state.nodes.size() + state.pods_by_uid.size() + state.pdbs->size());
  state.nodes.for_each([&](std::string_view name, const std::shared_ptr<const NodeInfo>& n) {
    lines.push_back(node_line(name, *n));
  });
  state.pods_by_uid.for_each([&](std::string_view key, const std::shared_ptr<const PodInfo>& p) {
    lines.push_back(pod_line(key, *p));
  });
  for (const auto& b : *state.pdbs) lines.push_back(pdb_line(b));
  // The namespaces and the objects that select pods: a count line per kind present ("count
  // services=2"; none for an empty kind, so a state without them dumps as before), then one line per
  // object, as for PDBs (they are few).
  if (state.namespace_labels && !state.namespace_labels->empty()) {
    lines.push_back("count namespaces=" + std::to_string(state.namespace_labels->size()));
    for (const auto& [name, l] : *state.namespace_labels) {
      std::string line = "namespace " + name + " labels=";
      labels(line, l);
      lines.push_back(std::move(line));
    }
  }
  for (WorkloadKind kind : kWorkloadKinds) {
    const auto& list = state.workloads(kind);
    if (!list || list->empty()) continue;
    lines.push_back("count " + std::string(workload_resource(kind)) + "=" + std::to_string(list->size()));
    for (const auto& w : *list) lines.push_back(workload_line(kind, w));
  }
  if (state.gangs && !state.gangs->empty()) {
    lines.push_back("count podgroups=" + std::to_string(state.gangs->size()));
    for (const auto& [key, g] : *state.gangs) lines.push_back(gang_line(g));
  }
  std::sort(lines.begin(), lines.end());
  size_t bytes = 0;
  for (const auto& l : lines) bytes += l.size() + 1;
  std::string out;
  out.reserve(bytes);
  for (const auto& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

}  // namespace kext

#include "load/gen/workload.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "common/record_format.h"
#include "load/gen/prng.h"
#include "load/gen/requests.h"

namespace kext::gen {

namespace fs = std::filesystem;

namespace {

constexpr int32_t kPendingPriorities[] = {0, 100, 1000, 1000, 10000};

class Output {
 public:
  explicit Output(const fs::path& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error(path.string() + ": cannot create");
  }
  void write(std::string_view s) {
    out_.write(s.data(), static_cast<std::streamsize>(s.size()));
    bytes_ += s.size();
  }
  uint64_t close() {
    out_.close();
    if (!out_) throw std::runtime_error(path_.string() + ": write failed");
    return bytes_;
  }

 private:
  fs::path path_;
  std::ofstream out_;
  uint64_t bytes_ = 0;
};

uint64_t write_cluster(const Cluster& c, const fs::path& path) {
  Output out(path);
  write_cluster_list(c, [&](std::string_view piece) { out.write(piece); });
  return out.close();
}

// The nodes one scheduling cycle sends: kube-scheduler starts where the previous cycle stopped and takes
// the first `want` nodes that pass its own filters (here: schedulable, taint tolerated).
std::vector<size_t> pick_nodes(const Cluster& c, size_t want, bool tolerates_dedicated, size_t* next_start) {
  std::vector<size_t> out;
  const size_t n = c.nodes.size();
  size_t examined = 0;
  for (; examined < n && out.size() < want; ++examined) {
    const size_t i = (*next_start + examined) % n;
    const NodeSpec& node = c.nodes[i];
    if (node.unschedulable || (node.dedicated && !tolerates_dedicated)) continue;
    out.push_back(i);
  }
  if (n > 0) *next_start = (*next_start + examined) % n;
  return out;
}

// One mode's recording; a mode left out (--mode) only counts, and its bodies need not be built.
class Recording {
 public:
  Recording(const fs::path& dir, bool on) {
    if (on) out_.emplace((fs::create_directories(dir), dir / record_file_name(1)));
  }
  bool on() const { return out_.has_value(); }
  void add(std::string_view verb, std::string_view body) {
    if (!out_) {
      ++seq_;
      return;
    }
    const std::string length = std::to_string(body.size());
    RecordView e;
    e.seq = ++seq_;
    // Synthetic arrival times a fixed step apart: deterministic, and plausible for a busy scheduler.
    e.time = static_cast<double>(kTrafficStart) + static_cast<double>(seq_) * 0.01;
    e.verb = verb;
    e.content_type = "application/json";
    e.content_length = length;
    e.body = body;
    out_->write(encode_record_line(e));
  }
  size_t count() const { return seq_; }
  void close() {
    if (out_) out_->close();
  }

 private:
  std::optional<Output> out_;
  size_t seq_ = 0;
};

}  // namespace

WorkloadSummary write_workload(const GenOptions& o, const std::string& out_dir) {
  const fs::path dir(out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw std::runtime_error(out_dir + ": cannot create directory");
  const Cluster c = make_cluster(o);
  WorkloadSummary sum;
  sum.nodes = c.nodes.size();
  sum.pods = c.pods.size();
  sum.pdbs = c.pdbs.size();
  for (const auto& n : c.nodes) sum.average_node_bytes += n.json.size();
  if (!c.nodes.empty()) sum.average_node_bytes /= c.nodes.size();
  sum.cluster_bytes = write_cluster(c, dir / "cluster.json");

  // Traffic has its own stream so that adding traffic options never changes the cluster.
  Prng rng(o.seed ^ 0x7261666669635eedULL);
  const size_t per_request = o.nodes_per_request ? std::min(o.nodes_per_request, c.nodes.size())
                                                 : feasible_nodes_to_find(c.nodes.size());
  sum.nodes_per_request = per_request;
  Recording names(dir / "names", o.names), full(dir / "full", o.full);
  size_t next_start = 0, next_preempt_start = 0;
  for (size_t cycle = 0; cycle < o.cycles; ++cycle) {
    const PodSpec pod =
        pending_pod(c, rng, cycle, kPendingPriorities[rng.below(std::size(kPendingPriorities))]);
    const std::string pod_text = pod_json(pod);
    const auto nodes = pick_nodes(c, per_request, pod.tolerates_dedicated, &next_start);
    // The scheduler sends prioritize the same body as filter.
    const std::string names_body = names.on() ? extender_args(c, pod_text, nodes, false) : "";
    const std::string full_body = full.on() ? extender_args(c, pod_text, nodes, true) : "";
    for (const char* verb : {"filter", "prioritize"}) {
      names.add(verb, names_body);
      full.add(verb, full_body);
    }
    if (o.bind && !nodes.empty()) {
      const std::string body = binding_args(pod, c.nodes[nodes.front()].name);
      names.add("bind", body);
      full.add("bind", body);
    }
    if (o.preempt_every && (cycle + 1) % o.preempt_every == 0) {
      const PodSpec preemptor = pending_pod(c, rng, cycle, kPreemptorPriority);
      const std::string text = pod_json(preemptor);
      const auto candidates = pick_nodes(c, preemption_candidates(c.nodes.size()),
                                         preemptor.tolerates_dedicated, &next_preempt_start);
      names.add("preempt", names.on() ? preemption_args(c, text, candidates, kPreemptorPriority, false) : "");
      full.add("preempt", full.on() ? preemption_args(c, text, candidates, kPreemptorPriority, true) : "");
    }
  }
  sum.requests_per_mode = names.count();
  names.close();
  full.close();
  return sum;
}

}  // namespace kext::gen

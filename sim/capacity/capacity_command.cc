#include "sim/capacity/capacity_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "common/cli.h"
#include "common/read_file.h"
#include "json/json.h"
#include "policy/version_choice.h"
#include "sim/live_input.h"
#include "sim/run.h"
#include "yaml/yaml.h"

namespace kext::simtool {
namespace {

// The cluster and the configuration: the flags of extender-sim's run, with the same meanings.
void define_input_flags(CLI::App& app, SimCommand& c) {
  define_cluster_flags(
      app, c,
      "the cluster: what `kubectl get nodes,pods,pdb -A -o json` prints; its pending pods are "
      "left where they are, as cluster-capacity leaves them");
  cli::non_empty(app.add_option("--config", c.config_file,
                                "a KubeSchedulerConfiguration, or an extender's configuration that joins "
                                "the scheduler profile, as extender-sim --config (default: kube-scheduler's "
                                "default profile alone)"))
      ->type_name("FILE");
  cli::non_empty(app.add_option("--scheduler-config", c.scheduler_config_file,
                                "the KubeSchedulerConfiguration whose profile an extender's --config joins"))
      ->type_name("FILE");
  cli::add_parsed(
      app, "--kubernetes-version",
      [&c](const std::string& v) { c.kubernetes_version = parse_version_flag(v); }, "", version_flag_help())
      ->type_name("VERSION");
  app.add_option("--seed", c.seed, "same seed, same answer (selectHost's ties)")->type_name("S");
  app.add_option("--percentage-of-nodes-to-score", c.percentage_of_nodes_to_score,
                 "kube-scheduler's percentageOfNodesToScore (0: its adaptive default)")
      ->check(CLI::Range(0, 100))
      ->type_name("PERCENT");
}

void define_flags(CLI::App& app, CapacityCommand& c) {
  cli::configure(app);
  define_input_flags(app, c.inputs);
  cli::non_empty(app.add_option("--pod", c.pod_file,
                                "how many more of this pod fit: a Pod (JSON or YAML), placed copy after copy "
                                "through the scheduler's cycle, none preempting"))
      ->type_name("FILE");
  cli::non_empty(app.add_option("--drain", c.drain,
                                "what if these nodes go: comma-separated node names, or key=value labels "
                                "a node must all carry; drained as kubectl drain --ignore-daemonsets does"))
      ->type_name("NODES|LABELS");
  app.add_option("--max", c.max_pods,
                 "stop after this many copies (0: no limit); with a limit every copy takes a whole cycle")
      ->check(CLI::Range(size_t{0}, size_t{100000000}))
      ->type_name("N");
  app.add_flag("--json", c.json, "the answer as one JSON object");
}

CLI::App make_app() {
  return CLI::App(
      "extender-sim capacity: what fits in the cluster, under the configured scheduler and extender",
      "extender-sim capacity");
}

// YAML or JSON text as JSON text (YAML is a superset of JSON).
std::string as_json_text(const std::string& text) {
  const rapidjson::Document doc = yaml::to_json(text);
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  doc.Accept(w);
  return buf.GetString();
}

}  // namespace

CapacityCommand parse_capacity_options(int argc, char** argv) {
  CapacityCommand c;
  CLI::App app = make_app();
  define_flags(app, c);
  if (!cli::parse(app, argc, argv)) {
    c.help = true;
    return c;
  }
  if (c.inputs.cluster_file.empty() && c.inputs.kubeconfig.empty())
    throw std::invalid_argument("the cluster: one of --cluster FILE and --kubeconfig FILE is required");
  if (c.pod_file.empty() == c.drain.empty())
    throw std::invalid_argument("the question: one of --pod FILE and --drain NODES is required");
  if (!c.inputs.config_file.empty()) c.inputs.config_files = {c.inputs.config_file};
  return c;
}

std::string capacity_usage() {
  CapacityCommand c;
  CLI::App app = make_app();
  define_flags(app, c);
  return cli::help_text(app);
}

std::vector<std::string> capacity_flag_names() {
  CapacityCommand c;
  CLI::App app = make_app();
  define_flags(app, c);
  return cli::flag_names(app);
}

Pod decode_capacity_pod(const std::string& text) {
  WorkloadInput in = decode_workload(as_json_text(text));
  if (in.pods.size() != 1) {
    throw DecodeError("a Pod is asked about one at a time, not " + std::to_string(in.pods.size()));
  }
  return std::move(in.pods.front().pod);
}

Pod read_capacity_pod(const std::string& path, const std::vector<PriorityClass>& classes) {
  std::string text;
  if (!read_whole_file(path, text)) throw InputError("--pod " + path + ": cannot read the file");
  try {
    std::vector<InputPod> pods(1);
    pods.front().pod = decode_capacity_pod(text);
    resolve_priorities(pods, classes);
    return std::move(pods.front().pod);
  } catch (const DecodeError& e) {
    throw InputError("--pod " + path + ": " + e.what());
  }
}

namespace {

// The cluster and the configuration of a question, as extender-sim's run reads them.
struct Question {
  SimConfig loaded;
  ClusterInput in;
  sim::SimulatorOptions options;
};

Question read_question(const CapacityCommand& command) {
  Question q{load_sim_config(command.inputs, command.inputs.config_file), read_cluster(command.inputs), {}};
  std::clog << "extender-sim capacity: " << q.loaded.version_line << "\n";
  q.options.seed = command.inputs.seed;
  q.options.percentage_of_nodes_to_score = command.inputs.percentage_of_nodes_to_score;
  apply(q.loaded, q.options);
  q.options.epoch_unix_seconds = q.in.epoch_unix_seconds;
  // What selects pods (PodTopologySpread's default constraints, InterPodAffinity's namespaceSelector).
  ClusterInput& in = q.in;
  in.cluster.set_namespace_labels(std::move(in.namespace_labels));
  in.cluster.set_workloads(std::move(in.services), std::move(in.replication_controllers),
                           std::move(in.replica_sets), std::move(in.stateful_sets));
  in.cluster.set_gpu_sharing(q.loaded.gpu_sharing);
  return q;
}

}  // namespace

sim::capacity::CapacityAnswer run_capacity(const CapacityCommand& command) {
  Question q = read_question(command);
  const Pod pod = read_capacity_pod(command.pod_file, q.in.priority_classes);
  return sim::capacity::how_many_fit(std::move(q.in.cluster), *q.loaded.engine, q.options, pod,
                                     command.max_pods);
}

sim::capacity::DrainAnswer run_drain(const CapacityCommand& command) {
  Question q = read_question(command);
  std::vector<std::string> nodes;
  try {
    nodes = sim::capacity::nodes_to_drain(q.in.cluster, command.drain);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  return sim::capacity::drain(std::move(q.in.cluster), *q.loaded.engine, q.options, nodes);
}

std::string capacity_output(const CapacityCommand& command) {
  if (!command.drain.empty()) {
    const auto answer = run_drain(command);
    return command.json ? drain_json(answer) + "\n" : format_drain(answer);
  }
  const auto answer = run_capacity(command);
  return command.json ? capacity_json(answer) + "\n" : format_capacity(answer);
}

std::string format_capacity(const sim::capacity::CapacityAnswer& answer) {
  std::ostringstream out;
  out << answer.fit << " more of " << answer.pod << " fit";
  if (answer.stopped_at_max) out << " (stopped at --max; there may be room for more)";
  if (!answer.stopped_by_budget.empty())
    out << " at least (the " << (answer.stopped_by_budget == "time" ? "time" : "node") << " budget ran out)";
  out << "\n";
  size_t width = 4;
  for (const auto& n : answer.per_node) width = std::max(width, n.node.size());
  if (!answer.per_node.empty()) {
    out << "  " << std::string("node") << std::string(width - 4 + 2, ' ') << "pods\n";
    for (const auto& n : answer.per_node)
      out << "  " << n.node << std::string(width - n.node.size() + 2, ' ') << n.pods << "\n";
  }
  if (!answer.stopped_at_max && answer.stopped_by_budget.empty())
    out << "the next one does not fit: " << answer.message << "\n";
  return out.str();
}

std::string capacity_json(const sim::capacity::CapacityAnswer& answer) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "pod", answer.pod);
  json::write_member(w, "fit", answer.fit);
  json::write_member(w, "stoppedAtMax", answer.stopped_at_max);
  // "", or which budget ran out (the extender's endpoint): then `fit` is a lower bound.
  json::write_member(w, "stoppedByBudget", answer.stopped_by_budget);
  json::write_member(w, "nodeChecks", answer.node_checks);
  w.Key("perNode");
  w.StartArray();
  for (const auto& n : answer.per_node) {
    w.StartObject();
    json::write_member(w, "node", n.node);
    json::write_member(w, "pods", n.pods);
    w.EndObject();
  }
  w.EndArray();
  w.Key("reasons");
  w.StartObject();
  for (const auto& [reason, nodes] : answer.reasons) json::write_member(w, reason.c_str(), nodes);
  w.EndObject();
  json::write_member(w, "message", answer.message);
  w.EndObject();
  return buf.GetString();
}

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

void write_strings(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                   const std::vector<std::string>& items) {
  w.Key(key);
  w.StartArray();
  for (const auto& i : items) json::write_string(w, i);
  w.EndArray();
}

void write_evicted(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                   const std::vector<sim::capacity::EvictedPod>& pods) {
  w.Key(key);
  w.StartArray();
  for (const auto& p : pods) {
    w.StartObject();
    json::write_member(w, "pod", p.pod);
    json::write_member(w, "from", p.from);
    json::write_member(w, "priority", p.priority);
    if (!p.to.empty()) json::write_member(w, "to", p.to);
    if (!p.reason.empty()) json::write_member(w, "reason", p.reason);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string format_drain(const sim::capacity::DrainAnswer& a) {
  std::ostringstream out;
  out << "drain " << joined(a.nodes) << ": " << (a.safe ? "safe" : "not safe") << "\n";
  out << "evicted: " << a.placed.size() + a.pending.size() + a.unreplaced.size() << " (" << a.placed.size()
      << " placed elsewhere, " << a.pending.size() << " pending, " << a.unreplaced.size()
      << " of no controller)\n";
  for (const auto& p : a.placed) out << "  " << p.pod << "  " << p.from << " -> " << p.to << "\n";
  for (const auto& p : a.pending)
    out << "  " << p.pod << "  " << p.from << " -> pending: " << p.reason << "\n";
  if (!a.unreplaced.empty())
    out << "not replaced (no controller; kubectl drain needs --force): " << joined(a.unreplaced) << "\n";
  if (!a.preempted.empty()) out << "preempted elsewhere for them: " << joined(a.preempted) << "\n";
  for (const auto& b : a.budgets) {
    out << "PodDisruptionBudget " << b.pdb << ": " << b.evicted << " evicted, " << b.allowed << " allowed"
        << (b.blocks  ? ": blocks the drain (some replacements never run)"
            : b.slows ? ": slows the drain (evictions wait for replacements to run)"
                      : "")
        << "\n";
  }
  if (!a.daemon_pods.empty()) out << "left to their DaemonSets: " << joined(a.daemon_pods) << "\n";
  return out.str();
}

std::string drain_json(const sim::capacity::DrainAnswer& a) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  write_strings(w, "nodes", a.nodes);
  json::write_member(w, "safe", a.safe);
  write_evicted(w, "placed", a.placed);
  write_evicted(w, "pending", a.pending);
  write_strings(w, "unreplaced", a.unreplaced);
  write_strings(w, "daemonPods", a.daemon_pods);
  write_strings(w, "preempted", a.preempted);
  w.Key("budgets");
  w.StartArray();
  for (const auto& b : a.budgets) {
    w.StartObject();
    json::write_member(w, "pdb", b.pdb);
    json::write_member(w, "evicted", b.evicted);
    json::write_member(w, "allowed", b.allowed);
    json::write_member(w, "slows", b.slows);
    json::write_member(w, "blocks", b.blocks);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace kext::simtool

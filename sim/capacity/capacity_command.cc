#include "sim/capacity/capacity_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "algorithms/gang/pod_group.h"
#include "algorithms/namespaced_key.h"
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

PodQuestion decode_pod_question(const std::string& text) {
  WorkloadInput in = decode_workload(as_json_text(text));
  if (in.pods.empty())
    throw DecodeError("no pod in it: a Pod, a workload or a PodGroup's members are asked about");
  if (in.pod_groups.size() > 1)
    throw DecodeError("a group is asked about one at a time, not " + std::to_string(in.pod_groups.size()) +
                      " PodGroups");
  PodQuestion q;
  if (!in.pod_groups.empty()) q.gang = in.pod_groups.begin()->second;
  for (InputPod& p : in.pods) {
    if (q.gang && gang::pod_group_key(p.pod) != q.gang->key()) {
      throw DecodeError("pod " + namespaced_key(p.pod.namespace_, p.pod.name) +
                        " is not a member of PodGroup " + namespaced_key(q.gang->namespace_, q.gang->name) +
                        ": the file asks about one group");
    }
    q.pods.push_back(std::move(p.pod));
  }
  q.replica_sets = std::move(in.replica_sets);
  q.stateful_sets = std::move(in.stateful_sets);
  return q;
}

namespace {

// --pod's file as a question, its pods' priorities resolved against `classes` as the Priority admission
// plugin would. Throws InputError naming --pod and the file.
PodQuestion read_pod_question(const std::string& path) {
  std::string text;
  if (!read_whole_file(path, text)) throw InputError("--pod " + path + ": cannot read the file");
  try {
    return decode_pod_question(text);
  } catch (const DecodeError& e) {
    throw InputError("--pod " + path + ": " + e.what());
  }
}

void resolve_question_priorities(PodQuestion& q, const std::string& path,
                                 const std::vector<PriorityClass>& classes) {
  std::vector<InputPod> pods(q.pods.size());
  for (size_t i = 0; i < q.pods.size(); ++i) pods[i].pod = std::move(q.pods[i]);
  try {
    resolve_priorities(pods, classes);
  } catch (const DecodeError& e) {
    throw InputError("--pod " + path + ": " + e.what());
  }
  for (size_t i = 0; i < q.pods.size(); ++i) q.pods[i] = std::move(pods[i].pod);
}

}  // namespace

Pod read_capacity_pod(const std::string& path, const std::vector<PriorityClass>& classes) {
  PodQuestion q = read_pod_question(path);
  if (q.pods.size() != 1)
    throw InputError("--pod " + path + ": a Pod is asked about one at a time, not " +
                     std::to_string(q.pods.size()));
  resolve_question_priorities(q, path, classes);
  return std::move(q.pods.front());
}

namespace {

// The cluster and the configuration of a question, as extender-sim's run reads them.
struct Question {
  SimConfig loaded;
  ClusterInput in;
  sim::SimulatorOptions options;
};

// `pods` (may be null): the question's workload, whose selectors join the cluster's for the system
// default spreading of its copies.
Question read_question(const CapacityCommand& command, const PodQuestion* pods = nullptr) {
  Question q{load_sim_config(command.inputs, command.inputs.config_file), read_cluster(command.inputs), {}};
  std::clog << "extender-sim capacity: " << q.loaded.version_line << "\n";
  q.options.seed = command.inputs.seed;
  q.options.percentage_of_nodes_to_score = command.inputs.percentage_of_nodes_to_score;
  apply(q.loaded, q.options);
  q.options.epoch_unix_seconds = q.in.epoch_unix_seconds;
  // What selects pods (PodTopologySpread's default constraints, InterPodAffinity's namespaceSelector).
  ClusterInput& in = q.in;
  if (pods) {
    in.replica_sets.insert(in.replica_sets.end(), pods->replica_sets.begin(), pods->replica_sets.end());
    in.stateful_sets.insert(in.stateful_sets.end(), pods->stateful_sets.begin(), pods->stateful_sets.end());
  }
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

sim::capacity::GroupAnswer run_capacity_groups(const CapacityCommand& command) {
  PodQuestion pods = read_pod_question(command.pod_file);
  Question q = read_question(command, &pods);
  resolve_question_priorities(pods, command.pod_file, q.in.priority_classes);
  sim::capacity::GroupQuestion group{std::move(pods.pods), std::move(pods.gang), std::move(q.in.pod_groups)};
  return sim::capacity::how_many_groups(std::move(q.in.cluster), *q.loaded.engine, q.options, group,
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
  if (read_pod_question(command.pod_file).is_group()) {
    const auto answer = run_capacity_groups(command);
    return command.json ? groups_json(answer) + "\n" : format_groups(answer);
  }
  const auto answer = run_capacity(command);
  return command.json ? capacity_json(answer) + "\n" : format_capacity(answer);
}

namespace {

// "node-a 4, node-b 4".
std::string nodes_text(const std::vector<sim::capacity::NodeCount>& per_node) {
  std::string out;
  for (const auto& n : per_node) out += (out.empty() ? "" : ", ") + n.node + " " + std::to_string(n.pods);
  return out;
}

// What the count's first line adds when the count stopped early: at --max, or at a budget.
std::string why_stopped(bool at_max, const std::string& budget) {
  std::string out;
  if (at_max) out += " (stopped at --max; there may be room for more)";
  if (!budget.empty())
    out += std::string(" at least (the ") + (budget == "time" ? "time" : "node") + " budget ran out)";
  return out;
}

void write_per_node(rapidjson::Writer<rapidjson::StringBuffer>& w,
                    const std::vector<sim::capacity::NodeCount>& nodes) {
  w.Key("perNode");
  w.StartArray();
  for (const auto& n : nodes) {
    w.StartObject();
    json::write_member(w, "node", n.node);
    json::write_member(w, "pods", n.pods);
    w.EndObject();
  }
  w.EndArray();
}

void write_reasons(rapidjson::Writer<rapidjson::StringBuffer>& w,
                   const std::map<std::string, size_t>& reasons) {
  w.Key("reasons");
  w.StartObject();
  for (const auto& [reason, nodes] : reasons) json::write_member(w, reason.c_str(), nodes);
  w.EndObject();
}

}  // namespace

std::string format_capacity(const sim::capacity::CapacityAnswer& answer) {
  std::ostringstream out;
  out << answer.fit << " more of " << answer.pod << " fit";
  out << why_stopped(answer.stopped_at_max, answer.stopped_by_budget);
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
  write_per_node(w, answer.per_node);
  write_reasons(w, answer.reasons);
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

std::string format_groups(const sim::capacity::GroupAnswer& answer) {
  std::ostringstream out;
  out << answer.fit << " more group" << (answer.fit == 1 ? "" : "s") << " of " << answer.size << " ("
      << answer.group << ") fit";
  if (!answer.each_in_one.empty())
    out << ", " << (answer.fit == 1 ? "in one " : "each in one ") << answer.each_in_one;
  out << why_stopped(answer.stopped_at_max, answer.stopped_by_budget);
  out << "\n";
  for (size_t i = 0; i < answer.groups.size(); ++i) {
    const auto& g = answer.groups[i];
    out << "  group " << i << ": " << nodes_text(g.per_node);
    if (!g.domains.empty()) out << " (" << joined(g.domains) << ")";
    out << "\n";
  }
  if (!answer.stopped_at_max && answer.stopped_by_budget.empty())
    out << "the next group does not complete: " << answer.message << "\n";
  return out.str();
}

std::string groups_json(const sim::capacity::GroupAnswer& answer) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "group", answer.group);
  json::write_member(w, "size", answer.size);
  json::write_member(w, "fit", answer.fit);
  json::write_member(w, "eachInOne", answer.each_in_one);
  w.Key("groups");
  w.StartArray();
  for (const auto& g : answer.groups) {
    w.StartObject();
    write_per_node(w, g.per_node);
    write_strings(w, "domains", g.domains);
    w.EndObject();
  }
  w.EndArray();
  json::write_member(w, "stoppedAtMax", answer.stopped_at_max);
  json::write_member(w, "stoppedByBudget", answer.stopped_by_budget);
  json::write_member(w, "nodeChecks", answer.node_checks);
  write_reasons(w, answer.reasons);
  json::write_member(w, "message", answer.message);
  w.EndObject();
  return buf.GetString();
}

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

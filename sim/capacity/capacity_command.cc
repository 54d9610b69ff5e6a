#include "sim/capacity/capacity_command.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "algorithms/gang/pod_group.h"
#include "algorithms/namespaced_key.h"
#include "common/cli.h"
#include "common/read_file.h"
#include "json/json.h"
#include "policy/version_choice.h"
#include "sim/capacity/capacity_html.h"
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
  cli::non_empty(app.add_option("--add-node", c.add_node,
                                "would nodes like this one help: a Node (JSON or YAML) whose copies are "
                                "added until the cluster's pending pods bind; which each lets bind, and "
                                "how few place them all"))
      ->type_name("FILE");
  app.add_option("--count", c.count, "the most nodes --add-node adds (0: one per pending pod)")
      ->check(CLI::Range(size_t{0}, size_t{100000}))
      ->type_name("N");
  app.add_option("--max", c.max_pods,
                 "stop after this many copies (0: no limit); with a limit every copy takes a whole cycle")
      ->check(CLI::Range(size_t{0}, size_t{100000000}))
      ->type_name("N");
  app.add_flag("--json", c.json, "the answer as one JSON object");
  cli::non_empty(app.add_option("--html", c.html_file,
                                "the answer as an HTML page too, in the style of extender-sim --html"))
      ->type_name("FILE");
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
  const int questions = !c.pod_file.empty() + !c.drain.empty() + !c.add_node.empty();
  if (questions != 1)
    throw std::invalid_argument(
        "the question: one of --pod FILE, --drain NODES and --add-node FILE is required");
  if (c.count != 0 && c.add_node.empty()) throw std::invalid_argument("--count: only with --add-node");
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

// The one Pod of a question that is not a group, its priority resolved against `classes`.
Pod only_pod(PodQuestion q, const std::string& path, const std::vector<PriorityClass>& classes) {
  if (q.pods.size() != 1)
    throw InputError("--pod " + path + ": a Pod is asked about one at a time, not " +
                     std::to_string(q.pods.size()));
  resolve_question_priorities(q, path, classes);
  return std::move(q.pods.front());
}

}  // namespace

Pod read_capacity_pod(const std::string& path, const std::vector<PriorityClass>& classes) {
  return only_pod(read_pod_question(path), path, classes);
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

// --pod's one Pod, read already (read_pod_question), answered.
sim::capacity::CapacityAnswer pod_answer(const CapacityCommand& command, PodQuestion pods) {
  Question q = read_question(command);
  const Pod pod = only_pod(std::move(pods), command.pod_file, q.in.priority_classes);
  return sim::capacity::how_many_fit(std::move(q.in.cluster), *q.loaded.engine, q.options, pod,
                                     command.max_pods);
}

// --pod's group, read already, answered in whole groups.
sim::capacity::GroupAnswer groups_answer(const CapacityCommand& command, PodQuestion pods) {
  Question q = read_question(command, &pods);
  resolve_question_priorities(pods, command.pod_file, q.in.priority_classes);
  sim::capacity::GroupQuestion group{std::move(pods.pods), std::move(pods.gang), std::move(q.in.pod_groups)};
  return sim::capacity::how_many_groups(std::move(q.in.cluster), *q.loaded.engine, q.options, group,
                                        command.max_pods);
}

}  // namespace

sim::capacity::CapacityAnswer run_capacity(const CapacityCommand& command) {
  return pod_answer(command, read_pod_question(command.pod_file));
}

sim::capacity::GroupAnswer run_capacity_groups(const CapacityCommand& command) {
  return groups_answer(command, read_pod_question(command.pod_file));
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

Node read_template_node(const std::string& path) {
  std::string text;
  if (!read_whole_file(path, text)) throw InputError("--add-node " + path + ": cannot read the file");
  ClusterInput in;
  try {
    in = decode_cluster(as_json_text(text));
  } catch (const DecodeError& e) {
    throw InputError("--add-node " + path + ": " + e.what());
  } catch (const sim::ClusterError& e) {
    throw InputError("--add-node " + path + ": " + e.what());
  }
  if (in.cluster.nodes().size() != 1)
    throw InputError("--add-node " + path + ": the template is one Node, not " +
                     std::to_string(in.cluster.nodes().size()));
  return *in.cluster.nodes().front()->node;
}

sim::capacity::AddNodeAnswer run_add_node(const CapacityCommand& command) {
  const Node template_node = read_template_node(command.add_node);
  Question q = read_question(command);
  std::vector<Pod> pending;
  pending.reserve(q.in.pending.size());
  for (InputPod& p : q.in.pending) pending.push_back(std::move(p.pod));
  try {
    return sim::capacity::add_nodes(q.in.cluster, *q.loaded.engine, q.options, q.in.pod_groups, pending,
                                    template_node, command.count);
  } catch (const sim::ClusterError& e) {
    throw InputError("--add-node " + command.add_node + ": " + e.what());  // a copy's name taken already
  }
}

namespace {

// An answer in the three forms the command prints or writes.
struct Rendered {
  std::string text, json, html;
};

template <typename Answer>
Rendered rendered(const Answer& a, std::string (*text)(const Answer&), std::string (*json)(const Answer&),
                  std::string (*html)(const Answer&)) {
  return {text(a), json(a) + "\n", html(a)};
}

Rendered answer(const CapacityCommand& command) {
  if (!command.drain.empty()) return rendered(run_drain(command), format_drain, drain_json, drain_html);
  if (!command.add_node.empty())
    return rendered(run_add_node(command), format_add_nodes, add_nodes_json, add_nodes_html);
  PodQuestion pods = read_pod_question(command.pod_file);
  if (pods.is_group())
    return rendered(groups_answer(command, std::move(pods)), format_groups, groups_json, groups_html);
  return rendered(pod_answer(command, std::move(pods)), format_capacity, capacity_json, capacity_html);
}

// The question as the page shows it: the flags given, with their values.
std::vector<std::pair<std::string, std::string>> question_rows(const CapacityCommand& c) {
  std::vector<std::pair<std::string, std::string>> rows;
  auto add = [&rows](const char* flag, const std::string& value) {
    if (!value.empty()) rows.emplace_back(flag, value);
  };
  add("--cluster", c.inputs.cluster_file);
  add("--kubeconfig", c.inputs.kubeconfig);
  add("--config", c.inputs.config_file);
  add("--scheduler-config", c.inputs.scheduler_config_file);
  add("--pod", c.pod_file);
  add("--drain", c.drain);
  add("--add-node", c.add_node);
  if (c.count) add("--count", std::to_string(c.count));
  if (c.max_pods) add("--max", std::to_string(c.max_pods));
  add("--seed", std::to_string(c.inputs.seed));
  return rows;
}

}  // namespace

std::string capacity_output(const CapacityCommand& command) {
  const Rendered r = answer(command);
  if (!command.html_file.empty()) {
    std::ofstream out(command.html_file, std::ios::binary);
    out << capacity_page(question_rows(command), r.html);
    if (!out.flush()) throw std::runtime_error("--html " + command.html_file + ": cannot write the file");
  }
  return command.json ? r.json : r.text;
}

}  // namespace kext::simtool

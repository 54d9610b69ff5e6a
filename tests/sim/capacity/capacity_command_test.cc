// extender-sim capacity: its flags (and the docs' table of them), the worked example of
// docs/capacity.md, the JSON answer, and the command's exit codes and errors.
#include "sim/capacity/capacity_command.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "json/json.h"
#include "sim/capacity/capacity_html.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/command_line.h"
#include "tests/support/doc_flags.h"
#include "tests/support/temp_dir.h"

namespace kext::simtool {
namespace capacity_command_test {
namespace {

using sim::testing::SimFiles;

CapacityCommand parse(std::vector<std::string> args) {
  return testing::parse_command_line("capacity", std::move(args), parse_capacity_options);
}

std::string error_of(std::vector<std::string> args) {
  return testing::command_line_error([&] { parse(std::move(args)); });
}

const std::string kExamples = std::string(KEXT_SOURCE_DIR) + "/examples/";

TEST(CapacityOptions, ValuesDefaultsAndErrors) {
  const CapacityCommand c = parse({"--cluster", "c.json", "--pod", "p.yaml", "--config=x.yaml", "--max", "7",
                                   "--json", "--seed", "3", "--kubernetes-version", "1.31"});
  EXPECT_EQ(c.inputs.cluster_file, "c.json");
  EXPECT_EQ(c.pod_file, "p.yaml");
  EXPECT_EQ(c.inputs.config_file, "x.yaml");
  EXPECT_EQ(c.max_pods, 7u);
  EXPECT_TRUE(c.json);
  EXPECT_EQ(c.inputs.seed, 3u);
  ASSERT_TRUE(c.inputs.kubernetes_version.has_value());
  EXPECT_EQ(c.inputs.kubernetes_version->str(), "1.31");
  EXPECT_EQ(parse({"--cluster", "c.json", "--pod", "p.yaml"}).max_pods, 0u) << "no limit";

  EXPECT_NE(error_of({"--pod", "p.yaml"}).find("--cluster FILE and --kubeconfig FILE"), std::string::npos);
  EXPECT_NE(error_of({"--cluster", "c.json"})
                .find("one of --pod FILE, --drain NODES and --add-node FILE is required"),
            std::string::npos);
  const CapacityCommand add =
      parse({"--cluster", "c.json", "--add-node", "n.yaml", "--count", "4", "--html", "a.html"});
  EXPECT_EQ(add.add_node, "n.yaml");
  EXPECT_EQ(add.count, 4u);
  EXPECT_EQ(add.html_file, "a.html");
  EXPECT_NE(error_of({"--cluster", "c.json", "--add-node", "n.yaml", "--drain", "n1"}).find("one of --pod"),
            std::string::npos);
  EXPECT_NE(error_of({"--cluster", "c.json", "--pod", "p.yaml", "--count", "2"})
                .find("--count: only with --add-node"),
            std::string::npos);
  EXPECT_NE(error_of({"--cluster", "c.json", "--pod", "p.yaml", "--drain", "n1"}).find("one of --pod"),
            std::string::npos);
  EXPECT_EQ(parse({"--cluster", "c.json", "--drain", "n1,n2"}).drain, "n1,n2");
  EXPECT_NE(error_of({"--cluster", "c.json", "--pod", "p.yaml", "--max", "-1"}).find("--max"),
            std::string::npos);
  EXPECT_NE(error_of({"--cluster", "c.json", "--pod", "p.yaml", "--workload", "w.json"}).find("--workload"),
            std::string::npos);
}

TEST(CapacityOptions, HelpAndTheDocsListEveryFlag) {
  EXPECT_NE(capacity_usage().find("--pod FILE"), std::string::npos) << capacity_usage();
  testing::expect_documents_exactly(capacity_flag_names(), "docs/capacity.md",
                                    "**`extender-sim capacity`** flags", "Exit codes");
}

// docs/capacity.md's example: ten 4-CPU nodes with 3, 1 and 4 CPU requested on the first three, a
// 1-CPU pod: 1 + 3 + 0 + 7 x 4 = 32.
// docs/capacity.md's group example: eight racks of four 4-CPU nodes, a PodGroup of eight 2-CPU workers
// that must share a rack: one group a rack, eight in all; 64 pods would fit one by one.
TEST(Capacity, TheDocsGroupExample) {
  const CapacityCommand c =
      parse({"--cluster", kExamples + "rack-cluster.json", "--pod", kExamples + "capacity-group.yaml"});
  const sim::capacity::GroupAnswer a = run_capacity_groups(c);
  EXPECT_EQ(a.group, "ml/train");
  EXPECT_EQ(a.size, 8u);
  EXPECT_EQ(a.fit, 8u);
  EXPECT_EQ(a.each_in_one, "rack");
  ASSERT_EQ(a.groups.size(), 8u);
  EXPECT_EQ(a.groups[0].domains, (std::vector<std::string>{"rack r1"}));
  const std::string text = format_groups(a);
  EXPECT_TRUE(
      text.starts_with("8 more groups of 8 (ml/train) fit, each in one rack\n"
                       "  group 0: r1-n1 2, r1-n2 2, r1-n3 2, r1-n4 2 (rack r1)\n"))
      << text;
  EXPECT_TRUE(
      text.ends_with("the next group does not complete: 0/32 nodes are available: 32 pod group "
                     "ml/train-8: no rack has room for 8 × 2 CPU: best rack r1 fits 0.\n"))
      << text;
  rapidjson::Document d;
  d.Parse(groups_json(a).c_str());
  ASSERT_TRUE(d.IsObject()) << groups_json(a);
  EXPECT_EQ(d["fit"].GetUint64(), 8u);
  EXPECT_STREQ(d["eachInOne"].GetString(), "rack");
  EXPECT_STREQ(d["groups"][7]["domains"][0].GetString(), "rack r8");

  // A file of two PodGroups, or of a pod outside its PodGroup, asks no one question.
  SimFiles f("capacity-group-errors");
  const std::string two = f.write("two.yaml", R"({"kind":"List","items":[
      {"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"a"},"spec":{"minMember":1}},
      {"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"b"},"spec":{"minMember":1}},
      {"kind":"Pod","metadata":{"name":"p","labels":{"scheduling.x-k8s.io/pod-group":"a"}},"spec":{"containers":[{"name":"c"}]}}]})");
  const auto refused = [&](const std::string& pod) -> std::string {
    try {
      run_capacity_groups(parse({"--cluster", kExamples + "rack-cluster.json", "--pod", pod}));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(refused(two).find("a group is asked about one at a time, not 2 PodGroups"), std::string::npos)
      << refused(two);
  const std::string outside = f.write("outside.yaml", R"({"kind":"List","items":[
      {"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"a"},"spec":{"minMember":1}},
      {"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}]})");
  EXPECT_NE(refused(outside).find("pod default/p is not a member of PodGroup default/a"), std::string::npos)
      << refused(outside);
}

TEST(Capacity, TheDocsWorkedExample) {
  const CapacityCommand c =
      parse({"--cluster", kExamples + "cluster.json", "--pod", kExamples + "capacity-pod.yaml"});
  const sim::capacity::CapacityAnswer a = run_capacity(c);
  EXPECT_EQ(a.fit, 32u);
  std::vector<sim::capacity::NodeCount> want = {{"node-a", 1}, {"node-b", 3}};
  for (const char* n : {"node-d", "node-e", "node-f", "node-g", "node-h", "node-i", "node-j"})
    want.push_back({n, 4});
  EXPECT_EQ(a.per_node, want);
  EXPECT_EQ(a.message, "0/10 nodes are available: 10 Insufficient cpu.");
  const std::string text = format_capacity(a);
  // The page's reasons are counted in nodes, as kube-scheduler's FitError counts them.
  EXPECT_NE(capacity_html(a).find("<tr><th>reason</th><th>nodes</th></tr>"), std::string::npos);
  EXPECT_TRUE(text.starts_with("32 more of default/web fit\n  node    pods\n  node-a  1\n")) << text;
  EXPECT_TRUE(text.ends_with("the next one does not fit: 0/10 nodes are available: 10 Insufficient cpu.\n"))
      << text;

  rapidjson::Document d;
  d.Parse(capacity_json(a).c_str());
  ASSERT_TRUE(d.IsObject()) << capacity_json(a);
  EXPECT_STREQ(d["pod"].GetString(), "default/web");
  EXPECT_EQ(d["fit"].GetUint64(), 32u);
  EXPECT_FALSE(d["stoppedAtMax"].GetBool());
  ASSERT_EQ(d["perNode"].Size(), 9u);
  EXPECT_STREQ(d["perNode"][0]["node"].GetString(), "node-a");
  EXPECT_EQ(d["perNode"][0]["pods"].GetUint64(), 1u);
  EXPECT_EQ(d["reasons"]["Insufficient cpu"].GetUint64(), 10u);
}

// docs/capacity.md's --add-node example: three full 4-CPU nodes of rack r1; pending, four 1-CPU web
// pods, a PodGroup of four 2-CPU workers that must share a rack, and a 16-CPU pod; 4-CPU nodes of rack
// r2 as the template. The web pods arrive first and the scores spread them, one a node: on three new
// nodes that leaves 3, 3 and 2 CPUs (one node taking the fourth), room for three workers, so the gang
// needs a fourth node; the 16-CPU pod fits no node of 4.
TEST(Capacity, TheDocsAddNodeExample) {
  const CapacityCommand c = parse(
      {"--cluster", kExamples + "scale-up-cluster.json", "--add-node", kExamples + "node-template.yaml"});
  const sim::capacity::AddNodeAnswer a = run_add_node(c);
  EXPECT_EQ(a.template_node, "r2");
  EXPECT_EQ(a.pending, 9u);
  EXPECT_TRUE(a.fit_already.empty());
  EXPECT_EQ(a.needed, 4u);
  ASSERT_EQ(a.added.size(), 4u);
  size_t placed = 0;
  for (const auto& n : a.added) placed += n.pods.size();
  EXPECT_EQ(placed, 8u);
  ASSERT_EQ(a.still_pending.size(), 1u);
  EXPECT_EQ(a.still_pending[0].pod, "ml/huge");
  EXPECT_EQ(a.still_pending[0].reason, "0/7 nodes are available: 7 Insufficient cpu.");
  EXPECT_FALSE(a.stopped_at_max);
  const std::string text = format_add_nodes(a);
  EXPECT_EQ(text.substr(0, text.find('\n')), "add nodes like r2: 4 nodes; 8 of 9 pending pods bind") << text;

  SimFiles f("capacity-add-node");
  CapacityCommand page = c;
  page.html_file = f.path("answer.html");
  capacity_output(page);
  const std::string html = testing::slurp(page.html_file);
  EXPECT_NE(html.find("<h1>extender-sim capacity</h1>"), std::string::npos);
  EXPECT_NE(html.find("add nodes like r2: 4 nodes; 8 of 9 pending pods bind"), std::string::npos);
  EXPECT_NE(html.find("r2-new-4"), std::string::npos);
  EXPECT_NE(html.find("0/7 nodes are available: 7 Insufficient cpu."), std::string::npos);
  page.html_file = f.path("no-such-dir/answer.html");
  EXPECT_THROW(capacity_output(page), std::runtime_error);
}

TEST(Capacity, ATemplateOfNoNodeOrTwoIsRefusedNamingTheFlag) {
  SimFiles f("capacity-template");
  const std::string two = f.write("two.yaml", R"(kind: List
items:
- {kind: Node, metadata: {name: a}, status: {allocatable: {cpu: "1"}}}
- {kind: Node, metadata: {name: b}, status: {allocatable: {cpu: "1"}}}
)");
  try {
    read_template_node(two);
    FAIL() << "two nodes were taken";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--add-node " + two + ": the template is one Node, not 2");
  }
  EXPECT_THROW(read_template_node(f.path("missing.yaml")), InputError);
  EXPECT_THROW(read_template_node(f.write("bad.yaml", "kind: Node\nmetadata: [")), InputError);
}

TEST(Capacity, AFileOfTwoPodsOrNoneIsRefusedNamingTheFlag) {
  SimFiles f("capacity-pods");
  const std::string two =
      f.write("two.json", R"([{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[]}},
      {"kind":"Pod","metadata":{"name":"b"},"spec":{"containers":[]}}])");
  try {
    read_capacity_pod(two, {});
    FAIL() << "two pods were taken";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--pod " + two + ": a Pod is asked about one at a time, not 2");
  }
  EXPECT_THROW(read_capacity_pod(f.path("missing.yaml"), {}), InputError);
}

TEST(Capacity, TheCommandsExitCodesAndOutput) {
  SimFiles f("capacity-binary");
  const std::string out = f.path("out.txt"), err = f.path("err.txt");
  auto run = [&](const std::string& args) {
    const int status =
        std::system((std::string(KEXT_SIM_BINARY) + " capacity " + args + " >" + out + " 2>" + err).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  const std::string cluster = kExamples + "cluster.json", pod = kExamples + "capacity-pod.yaml";
  ASSERT_EQ(run("--cluster " + cluster + " --pod " + pod + " --max 5 --json"), 0) << testing::slurp(err);
  EXPECT_EQ(testing::slurp(out).substr(0, 49), R"({"pod":"default/web","fit":5,"stoppedAtMax":true,)")
      << testing::slurp(out);
  EXPECT_EQ(run("--cluster " + cluster), 2);
  EXPECT_NE(testing::slurp(err).find("one of --pod FILE, --drain NODES and --add-node FILE is required"),
            std::string::npos)
      << testing::slurp(err);
  EXPECT_EQ(run("--cluster " + cluster + " --drain node-x"), 2);
  EXPECT_NE(testing::slurp(err).find("--drain: no node \"node-x\" in the cluster"), std::string::npos)
      << testing::slurp(err);
  EXPECT_EQ(run("--cluster " + cluster + " --pod " + f.path("missing.yaml")), 2);
  EXPECT_NE(testing::slurp(err).find("--pod " + f.path("missing.yaml") + ": cannot read the file"),
            std::string::npos)
      << testing::slurp(err);
  ASSERT_EQ(run("--help"), 0);
  EXPECT_NE(testing::slurp(out).find("--pod FILE"), std::string::npos);
}

}  // namespace
}  // namespace capacity_command_test
}  // namespace kext::simtool

// extender-sim's command line (sim/sim_options.cc): values, defaults, errors naming the flag; the input
// flags beside --cluster: --kubeconfig (exactly one of the two), --context, --record-dir; and the
// command's exit status on a cluster it cannot reach.
#include "sim/sim_options.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/command_line.h"
#include "tests/support/doc_flags.h"

namespace kext::simtool {
namespace sim_options_test {
namespace {

SimCommand parse(std::vector<std::string> args) {
  return testing::parse_command_line("extender-sim", std::move(args), parse_sim_options);
}

std::string error_of(std::vector<std::string> args) {
  return testing::command_line_error([&] { parse(std::move(args)); });
}

TEST(SimOptions, ValuesAndDefaults) {
  const SimCommand c =
      parse({"--cluster", "c.json", "--workload=w.json", "--config", "x.yaml", "--log", "l.jsonl", "--seed",
             "42", "--max-time", "600", "--runtime=90.5", "--arrival-interval", "0.25",
             "--percentage-of-nodes-to-score=30", "--compare", "y.yaml", "--html=r.html"});
  EXPECT_EQ(c.cluster_file, "c.json");
  EXPECT_EQ(c.workload_file, "w.json");
  EXPECT_EQ(c.config_file, "x.yaml");
  EXPECT_EQ(c.log_file, "l.jsonl");
  EXPECT_EQ(c.seed, 42u);
  EXPECT_EQ(c.max_time_seconds, 600);
  EXPECT_EQ(c.runtime_seconds, 90.5);
  EXPECT_EQ(c.arrival_interval_seconds, 0.25);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 30);
  EXPECT_EQ(c.compare_file, "y.yaml");
  EXPECT_EQ(c.html_file, "r.html");

  const SimCommand d = parse({"--cluster", "c.json"});
  EXPECT_EQ(d.seed, 1u);
  EXPECT_EQ(d.max_time_seconds, 86400) << "SimulatorOptions' 24 h";
  EXPECT_FALSE(d.runtime_seconds.has_value()) << "pods never complete";
  EXPECT_EQ(d.arrival_interval_seconds, 0);
  EXPECT_EQ(d.percentage_of_nodes_to_score, 0) << "adaptive";
  EXPECT_TRUE(d.workload_file.empty() && d.config_file.empty() && d.log_file.empty());
  EXPECT_TRUE(d.compare_file.empty() && d.html_file.empty());
  EXPECT_TRUE(d.scheduler_config_file.empty());
  EXPECT_FALSE(d.extender_weight.has_value()) << "the profile's extenders entry, else 1";
  const SimCommand e =
      parse({"--cluster", "c.json", "--scheduler-config", "ksc.yaml", "--extender-weight=5"});
  EXPECT_EQ(e.scheduler_config_file, "ksc.yaml");
  EXPECT_EQ(e.extender_weight, 5);
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_NE(sim_usage().find("--arrival-interval"), std::string::npos);
  EXPECT_FALSE(d.kubernetes_version);
  EXPECT_EQ(parse({"--cluster", "c.json", "--kubernetes-version", "v1.31.4"}).kubernetes_version,
            KubeVersion{31});
}

TEST(SimOptions, ErrorsNameTheFlag) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{}, "one of --cluster FILE and --kubeconfig FILE is required"},
      {{"--cluster", ""}, "--cluster: must not be empty"},
      {{"--cluster", "c", "--workload="}, "--workload"},
      {{"--cluster", "c", "--max-time", "-1"}, "--max-time"},
      {{"--cluster", "c", "--runtime", "soon"}, "--runtime"},
      {{"--cluster", "c", "--arrival-interval", "-0.5"}, "--arrival-interval"},
      {{"--cluster", "c", "--seed", "x"}, "--seed"},
      {{"--cluster", "c", "--percentage-of-nodes-to-score", "101"}, "--percentage-of-nodes-to-score"},
      {{"--cluster", "c", "--compare", ""}, "--compare: must not be empty"},
      {{"--cluster", "c", "--html", ""}, "--html: must not be empty"},
      {{"--cluster", "c", "--scheduler-config", ""}, "--scheduler-config: must not be empty"},
      {{"--cluster", "c", "--extender-weight", "0"}, "--extender-weight"},
      {{"--cluster", "c", "--extender-weight", "1000001"}, "--extender-weight"},
      {{"--cluster", "c", "--extender-weight", "heavy"}, "--extender-weight"},
      {{"--cluster", "c", "--bogus"}, "unknown flag \"--bogus\""},
      {{"--cluster", "c", "--kubernetes-version", "1.37"},
       "--kubernetes-version: \"1.37\": 1.37 is not reproduced by this extender (supported: 1.26 to 1.36)"},
      {{"--cluster", "c", "--kubernetes-version", "one"},
       "--kubernetes-version: \"one\" is not a Kubernetes version"},
  };
  for (const auto& [args, want] : cases) {
    EXPECT_NE(error_of(args).find(want), std::string::npos) << want << ": " << error_of(args);
  }
}

TEST(SimOptions, HelpAndTheReadmeListEveryFlag) {
  EXPECT_NE(sim_usage().find("--cluster FILE"), std::string::npos) << sim_usage();
  const std::vector<std::string> names = sim_flag_names();
  EXPECT_GE(names.size(), 11u);
  testing::expect_documents_exactly(names, "docs/simulator.md", "**`extender-sim`** flags", "- `--cluster`");
}

TEST(SimSourceOptions, KubeconfigContextAndRecordDir) {
  const SimCommand c = parse({"--kubeconfig", "k.yaml", "--context=prod", "--record-dir", "rec"});
  EXPECT_EQ(c.kubeconfig, "k.yaml");
  EXPECT_EQ(c.kube_context, "prod");
  EXPECT_EQ(c.record_dir, "rec");
  EXPECT_TRUE(c.cluster_file.empty());
  const SimCommand d = parse({"--cluster", "c.json"});
  EXPECT_TRUE(d.kubeconfig.empty() && d.kube_context.empty() && d.record_dir.empty());
  EXPECT_NE(sim_usage().find("--record-dir DIR"), std::string::npos);
  EXPECT_NE(sim_usage().find("--kubeconfig FILE"), std::string::npos);
}

TEST(SimSourceOptions, ExactlyOneClusterSource) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{}, "one of --cluster FILE and --kubeconfig FILE is required"},
      {{"--record-dir", "rec"}, "one of --cluster FILE and --kubeconfig FILE is required"},
      {{"--cluster", "c", "--kubeconfig", "k"}, "--cluster excludes --kubeconfig"},
      {{"--kubeconfig", "k", "--cluster", "c"}, "--cluster excludes --kubeconfig"},
      {{"--cluster", "c", "--context", "x"}, "--context requires --kubeconfig"},
      {{"--kubeconfig", ""}, "--kubeconfig: must not be empty"},
      {{"--kubeconfig", "k", "--context", ""}, "--context: must not be empty"},
      {{"--cluster", "c", "--record-dir", ""}, "--record-dir: must not be empty"},
  };
  for (const auto& [args, want] : cases) {
    EXPECT_NE(error_of(args).find(want), std::string::npos) << want << ": " << error_of(args);
  }
}

// The command on a kubeconfig whose server does not answer, or that does not load: exit 2 and a
// message naming the kubeconfig (and the server), never a crash.
TEST(SimSourceOptions, UnreachableOrBadKubeconfigExitsTwo) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("extender-sim-kubeconfig-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Port 1 on loopback: nothing listens there (connection refused at once).
  const std::string kubeconfig = (dir / "kubeconfig").string();
  std::ofstream(kubeconfig)
      << "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: http://127.0.0.1:1\n"
         "  name: c\ncontexts:\n- context:\n    cluster: c\n    user: u\n  name: ctx\n"
         "current-context: ctx\nusers:\n- name: u\n  user: {}\n";
  const std::string err = (dir / "err.txt").string();
  auto run = [&](const std::string& args) {
    const int status =
        std::system((std::string(KEXT_SIM_BINARY) + " " + args + " >/dev/null 2>" + err).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  auto stderr_text = [&] {
    std::ifstream in(err);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_EQ(run("--kubeconfig " + kubeconfig), 2);
  EXPECT_EQ(stderr_text().rfind("extender-sim: --kubeconfig " + kubeconfig +
                                    " (server http://127.0.0.1:1): list /api/v1/nodes: ",
                                0),
            0u)
      << stderr_text();
  EXPECT_EQ(run("--kubeconfig " + kubeconfig + " --context nope"), 2);
  EXPECT_EQ(stderr_text(), "extender-sim: --kubeconfig " + kubeconfig + ": context \"nope\" not found\n");
  EXPECT_EQ(run("--kubeconfig " + (dir / "missing").string()), 2);
  EXPECT_EQ(stderr_text().rfind("extender-sim: --kubeconfig " + (dir / "missing").string() + ": ", 0), 0u)
      << stderr_text();
  EXPECT_EQ(run("--cluster x --kubeconfig " + kubeconfig), 2);
  EXPECT_NE(stderr_text().find("--cluster excludes --kubeconfig"), std::string::npos) << stderr_text();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sim_options_test
}  // namespace kext::simtool

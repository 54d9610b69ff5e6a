// extender-sim's command line (sim/sim_options.cc): values, defaults, errors naming the flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/command_line.h"
#include "tests/support/doc_flags.h"
#include "sim/sim_options.h"

namespace kext::simtool {
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

}  // namespace
}  // namespace kext::simtool

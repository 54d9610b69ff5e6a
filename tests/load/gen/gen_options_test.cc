// extender-gen's command line (load/gen/gen_options.cc): values, --bind=false, errors naming the flag,
// and the docs table.
#include "load/gen/gen_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "tests/support/command_line.h"
#include "tests/support/doc_flags.h"

namespace kext::gen {
namespace gen_options_test {
namespace {

GenCommand parse(std::vector<std::string> args) {
  return testing::parse_command_line("extender-gen", std::move(args), parse_gen_options);
}

std::string error_of(std::vector<std::string> args) {
  return testing::command_line_error([&] { parse(std::move(args)); });
}

TEST(GenOptions, ValuesAndDefaults) {
  GenCommand c = parse({"--out", "d", "--nodes=7", "--pods-per-node", "3", "--seed", "9", "--cycles=4",
                        "--preempt-every", "0", "--nodes-per-request", "5", "--bind", "--mode=names",
                        "--node-names", "cloud"});
  EXPECT_EQ(c.out_dir, "d");
  EXPECT_EQ(c.gen.nodes, 7u);
  EXPECT_EQ(c.gen.pods_per_node, 3u);
  EXPECT_EQ(c.gen.seed, 9u);
  EXPECT_EQ(c.gen.cycles, 4u);
  EXPECT_EQ(c.gen.preempt_every, 0u);
  EXPECT_EQ(c.gen.nodes_per_request, 5u);
  EXPECT_TRUE(c.gen.bind);
  EXPECT_TRUE(c.gen.names);
  EXPECT_FALSE(c.gen.full);
  EXPECT_TRUE(c.gen.cloud_names);
  const GenOptions d;
  GenCommand plain = parse({"--out", "d"});
  EXPECT_EQ(plain.gen.nodes, d.nodes);
  EXPECT_TRUE(plain.gen.names && plain.gen.full);
  EXPECT_FALSE(plain.gen.cloud_names);
  EXPECT_FALSE(parse({"--out", "d", "--bind=false"}).gen.bind);
  EXPECT_FALSE(parse({"--out", "d", "--mode", "full"}).gen.names);
  EXPECT_TRUE(parse({"--help"}).help);  // --out is not required then
}

TEST(GenOptions, ErrorsNameTheFlag) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{}, "--out is required"},
      {{"--out", ""}, "--out: must not be empty"},
      {{"--out="}, "--out"},
      {{"--out", "d", "--nodes", "0"}, "--nodes"},
      {{"--out", "d", "--pods-per-node", "111"}, "--pods-per-node"},
      {{"--out", "d", "--mode", "some"}, "--mode: expected names, full or both, got \"some\""},
      {{"--out", "d", "--bind=perhaps"}, "--bind"},
      {{"--out", "d", "--node-names", "long"}, "--node-names: expected short or cloud, got \"long\""},
      {{"--out", "d", "--bogus"}, "unknown flag \"--bogus\""},
  };
  for (const auto& [args, want] : cases) {
    EXPECT_NE(error_of(args).find(want), std::string::npos) << want << ": " << error_of(args);
  }
}

TEST(GenOptions, HelpAndTheReadmeListEveryFlag) {
  EXPECT_NE(gen_usage().find("--mode M"), std::string::npos) << gen_usage();
  const std::vector<std::string> names = gen_flag_names();
  EXPECT_EQ(names.size(), 10u);
  testing::expect_documents_exactly(names, "docs/load-testing.md", "**`extender-gen`**",
                                    "Each cycle starts where the previous one stopped");
}

}  // namespace
}  // namespace gen_options_test
}  // namespace kext::gen

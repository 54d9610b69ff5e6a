// extender-load's command line: the URL as kube-scheduler reads a urlPrefix, and flag errors.
#include "load/load_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "tests/support/command_line.h"
#include "tests/support/doc_flags.h"

namespace kext::load {
namespace load_options_test {
namespace {

LoadOptions parse(std::vector<std::string> args) {
  return testing::parse_command_line("extender-load", std::move(args), parse_load_options);
}

TEST(LoadOptions, UrlLikeAUrlPrefix) {
  Target t = parse_target("http://127.0.0.1:8888/scheduler//");
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, 8888);
  EXPECT_EQ(t.prefix, "/scheduler");  // trailing slashes trimmed, as kube-scheduler does
  t = parse_target("http://[::1]:9000");
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.port, 9000);
  EXPECT_EQ(t.prefix, "");
  EXPECT_EQ(parse_target("http://example").port, 80);
  for (const char* bad :
       {"https://x:1", "x:1", "http://:80", "http://h:0", "http://h:99999", "http://h:8a"}) {
    EXPECT_THROW(parse_target(bad), std::invalid_argument) << bad;
  }
}

TEST(LoadOptions, FlagsAndDefaults) {
  LoadOptions o = parse({"--url", "http://h:1", "--verb", "filter,prioritize", "--verb=preempt", "-c", "4",
                         "--count", "10", "--check", "--quiet", "dir"});
  EXPECT_EQ(o.input, "dir");
  EXPECT_EQ(o.read.verbs, (std::vector<std::string>{"filter", "prioritize", "preempt"}));
  EXPECT_EQ(o.replay.connections, 4u);
  EXPECT_EQ(o.replay.count, 10u);
  EXPECT_TRUE(o.replay.check);
  EXPECT_TRUE(o.read.keep_replies);
  EXPECT_FALSE(o.replay.progress);
  EXPECT_EQ(o.replay.timeout_s, 5);
  EXPECT_FALSE(parse({"--url", "http://h:1", "dir"}).read.keep_replies);  // replies only kept for --check
  LoadOptions e =
      parse({"--url", "http://h:1", "--expect-error", "bind:HTTP 409: ", "--expect-error=bind:a:b", "d"});
  ASSERT_EQ(e.replay.expected_errors.size(), 2u);
  EXPECT_EQ(e.replay.expected_errors[0].verb, "bind");
  EXPECT_EQ(e.replay.expected_errors[0].text, "HTTP 409: ");
  EXPECT_EQ(e.replay.expected_errors[1].text, "a:b");
  // One value per occurrence: the input after a repeatable flag is still the input.
  EXPECT_EQ(parse({"--url", "http://h:1", "--verb", "bind", "d"}).input, "d");
  EXPECT_EQ(parse({"--url", "http://h:1", "--expect-error", "bind:x", "d"}).input, "d");
  EXPECT_EQ(parse({"--url=http://h:1", "--timeout", "1", "--timeout=2.5", "d"}).replay.timeout_s, 2.5);
}

TEST(LoadOptions, ErrorsNameTheFlag) {
  auto message = [](std::vector<std::string> args) {
    return testing::command_line_error([&] { parse(std::move(args)); });
  };
  EXPECT_EQ(message({"dir"}), "--url is required");
  EXPECT_EQ(message({"--url", "http://h:1"}), "missing the recording or fixture directory");
  EXPECT_NE(message({"--url", "http://h:1", "--rate", "-3", "d"}).find("--rate"), std::string::npos);
  EXPECT_NE(message({"--url", "http://h:1", "--connections", "0", "d"}).find("--connections"),
            std::string::npos);
  EXPECT_EQ(message({"--url", "http://h:1", "--bogus", "d"}), "unknown flag \"--bogus\"");
  EXPECT_EQ(message({"--url", "ftp://h:1", "d"}),
            "--url: expected http://host:port[/prefix], got \"ftp://h:1\"");
  EXPECT_NE(message({"--url", "http://h:1", "--check=maybe", "d"}).find("--check"), std::string::npos);
  EXPECT_NE(message({"--url", "http://h:1", "--timeout", "0", "d"}).find("--timeout: expected a positive"),
            std::string::npos);
  EXPECT_NE(message({"--url", "http://h:1", "a", "b"}).find("one input"), std::string::npos);
  for (const char* bad : {"bind", ":text", "bind:"}) {
    EXPECT_NE(message({"--url", "http://h:1", "--expect-error", bad, "d"}).find("--expect-error"),
              std::string::npos)
        << bad;
  }
}

TEST(LoadOptions, BooleanFlagsTakeTheirValueAfterEqualsOrAsTheNextWord) {
  struct Case {
    std::vector<std::string> args;
    bool check, quiet, json;
  };
  const Case cases[] = {
      {{}, false, false, false},
      {{"--check"}, true, false, false},
      {{"--check=true"}, true, false, false},
      {{"--check=false"}, false, false, false},  // was: --check on
      {{"--check", "--check=false"}, false, false, false},
      {{"--check", "false"}, false, false, false},  // the next argument's boolean word is the value
      {{"--check", "true", "--json", "False"}, true, false, false},
      {{"-q", "--json"}, false, true, true},
      {{"--quiet=false", "--json=false"}, false, false, false},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--url", "http://h:1"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back("dir");
    LoadOptions o = parse(args);
    EXPECT_EQ(o.replay.check, c.check) << args.size();
    EXPECT_EQ(o.read.keep_replies, c.check);  // the replies are kept only to be checked
    EXPECT_EQ(o.quiet, c.quiet);
    EXPECT_EQ(o.replay.progress, !c.quiet);
    EXPECT_EQ(o.json, c.json);
  }
  // Another word after a boolean flag is the input directory, not its value.
  EXPECT_EQ(parse({"--url", "http://h:1", "--check", "no"}).input, "no");
}

TEST(LoadOptions, HelpAndTheReadmeListEveryFlag) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);  // --url and the input are not required then
  const std::string help = load_usage();
  EXPECT_NE(help.find("--expect-error VERB:TEXT"), std::string::npos) << help;
  EXPECT_NE(help.find("exit status: 0 ok"), std::string::npos) << help;
  const std::vector<std::string> names = load_flag_names();
  EXPECT_GT(names.size(), 10u);
  testing::expect_documents_exactly(names, "docs/load-testing.md", "**`extender-load`**",
                                    "It prints per verb");
}

}  // namespace
}  // namespace load_options_test
}  // namespace kext::load

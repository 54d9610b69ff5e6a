// extender-load's command line: the URL as kube-scheduler reads a urlPrefix, and flag errors.
#include "tools/load/load_options.h"

#include <gtest/gtest.h>

#include <vector>

namespace kext::load {
namespace {

LoadOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "extender-load");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_load_options(static_cast<int>(argv.size()), argv.data());
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
}

TEST(LoadOptions, ErrorsNameTheFlag) {
  auto message = [](std::vector<std::string> args) {
    try {
      parse(std::move(args));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({"dir"}), "--url: required");
  EXPECT_EQ(message({"--url", "http://h:1"}), "missing the recording or fixture directory");
  EXPECT_NE(message({"--url", "http://h:1", "--rate", "-3", "d"}).find("--rate"), std::string::npos);
  EXPECT_NE(message({"--url", "http://h:1", "--connections", "0", "d"}).find("--connections"),
            std::string::npos);
  EXPECT_NE(message({"--url", "http://h:1", "--bogus", "d"}).find("--bogus"), std::string::npos);
  EXPECT_NE(message({"--url", "http://h:1", "a", "b"}).find("one input"), std::string::npos);
  for (const char* bad : {"bind", ":text", "bind:"}) {
    EXPECT_NE(message({"--url", "http://h:1", "--expect-error", bad, "d"}).find("--expect-error"),
              std::string::npos)
        << bad;
  }
}

}  // namespace
}  // namespace kext::load

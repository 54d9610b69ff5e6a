// extender-load against the real server: the fixtures replay with the right counts, a recording made by
// --record-dir reproduces the requests byte for byte, and --check passes on it and catches a change.
#include "load/replay.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "common/record_format.h"
#include "load/exchanges.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_server.h"
#include "tests/support/wait.h"

namespace kext::testing {
namespace replay_test {
namespace {

namespace fs = std::filesystem;

load::ReplayOptions options_for(const TestServer& server) {
  load::ReplayOptions o;
  o.target.host = "127.0.0.1";
  o.target.port = server.port();
  return o;
}

// The cache/ fixtures without bind: filter 0001 0019 0022 0029, prioritize 0002, preempt 0028.
TEST(Replay, FixtureRequestsAreAllSentOnce) {
  for (const char* mode : {"cache", "default"}) {
    SCOPED_TRACE(mode);
    auto exchanges = load::read_exchanges(fixture_path(mode));
    ASSERT_EQ(exchanges.size(), 6u);
    EXPECT_EQ(exchanges.front().record.verb, "filter");
    EXPECT_EQ(exchanges.front().record.content_type, "application/json");
    EXPECT_EQ(exchanges.front().record.body,
              read_file(fixture_path(std::string(mode) + "/0001-filter--low-1-first.json")));
    TestServer server(fixture_cluster());
    auto r = load::replay(exchanges, options_for(server));
    EXPECT_EQ(r.requests, 6u);
    EXPECT_EQ(r.verbs["filter"].requests, 4u);
    EXPECT_EQ(r.verbs["prioritize"].requests, 1u);
    EXPECT_EQ(r.verbs["preempt"].requests, 1u);
    EXPECT_EQ(r.verbs["filter"].latency_us.size(), 4u);
    EXPECT_EQ(r.errors.total(), 0u);
    EXPECT_GT(r.bytes_sent, 10000u);
    EXPECT_GT(r.bytes_received, 0u);
  }
}

TEST(Replay, CountCyclesThroughTheRecordingOverSeveralConnections) {
  TestServer server(fixture_cluster());
  auto exchanges = load::read_exchanges(fixture_path("cache"), {{"filter"}, false});
  ASSERT_EQ(exchanges.size(), 4u);
  auto o = options_for(server);
  o.connections = 3;
  o.count = 25;
  auto r = load::replay(exchanges, o);
  EXPECT_EQ(r.requests, 25u);
  EXPECT_EQ(r.verbs.size(), 1u);
  EXPECT_EQ(r.verbs["filter"].latency_us.size(), 25u);
  EXPECT_EQ(r.errors.total(), 0u);
}

TEST(Replay, OpenLoopKeepsToTheSchedule) {
  TestServer server(fixture_cluster());
  auto exchanges = load::read_exchanges(fixture_path("cache"), {{"prioritize"}, false});
  auto o = options_for(server);
  o.rate = 200;
  o.count = 10;
  auto r = load::replay(exchanges, o);
  EXPECT_EQ(r.requests, 10u);
  EXPECT_GE(r.elapsed_s, 9 / 200.0);  // the tenth request is scheduled nine intervals in
  EXPECT_EQ(r.errors.total(), 0u);
}

TEST(Replay, ErrorsAreCountedByKind) {
  std::vector<load::Exchange> exchanges(2);
  exchanges[0].record.verb = "filter";
  exchanges[0].record.body = "{\"Pod\":";  // malformed: 400
  exchanges[0].record.content_type = "application/json";
  exchanges[1].record.verb = "filter";
  exchanges[1].record.body = "{}";
  exchanges[1].record.content_type = "text/plain";  // 415
  int port = 0;
  {
    TestServer server(fixture_cluster());
    port = server.port();
    auto r = load::replay(exchanges, options_for(server));
    EXPECT_EQ(r.errors.http_status[400], 1u);
    EXPECT_EQ(r.errors.http_status[415], 1u);
    EXPECT_EQ(r.errors.total(), 2u);
  }
  load::ReplayOptions o;
  o.target.host = "127.0.0.1";
  o.target.port = port;  // the server is gone: nothing listens there now
  o.timeout_s = 1;
  auto r = load::replay(exchanges, o);
  EXPECT_EQ(r.errors.connect, 2u);
  EXPECT_TRUE(r.verbs["filter"].latency_us.empty());
}

// --expect-error: a 200 whose Error matches VERB and TEXT is counted apart; any other Error body or status
// is an error, listed with its text; errors are also counted per verb.
TEST(Replay, ExpectedErrorsAreCountedApartAndOthersListed) {
  httplib::Server fake;
  fake.Post("/bind", [](const httplib::Request& req, httplib::Response& res) {
    const bool conflict = req.body.find("taken") != std::string::npos;
    res.set_content(conflict
                        ? R"({"Error":"binding pod default/taken to node n: HTTP 409: already assigned"})"
                        : R"({"Error":"binding pod default/p to node n: Write"})",
                    "application/json");
  });
  fake.Post("/filter", [](const httplib::Request&, httplib::Response& res) {
    res.status = 400;
    res.set_content(R"({"Error":"HTTP 409 in a filter"})", "application/json");
  });
  const int port = fake.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { fake.listen_after_bind(); });
  EXPECT_TRUE(wait_until([&] { return fake.is_running(); }));
  std::vector<load::Exchange> exchanges(4);
  for (auto& e : exchanges) {
    e.record.verb = "bind";
    e.record.content_type = "application/json";
    e.record.body = R"({"PodName":"taken"})";
  }
  exchanges[2].record.body = R"({"PodName":"p"})";
  exchanges[3].record.verb = "filter";
  load::ReplayOptions o;
  o.target.host = "127.0.0.1";
  o.target.port = port;
  o.expected_errors = {{"filter", "HTTP 409"}, {"bind", "HTTP 409: "}};
  auto r = load::replay(exchanges, o);
  fake.stop();
  serving.join();
  EXPECT_EQ(r.expected, (std::vector<uint64_t>{0, 2}));
  EXPECT_EQ(r.errors.error_body, 1u);
  EXPECT_EQ(r.errors.http_status[400], 1u);  // a non-200 status is never expected
  EXPECT_EQ(r.errors.total(), 2u);
  EXPECT_EQ(r.verbs["bind"].errors, 1u);
  EXPECT_EQ(r.verbs["filter"].errors, 1u);
  ASSERT_EQ(r.first_errors.size(), 2u);
  std::sort(r.first_errors.begin(), r.first_errors.end());
  EXPECT_EQ(r.first_errors[0], "bind: binding pod default/p to node n: Write");
  EXPECT_EQ(r.first_errors[1].rfind("filter: HTTP 400 ", 0), 0u) << r.first_errors[1];
}

// A peer that accepts connections (the kernel completes them from the backlog) but never answers.
TEST(Replay, ASilentServerIsATimeout) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 8), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::vector<load::Exchange> exchanges(1);
  exchanges[0].record.verb = "filter";
  exchanges[0].record.body = "{}";
  load::ReplayOptions o;
  o.target.host = "127.0.0.1";
  o.target.port = ntohs(addr.sin_port);
  o.timeout_s = 0.2;
  auto r = load::replay(exchanges, o);
  ::close(fd);
  EXPECT_EQ(r.errors.timeout, 1u);
  EXPECT_EQ(r.errors.total(), 1u);
  ASSERT_EQ(r.first_errors.size(), 1u);
  EXPECT_EQ(r.first_errors[0].rfind("filter: timeout after ", 0), 0u) << r.first_errors[0];
}

// The recording is complete once the server (and its recorder) is gone.
void record_fixtures(const std::string& mode, const TempDir& dir) {
  ServerConfig config;
  config.record_dir = dir.str();
  TestServer server(fixture_cluster(), std::string(default_policy_json()), config);
  auto r = load::replay(load::read_exchanges(fixture_path(mode)), options_for(server));
  EXPECT_EQ(r.errors.total(), 0u);
}

TEST(RecordReplay, TheRecordingHoldsTheRequestBodiesByteForByte) {
  for (const char* mode : {"cache", "default"}) {
    SCOPED_TRACE(mode);
    TempDir dir(std::string("record-") + mode);
    record_fixtures(mode, dir);
    auto recorded = load::read_exchanges(dir.str());
    auto original = load::read_exchanges(fixture_path(mode));
    ASSERT_EQ(recorded.size(), original.size());
    for (size_t i = 0; i < recorded.size(); ++i) {
      EXPECT_EQ(recorded[i].record.verb, original[i].record.verb);
      EXPECT_EQ(recorded[i].record.body, original[i].record.body) << i;  // byte for byte
      EXPECT_EQ(recorded[i].record.content_type, "application/json");
      EXPECT_EQ(recorded[i].record.content_length, std::to_string(original[i].record.body.size()));
      EXPECT_EQ(recorded[i].record.status, 200);
      EXPECT_EQ(recorded[i].record.seq, i + 1);
    }
  }
}

TEST(RecordReplay, CheckPassesOnTheRecordingAndFindsAnInjectedDifference) {
  TempDir dir("check");
  record_fixtures("cache", dir);
  TestServer server(fixture_cluster());
  auto o = options_for(server);
  o.check = true;
  auto exchanges = load::read_exchanges(dir.str());
  auto r = load::replay(exchanges, o);
  EXPECT_EQ(r.checked, 6u);
  EXPECT_EQ(r.differences, 0u) << (r.first_differences.empty() ? "" : r.first_differences[0]);

  // The first filter reply rejects node-a for "Insufficient cpu"; pretend it was recorded otherwise.
  const std::string file = (dir.path() / record_file_name(1)).string();
  std::string text = slurp(file);
  const size_t at = text.find("Insufficient cpu");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 16, "Insufficient xyz");
  spit(file, text);
  r = load::replay(load::read_exchanges(dir.str()), o);
  EXPECT_EQ(r.checked, 6u);
  EXPECT_EQ(r.differences, 1u);
  ASSERT_EQ(r.first_differences.size(), 1u);
  EXPECT_NE(r.first_differences[0].find("Insufficient xyz"), std::string::npos) << r.first_differences[0];
  EXPECT_NE(r.first_differences[0].find("$[\"FailedNodes\"]"), std::string::npos) << r.first_differences[0];
}

// The fixture layout's .response.json are what a trivial recording extender said (README of the
// fixtures), so --check reports them; with this server's replies in their place it passes.
TEST(RecordReplay, CheckWorksOnTheFixtureLayout) {
  TempDir rec("fixture-rec");
  record_fixtures("default", rec);
  auto ours = load::read_exchanges(rec.str());
  TempDir copy("fixture-copy");
  for (const auto& e : fs::directory_iterator(fixture_path("default"))) {
    fs::copy_file(e.path(), copy.path() / e.path().filename());
  }
  TestServer server(fixture_cluster());
  auto o = options_for(server);
  o.check = true;
  auto r = load::replay(load::read_exchanges(copy.str()), o);
  EXPECT_EQ(r.checked, 6u);
  EXPECT_GT(r.differences, 0u);

  auto fixtures = load::read_exchanges(copy.str());
  ASSERT_EQ(fixtures.size(), ours.size());
  for (size_t i = 0; i < fixtures.size(); ++i) {
    fs::path reply = fs::path(fixtures[i].source).replace_extension(".response.json");
    spit(reply, ours[i].record.reply);
  }
  r = load::replay(load::read_exchanges(copy.str()), o);
  EXPECT_EQ(r.checked, 6u);
  EXPECT_EQ(r.differences, 0u) << (r.first_differences.empty() ? "" : r.first_differences[0]);

  spit(fs::path(fixtures[2].source).replace_extension(".response.json"), "{\"Error\":\"changed\"}");
  r = load::replay(load::read_exchanges(copy.str()), o);
  EXPECT_EQ(r.differences, 1u);
}

}  // namespace
}  // namespace replay_test
}  // namespace kext::testing

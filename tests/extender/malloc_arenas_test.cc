// The process's malloc arenas (extender/malloc_arenas.h): the decision log's turnover, served by one
// worker after another, must not leave its bytes stranded in one arena per worker.
#include "extender/malloc_arenas.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/support/extender_process.h"
#include "tests/support/kube_objects.h"
#include "tests/support/raw_client.h"
#include "tests/support/temp_dir.h"

namespace kext::testing {
namespace malloc_arenas_test {
namespace {

TEST(MallocArenas, TheEnvironmentWins) {
  ASSERT_EQ(setenv("MALLOC_ARENA_MAX", "3", 1), 0);
  EXPECT_EQ(limit_malloc_arenas(), 3);
  ASSERT_EQ(unsetenv("MALLOC_ARENA_MAX"), 0);
  const int cap = limit_malloc_arenas();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // ASan's mallopt refuses (its allocator has no arenas); TSan's passes the call on to glibc.
  EXPECT_TRUE(cap == 0 || cap == kMallocArenas) << cap;
#else
  EXPECT_EQ(cap, kMallocArenas);
#endif
}

// Sixteen rounds, each on a fresh connection (so on another worker) and long enough to replace every
// decision the log holds. With glibc's arena per worker, RSS grew by about the log's size per round;
// capped, it stays within a few times the log.
TEST(MallocArenas, DecisionLogTurnoverOnFreshConnectionsKeepsRssBounded) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc's arenas";
#endif
  constexpr long kLogBytes = 2 << 20;
  constexpr int kNodes = 400;
  TempDir dir("malloc-arenas");
  std::vector<std::string> names;
  std::string list = R"({"kind":"List","apiVersion":"v1","items":[)";
  for (int i = 0; i < kNodes; ++i) {
    names.push_back("ip-10-0-" + std::to_string(i / 256) + "-" + std::to_string(i % 256) +
                    ".eu-west-1.compute.internal");
    list += (i ? "," : "") + node_json(names.back());
  }
  list += "]}";
  const std::string snapshot = (dir.path() / "cluster.json").string();
  std::ofstream(snapshot) << list;
  std::string body = R"({"Pod":)" + pod_json("default", "pending", "") + R"(,"NodeNames":[)";
  for (int i = 0; i < kNodes; ++i) body += (i ? ",\"" : "\"") + names[static_cast<size_t>(i)] + "\"";
  body += "]}";
  const std::string request = post_request("/prioritize", body);

  ExtenderProcess extender({"--snapshot", snapshot, "--decision-log-max-bytes", std::to_string(kLogBytes)});
  ASSERT_GT(extender.port(), 0) << extender.log();
  // 200 requests carry more decisions than the log keeps.
  auto round = [&] {
    RawConnection c(extender.port());
    for (int k = 0; k < 200; ++k) {
      ASSERT_TRUE(c.send(request));
      ASSERT_EQ(status_of(c.read_response()), 200);
    }
  };
  for (int r = 0; r < 2; ++r) round();  // the log full, each arena in use warmed
  const long before = rss_and_threads(extender.pid()).first;
  for (int r = 0; r < 14; ++r) round();
  const long after = rss_and_threads(extender.pid()).first;
  EXPECT_LT(after - before, 3 * kLogBytes / 1024) << "RSS KiB " << before << " -> " << after;
  std::cerr << "[ info ] 14 log turnovers on fresh connections: RSS " << before << " -> " << after
            << " KiB\n";
}

}  // namespace
}  // namespace malloc_arenas_test
}  // namespace kext::testing

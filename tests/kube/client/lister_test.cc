// kube::list_all (kube/client/lister.h): every page of a list, started over when the continue token
// expires mid-list, and failures reported, not thrown.
#include "kube/client/lister.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/fake_apiserver.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"

namespace kext::testing {
namespace lister_test {
namespace {

struct Seen {
  std::vector<std::string> names;  // the items since the last begin
  int begins = 0;
  int restarts = 0;
  int pages = 0;
};

kube::ListHooks hooks_into(Seen& seen) {
  kube::ListHooks h;
  h.begin = [&seen](bool restart) {
    ++seen.begins;
    seen.restarts += restart ? 1 : 0;
    seen.names.clear();
  };
  h.item = [&seen](const json::Value& item) { seen.names.push_back(item["metadata"]["name"].GetString()); };
  h.page = [&seen] { ++seen.pages; };
  return h;
}

TEST(Lister, EveryPageInOrder) {
  FakeApiServer api;
  for (const char* n : {"p1", "p2", "p3", "p4", "p5"}) api.put("pods", pod_json("ns", n, ""));
  auto client = client_for(api);
  Seen seen;
  const kube::ListResult r = kube::list_all(*client, {"/api/v1/pods", 2}, hooks_into(seen));
  ASSERT_TRUE(r.complete) << r.error;
  EXPECT_EQ(seen.names, (std::vector<std::string>{"p1", "p2", "p3", "p4", "p5"}));
  EXPECT_EQ(seen.pages, 3);
  EXPECT_EQ(seen.begins, 1);
  EXPECT_EQ(r.resource_version, std::to_string(api.resource_version()));
}

// A write and a compaction between two pages: the continue token answers 410, the list starts over
// and ends with the new state (client-go's pager falls back to a full list the same way).
TEST(Lister, ExpiredContinueTokenStartsOver) {
  FakeApiServer api;
  for (const char* n : {"p1", "p2", "p3"}) api.put("pods", pod_json("ns", n, ""));
  auto client = client_for(api);
  Seen seen;
  kube::ListHooks h = hooks_into(seen);
  h.page = [&] {
    if (++seen.pages == 1) {
      api.put("pods", pod_json("ns", "p4", ""));
      api.compact();
    }
  };
  const kube::ListResult r = kube::list_all(*client, {"/api/v1/pods", 2}, h);
  ASSERT_TRUE(r.complete) << r.error;
  EXPECT_EQ(seen.restarts, 1);
  EXPECT_EQ(seen.names, (std::vector<std::string>{"p1", "p2", "p3", "p4"}));

  // Expiring on every page: after max_restarts, the 410 is the answer.
  Seen again;
  kube::ListHooks always = hooks_into(again);
  int n = 10;
  always.page = [&] {
    api.put("pods", pod_json("ns", "q" + std::to_string(++n), ""));
    api.compact();
  };
  const kube::ListResult gone =
      kube::list_all(*client, {"/api/v1/pods", 2, std::chrono::seconds(10), 2}, always);
  EXPECT_FALSE(gone.complete);
  EXPECT_EQ(again.restarts, 2);
  EXPECT_EQ(gone.status, 410);
  EXPECT_EQ(gone.error.rfind("list /api/v1/pods: HTTP 410", 0), 0u) << gone.error;
}

TEST(Lister, FailuresAreInTheResult) {
  FakeApiServer api;
  auto client = client_for(api);
  Seen seen;
  api.fail_requests(1, 403);
  kube::ListResult r = kube::list_all(*client, {"/api/v1/nodes"}, hooks_into(seen));
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.error.rfind("list /api/v1/nodes: HTTP 403", 0), 0u) << r.error;

  // Cut short by keep_going: not complete, no status.
  kube::ListHooks stop = hooks_into(seen);
  stop.keep_going = [] { return false; };
  r = kube::list_all(*client, {"/api/v1/nodes"}, stop);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.status, 0);
}

TEST(Lister, UrlEscape) {
  EXPECT_EQ(kube::url_escape("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(kube::url_escape("1:2/3+4 5="), "1%3A2%2F3%2B4%205%3D");
}

}  // namespace
}  // namespace lister_test
}  // namespace kext::testing

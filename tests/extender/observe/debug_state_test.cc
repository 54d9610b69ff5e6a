// GET /debug/state: the served cache as dump_state() writes it, so that a driver outside the process
// (bench/soak) can compare it with a from-scratch build of the API's objects.
#include <gtest/gtest.h>

#include "kube/state/state_dump.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace debug_state_test {
namespace {

TEST(DebugState, ServesTheCurrentStateAsDumpStateWritesIt) {
  TestServer server(fixture_cluster());
  auto res = server.client().Get("/debug/state");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(res->body, dump_state(*server.store().current()));
  EXPECT_NE(res->body.find("node node-a "), std::string::npos);

  server.store().publish(state_from_json(R"({"kind":"Node","metadata":{"name":"only"},"status":{}})"));
  res = server.client().Get("/debug/state");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body.rfind("node only ", 0), 0u);
  EXPECT_EQ(res->body.find("node-a"), std::string::npos);
}

}  // namespace
}  // namespace debug_state_test
}  // namespace kext::testing

// /filter over HTTP: a node failing several filters lands in FailedNodes or FailedAndUnresolvableNodes
// with the reason of the filter that runs first under the policy's semantics (current: the default
// profile's order, TaintToleration before NodeAffinity and NodeResourcesFit; v1.16: predicatesOrdering,
// PodToleratesNodeTaints last).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace verbs_filter_order_test {
namespace {

std::string node(const std::string& name, const std::string& zone, const std::string& spec = "") {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{"zone":")" + zone +
         R"("}},"spec":{)" + spec + R"(},"status":{"allocatable":{"cpu":"2","memory":"8Gi","pods":"110"}}})";
}

// 1500m of the node's 2 cpu: the 1-cpu pod below fits only if this pod goes (preemption may help).
std::string filler(const std::string& node) {
  return R"({"kind":"Pod","metadata":{"name":"filler-)" + node + R"(","namespace":"default","uid":"uid-)" +
         node + R"("},"spec":{"nodeName":")" + node +
         R"(","containers":[{"name":"c","resources":{"requests":{"cpu":"1500m"}}}]},"status":{"phase":"Running"}})";
}

constexpr const char* kTaint = R"("taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])";

std::shared_ptr<const ClusterState> cluster() {
  const std::vector<std::string> items = {
      node("fits", "z1"),
      node("tainted-full", "z1", kTaint),
      filler("tainted-full"),
      node("elsewhere-full", "z2"),
      filler("elsewhere-full"),
      node("cordoned-tainted", "z1", std::string(R"("unschedulable":true,)") + kTaint),
      node("tainted-elsewhere", "z2", kTaint),
  };
  std::string out = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return state_from_json(out + "]}");
}

const std::string kPod =
    R"({"metadata":{"name":"p","namespace":"default","uid":"uid-p"},"spec":{"nodeSelector":{"zone":"z1"},)"
    R"("containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})";

const std::vector<std::string> kNodes = {"fits", "tainted-full", "elsewhere-full", "cordoned-tainted",
                                         "tainted-elsewhere"};

using Reasons = std::map<std::string, std::string>;

// A reply map as name -> reason; absent or null reads as empty.
Reasons members(const rapidjson::Document& reply, const char* key) {
  Reasons out;
  const auto it = reply.FindMember(key);
  if (it == reply.MemberEnd() || !it->value.IsObject()) return out;
  for (const auto& m : it->value.GetObject()) out[m.name.GetString()] = m.value.GetString();
  return out;
}

const std::string kTaintReason = "node(s) had untolerated taint {dedicated: gpu}";
const std::string kSelector = "node(s) didn't match Pod's node affinity/selector";

struct Case {
  std::string name;
  std::string policy;  // the embedded default's predicates and priorities, with these settings
  Reasons failed;
  Reasons unresolvable;
};

TEST(FilterOrderOverHttp, FirstFailingFilterFollowsTheSemantics) {
  const std::vector<Case> cases = {
      {"current",
       R"({"preemption":{"semantics":"current"}})",
       {},
       {{"tainted-full", kTaintReason},
        {"elsewhere-full", kSelector},
        {"cordoned-tainted", "node(s) were unschedulable"},
        {"tainted-elsewhere", kTaintReason}}},
      {"v1.16",
       R"({"preemption":{"semantics":"v1.16"}})",
       {{"tainted-full", "Insufficient cpu"}},
       {{"elsewhere-full", kSelector},
        {"cordoned-tainted", "node(s) were unschedulable"},
        {"tainted-elsewhere", kSelector}}},
      {"current, alwaysCheckAllPredicates",
       R"({"preemption":{"semantics":"current"},"alwaysCheckAllPredicates":true})",
       {},
       {{"tainted-full", kTaintReason + ", Insufficient cpu"},
        {"elsewhere-full", kSelector + ", Insufficient cpu"},
        {"cordoned-tainted", "node(s) were unschedulable, " + kTaintReason},
        {"tainted-elsewhere", kTaintReason + ", " + kSelector}}},
      {"v1.16, alwaysCheckAllPredicates",
       R"({"preemption":{"semantics":"v1.16"},"alwaysCheckAllPredicates":true})",
       {},
       {{"tainted-full", "Insufficient cpu, " + kTaintReason},
        {"elsewhere-full", kSelector + ", Insufficient cpu"},
        {"cordoned-tainted", "node(s) were unschedulable, " + kTaintReason},
        {"tainted-elsewhere", kSelector + ", " + kTaintReason}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TestServer server(cluster(), c.policy);
    auto res = server.post("/filter", names_request(kPod, kNodes));
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    auto r = parse(res->body);
    ASSERT_TRUE(r.IsObject() && r.HasMember("NodeNames") && r["NodeNames"].IsArray()) << res->body;
    ASSERT_EQ(r["NodeNames"].Size(), 1u) << res->body;
    EXPECT_STREQ(r["NodeNames"][0].GetString(), "fits");
    EXPECT_EQ(members(r, "FailedNodes"), c.failed) << res->body;
    EXPECT_EQ(members(r, "FailedAndUnresolvableNodes"), c.unresolvable) << res->body;
  }
}

}  // namespace
}  // namespace verbs_filter_order_test
}  // namespace kext::testing

#include "sim/follow/divergence.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace kext::simtool::follow {
namespace divergence_test {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

PodFacts pod(const std::string& uid, int64_t milli_cpu = 500, int64_t memory = kGi,
             const std::string& owner = "ReplicaSet/web-1") {
  return PodFacts{uid, "default/" + uid, owner, milli_cpu, memory};
}

std::vector<NodeFacts> nodes(size_t n) {
  std::vector<NodeFacts> out;
  for (size_t i = 1; i <= n; ++i) out.push_back(NodeFacts{"n" + std::to_string(i), 4000, 16 * kGi, 110});
  return out;
}

// One call into a Divergence of one policy, on pod "p" (or the uid given).
struct Step {
  enum Kind { kPending, kRunning, kProduction, kSimulated, kPreempted, kDeleted } kind;
  std::string node = "";
  std::string uid = "p";
};

struct AgreementCase {
  std::string name;
  std::vector<Step> steps;
  uint64_t compared, agreed, pending, preempted, production_pending;
};
// GoogleTest prints a case by its name rather than its bytes.
void PrintTo(const AgreementCase& c, std::ostream* os) { *os << c.name; }

class DivergenceAgreement : public ::testing::TestWithParam<AgreementCase> {};

TEST_P(DivergenceAgreement, CountsOncePerPodAtTheLaterBind) {
  const AgreementCase& c = GetParam();
  Divergence d({"policy"});
  d.set_nodes(nodes(3));
  for (const Step& s : c.steps) {
    switch (s.kind) {
      case Step::kPending:
        d.pod_pending(pod(s.uid));
        break;
      case Step::kRunning:
        d.pod_running(pod(s.uid), s.node);
        break;
      case Step::kProduction:
        d.production_bound(s.uid, s.node);
        break;
      case Step::kSimulated:
        d.simulated_bound(0, s.uid, s.node);
        break;
      case Step::kPreempted:
        d.simulated_preempted(0, s.uid);
        break;
      case Step::kDeleted:
        d.pod_deleted(s.uid);
        break;
    }
  }
  const Snapshot snap = d.snapshot();
  ASSERT_EQ(snap.policies.size(), 1u);
  const PolicyView& v = snap.policies[0];
  EXPECT_EQ(v.compared, c.compared);
  // Where each side put each pod is in the rows; the trajectory's counts say nothing of agreement.
  uint64_t same = 0;
  bool preempted = false;
  for (const PodRow& r : snap.recent) {
    same += !r.production.empty() && r.policies[0] == r.production;
    preempted |= r.policies[0] == kPreempted;
  }
  if (!preempted) {
    EXPECT_EQ(same, c.agreed);
  }
  EXPECT_EQ(v.pending, c.pending);
  EXPECT_EQ(v.preempted, c.preempted);
  EXPECT_EQ(snap.production_pending, c.production_pending);
  EXPECT_EQ(v.decisions, 0u) << "the trajectory is not a decision";
  EXPECT_DOUBLE_EQ(v.decision_agreement_percent, 100.0);
}

using S = Step;
INSTANTIATE_TEST_SUITE_P(
    Cases, DivergenceAgreement,
    ::testing::Values(
        AgreementCase{
            "SameNode", {{S::kPending}, {S::kProduction, "n1"}, {S::kSimulated, "n1"}}, 1, 1, 0, 0, 0},
        AgreementCase{
            "SimulatedFirst", {{S::kPending}, {S::kSimulated, "n1"}, {S::kProduction, "n1"}}, 1, 1, 0, 0, 0},
        AgreementCase{
            "DifferentNode", {{S::kPending}, {S::kProduction, "n1"}, {S::kSimulated, "n2"}}, 1, 0, 0, 0, 0},
        AgreementCase{"PolicyPending", {{S::kPending}, {S::kProduction, "n1"}}, 0, 0, 1, 0, 0},
        AgreementCase{"ProductionPending", {{S::kPending}, {S::kSimulated, "n1"}}, 0, 0, 0, 0, 1},
        AgreementCase{"BothPending", {{S::kPending}}, 0, 0, 1, 0, 1},
        AgreementCase{"PreemptedBeforeProduction",
                      {{S::kPending}, {S::kSimulated, "n1"}, {S::kPreempted}, {S::kProduction, "n1"}},
                      0,
                      0,
                      0,
                      1,
                      0},
        AgreementCase{
            "PreemptedWhilePending", {{S::kPending}, {S::kPreempted}, {S::kSimulated, "n1"}}, 0, 0, 0, 1, 1},
        AgreementCase{
            "PreemptedAfterComparison",
            {{S::kPending}, {S::kProduction, "n2"}, {S::kSimulated, "n2"}, {S::kPreempted}, {S::kPreempted}},
            1,
            1,
            0,
            1,
            0},
        AgreementCase{"DeletedBeforeComparison",
                      {{S::kPending}, {S::kProduction, "n1"}, {S::kDeleted}, {S::kSimulated, "n1"}},
                      0,
                      0,
                      0,
                      0,
                      0},
        AgreementCase{"DeletedWhilePending", {{S::kPending}, {S::kDeleted}}, 0, 0, 0, 0, 0},
        AgreementCase{"DeletedAfterComparison",
                      {{S::kPending}, {S::kProduction, "n1"}, {S::kSimulated, "n3"}, {S::kDeleted}},
                      1,
                      0,
                      0,
                      0,
                      0},
        AgreementCase{"BindsRepeatedCountOnce",
                      {{S::kPending},
                       {S::kProduction, "n1"},
                       {S::kSimulated, "n1"},
                       {S::kProduction, "n2"},
                       {S::kSimulated, "n2"},
                       {S::kProduction, "n1"}},
                      1,
                      1,
                      0,
                      0,
                      0},
        AgreementCase{"RunningAtFirstSightIsNotCompared",
                      {{S::kRunning, "n1"}, {S::kProduction, "n1"}, {S::kSimulated, "n1"}, {S::kPending}},
                      0,
                      0,
                      0,
                      0,
                      0},
        AgreementCase{"PendingTwiceIsOnePod", {{S::kPending}, {S::kPending}}, 0, 0, 1, 0, 1},
        AgreementCase{"UnknownUids",
                      {{S::kProduction, "n1", "x"},
                       {S::kSimulated, "n1", "x"},
                       {S::kPreempted, "", "x"},
                       {S::kDeleted, "", "x"},
                       {S::kPending},
                       {S::kProduction, "", "p"},
                       {S::kSimulated, "", "p"}},
                      0,
                      0,
                      1,
                      0,
                      1}),
    [](const ::testing::TestParamInfo<AgreementCase>& info) { return info.param.name; });

TEST(Divergence, TwoPoliciesCountedApart) {
  Divergence d({"a", "b"});
  d.set_nodes(nodes(2));
  for (int i = 0; i < 4; ++i) {
    const std::string uid = "p" + std::to_string(i);
    d.pod_pending(pod(uid));
    d.production_bound(uid, "n1");
    d.simulated_bound(0, uid, "n1");
    d.simulated_bound(1, uid, i % 2 == 0 ? "n1" : "n2");
  }
  const Snapshot s = d.snapshot();
  EXPECT_EQ(s.policies[0].compared, 4u);
  EXPECT_EQ(s.policies[1].compared, 4u);
  EXPECT_EQ(s.policies[0].nodes[0].pods, 4);
  EXPECT_EQ(s.policies[1].nodes[0].pods, 2);
}

// The trajectory's outcome: requested shares, nodes used and fragmentation against the typical pod
// of those seen pending (1500m): two on one node leave 1000m there that no such pod can use.
TEST(Divergence, TrajectoryOutcomeFigures) {
  Divergence d({"pack", "spread"});
  d.set_nodes(nodes(2));
  for (const char* uid : {"a", "b"}) {
    d.pod_pending(pod(uid, 1500, kGi));
    d.production_bound(uid, uid == std::string("a") ? "n1" : "n2");
    d.simulated_bound(0, uid, "n1");
    d.simulated_bound(1, uid, uid == std::string("a") ? "n1" : "n2");
  }
  const Snapshot s = d.snapshot();
  ASSERT_TRUE(s.typical_pod.has_value());
  EXPECT_EQ(s.typical_pod->milli_cpu, 1500);
  const Utilisation pack = utilisation(s.policies[0].nodes, s.typical_pod);
  const Utilisation spread = utilisation(s.policies[1].nodes, s.typical_pod);
  EXPECT_DOUBLE_EQ(pack.cpu_percent, 37.5);
  EXPECT_EQ(pack.nodes_used, 1u);
  EXPECT_EQ(spread.nodes_used, 2u);
  ASSERT_TRUE(pack.cpu_fragmented_percent.has_value());
  EXPECT_DOUBLE_EQ(*pack.cpu_fragmented_percent, 20.0);
  EXPECT_DOUBLE_EQ(*spread.cpu_fragmented_percent, 0.0);
  EXPECT_FALSE(utilisation(s.policies[0].nodes, std::nullopt).cpu_fragmented_percent.has_value());
  std::ostringstream out;
  d.write_jsonl(out);
  EXPECT_NE(out.str().find(R"("nodes_used":1,"cpu_fragmented_percent":20.0)"), std::string::npos)
      << out.str();
}

DecisionVerdict verdict(DecisionVerdict::Kind kind, const std::string& production,
                        const std::string& choice) {
  DecisionVerdict v;
  v.kind = kind;
  v.production_node = production;
  v.choice = choice;
  v.feasible = 3;
  v.rank = kind == DecisionVerdict::Kind::kRejected ? 0 : kind == DecisionVerdict::Kind::kAgreed ? 1 : 2;
  if (kind == DecisionVerdict::Kind::kOutscored) v.terms = {{"NodeResourcesFit", 40}};
  if (kind == DecisionVerdict::Kind::kRejected) v.rejected = {"Insufficient cpu"};
  return v;
}

// Decision agreement counts verdicts per policy; unjudged ones are not decisions; the disagreements
// are kept newest first, at most kDisagreementsKept.
TEST(Divergence, DecisionsCountedPerPolicy) {
  using K = DecisionVerdict::Kind;
  Divergence d({"a", "b"});
  for (int i = 0; i < 4; ++i) d.decision(0, "ns/p" + std::to_string(i), verdict(K::kAgreed, "n1", "n1"));
  d.decision(1, "ns/p0", verdict(K::kAgreed, "n1", "n1"));
  d.decision(1, "ns/p1", verdict(K::kOutscored, "n1", "n2"));
  d.decision(1, "ns/p2", verdict(K::kRejected, "n1", "n2"));
  d.decision(1, "ns/p3", verdict(K::kUnjudged, "gone", ""));
  d.decision(7, "ns/p3", verdict(K::kAgreed, "n1", "n1"));  // no such policy
  const Snapshot s = d.snapshot();
  EXPECT_EQ(s.policies[0].decisions, 4u);
  EXPECT_DOUBLE_EQ(s.policies[0].decision_agreement_percent, 100.0);
  EXPECT_TRUE(s.policies[0].disagreements.empty());
  EXPECT_EQ(s.policies[1].decisions, 3u);
  EXPECT_EQ(s.policies[1].decisions_agreed, 1u);
  EXPECT_EQ(s.policies[1].decisions_rejected, 1u);
  EXPECT_NEAR(s.policies[1].decision_agreement_percent, 100.0 / 3, 1e-9);
  ASSERT_EQ(s.policies[1].disagreements.size(), 2u);
  EXPECT_EQ(s.policies[1].disagreements[0].pod, "ns/p2");
  EXPECT_EQ(s.policies[1].disagreements[1].verdict.terms, (std::vector<TermGap>{{"NodeResourcesFit", 40}}));
  for (size_t i = 0; i < Divergence::kDisagreementsKept + 5; ++i)
    d.decision(0, "ns/q" + std::to_string(i), verdict(K::kOutscored, "n1", "n2"));
  const Snapshot t = d.snapshot();
  EXPECT_EQ(t.policies[0].disagreements.size(), Divergence::kDisagreementsKept);
  EXPECT_EQ(t.policies[0].disagreements.front().pod,
            "ns/q" + std::to_string(Divergence::kDisagreementsKept + 4));
  const std::string html = d.html();
  EXPECT_NE(html.find("b: decision agreement"), std::string::npos);
  EXPECT_NE(html.find("NodeResourcesFit +40"), std::string::npos);
  EXPECT_NE(html.find("Insufficient cpu"), std::string::npos);
}

TEST(Divergence, UnknownCallsNeverThrow) {
  Divergence d({"a"});
  EXPECT_NO_THROW({
    d.production_bound("nope", "n1");
    d.simulated_bound(0, "nope", "n1");
    d.simulated_bound(7, "nope", "n1");
    d.simulated_preempted(0, "nope");
    d.simulated_preempted(9, "nope");
    d.pod_deleted("nope");
    d.pod_pending(PodFacts{});    // no uid
    d.pod_running(pod("r"), "");  // no node
  });
  d.pod_pending(pod("p"));
  d.simulated_bound(5, "p", "n1");  // no such policy
  d.simulated_preempted(5, "p");
  const Snapshot s = d.snapshot();
  EXPECT_EQ(s.policies[0].pending, 1u);
  EXPECT_EQ(s.policies[0].preempted, 0u);
  EXPECT_TRUE(s.recent.empty());
  EXPECT_EQ(d.live_pods(), 1u);
  // A node no set_nodes listed still shows, with no allocatable.
  d.production_bound("p", "elsewhere");
  const Snapshot t = d.snapshot();
  ASSERT_EQ(t.production_nodes.size(), 1u);
  EXPECT_EQ(t.production_nodes[0].name, "elsewhere");
  EXPECT_EQ(t.production_nodes[0].milli_cpu_allocatable, 0);
  EXPECT_EQ(t.production_nodes[0].milli_cpu_requested, 500);
}

const NodeShare& node_of(const std::vector<NodeShare>& nodes, const std::string& name) {
  for (const NodeShare& n : nodes) {
    if (n.name == name) return n;
  }
  static const NodeShare none;
  ADD_FAILURE() << "no node " << name;
  return none;
}

TEST(Divergence, SharesPerSide) {
  Divergence d({"a", "b"});
  d.set_nodes(nodes(3));
  d.pod_running(pod("r", 1000, 2 * kGi), "n1");  // every side
  d.pod_pending(pod("x", 500, kGi));
  d.production_bound("x", "n2");
  d.simulated_bound(0, "x", "n1");
  d.simulated_bound(1, "x", "n3");
  d.pod_pending(pod("y", 250, kGi));  // production pending; a binds it; b preempts it
  d.simulated_bound(0, "y", "n3");
  d.simulated_preempted(1, "r");

  Snapshot s = d.snapshot();
  ASSERT_EQ(s.production_nodes.size(), 3u);
  EXPECT_EQ(s.production_nodes[0].name, "n1");  // node order
  EXPECT_EQ(node_of(s.production_nodes, "n1").milli_cpu_requested, 1000);
  EXPECT_EQ(node_of(s.production_nodes, "n1").memory_requested, 2 * kGi);
  EXPECT_EQ(node_of(s.production_nodes, "n1").milli_cpu_allocatable, 4000);
  EXPECT_EQ(node_of(s.production_nodes, "n2").milli_cpu_requested, 500);
  EXPECT_EQ(node_of(s.production_nodes, "n3").pods, 0);
  EXPECT_EQ(node_of(s.policies[0].nodes, "n1").milli_cpu_requested, 1500);
  EXPECT_EQ(node_of(s.policies[0].nodes, "n1").pods, 2);
  EXPECT_EQ(node_of(s.policies[0].nodes, "n3").milli_cpu_requested, 250);
  EXPECT_EQ(node_of(s.policies[1].nodes, "n1").milli_cpu_requested, 0);  // r preempted
  EXPECT_EQ(node_of(s.policies[1].nodes, "n3").milli_cpu_requested, 500);
  EXPECT_EQ(s.production_pending, 1u);
  EXPECT_EQ(s.policies[0].pending, 0u);
  EXPECT_EQ(s.policies[1].pending, 1u);
  EXPECT_EQ(s.policies[1].preempted, 1u);

  // Deleted: out of every side and every pending count.
  d.pod_deleted("r");
  d.pod_deleted("x");
  d.pod_deleted("y");
  s = d.snapshot();
  for (const NodeShare& n : s.production_nodes) EXPECT_EQ(n.milli_cpu_requested, 0) << n.name;
  for (const PolicyView& p : s.policies) {
    for (const NodeShare& n : p.nodes) {
      EXPECT_EQ(n.milli_cpu_requested, 0) << p.name << " " << n.name;
      EXPECT_EQ(n.memory_requested, 0) << p.name << " " << n.name;
      EXPECT_EQ(n.pods, 0) << p.name << " " << n.name;
    }
    EXPECT_EQ(p.pending, 0u);
  }
  EXPECT_EQ(s.production_pending, 0u);
  EXPECT_EQ(d.live_pods(), 0u);
}

TEST(Divergence, RecentNewestFirstWithPreemptedAndPending) {
  Divergence d({"a", "b"});
  d.pod_pending(pod("first"));
  d.production_bound("first", "n1");
  d.pod_pending(pod("second"));
  d.simulated_bound(1, "second", "n2");
  d.simulated_preempted(1, "second");
  d.pod_pending(pod("never"));  // placed by nobody: no recent row
  const Snapshot s = d.snapshot();
  ASSERT_EQ(s.recent.size(), 2u);
  EXPECT_EQ(s.recent[0].pod, "default/second");
  EXPECT_EQ(s.recent[0].production, "");
  EXPECT_EQ(s.recent[0].policies, (std::vector<std::string>{"", kPreempted}));
  EXPECT_EQ(s.recent[1].pod, "default/first");
  EXPECT_EQ(s.recent[1].owner, "ReplicaSet/web-1");
  EXPECT_EQ(s.recent[1].production, "n1");
  // Placed again elsewhere: back to the front.
  d.simulated_bound(0, "first", "n1");
  EXPECT_EQ(d.snapshot().recent[0].pod, "default/first");
}

TEST(Divergence, RowLimitBoundsWhatIsHeld) {
  constexpr size_t kLimit = 5;
  Divergence d({"a"}, kLimit);
  d.set_nodes(nodes(4));
  for (int i = 0; i < 200; ++i) {
    const std::string uid = "p" + std::to_string(i);
    if (i % 3 == 0) {
      d.pod_running(pod(uid), "n1");
    } else {
      d.pod_pending(pod(uid));
      d.production_bound(uid, "n" + std::to_string(1 + i % 4));
      d.simulated_bound(0, uid, "n2");
    }
    if (i >= 10) d.pod_deleted("p" + std::to_string(i - 10));  // ten live at a time
    ASSERT_LE(d.rows(), d.live_pods() + kLimit) << i;
    ASSERT_LE(d.snapshot().recent.size(), kLimit);
  }
  EXPECT_EQ(d.live_pods(), 10u);
  EXPECT_EQ(d.rows(), 10u + kLimit);
  // The totals are counters: every pod seen pending was compared, deleted ones included.
  const Snapshot s = d.snapshot();
  EXPECT_EQ(s.policies[0].compared, 133u);
  // The deleted rows kept are the newest ones.
  std::ostringstream log;
  d.write_jsonl(log);
  EXPECT_NE(log.str().find("\"default/p188\""), std::string::npos);
  EXPECT_EQ(log.str().find("\"default/p100\""), std::string::npos);
  // A deleted pod, dropped or kept, takes no further calls.
  d.production_bound("p100", "n1");
  d.simulated_bound(0, "p188", "n1");
  EXPECT_EQ(d.snapshot().policies[0].compared, 133u);
}

TEST(Divergence, PrometheusSamples) {
  Divergence d({"a\"b", "c\\d\ne"});
  d.set_nodes({NodeFacts{"n1", 4000, 8 * kGi, 110}, NodeFacts{"n2", 2000, 4 * kGi, 110}});
  d.pod_running(pod("r", 1000, 2 * kGi), "n1");
  for (const char* uid : {"x", "y"}) {
    d.pod_pending(pod(uid, 500, kGi));
    d.production_bound(uid, "n2");
  }
  d.simulated_bound(0, "x", "n2");
  d.simulated_bound(0, "y", "n1");
  d.decision(0, "ns/x", verdict(DecisionVerdict::Kind::kAgreed, "n2", "n2"));
  d.decision(0, "ns/y", verdict(DecisionVerdict::Kind::kRejected, "n2", "n1"));
  d.pod_pending(pod("z"));
  d.simulated_preempted(1, "r");
  d.count_live_event();
  d.count_live_event();
  const std::string text = d.prometheus();
  for (const std::string want : {
           "# TYPE kube_extender_sim_follow_live_events_total counter\n",
           "\nkube_extender_sim_follow_live_events_total 2\n",
           "# HELP kube_extender_sim_follow_decision_agreement_ratio ",
           "# TYPE kube_extender_sim_follow_decision_agreement_ratio gauge\n",
           "\nkube_extender_sim_follow_decision_agreement_ratio{policy=\"a\\\"b\"} 0.5\n",
           "\nkube_extender_sim_follow_decision_agreement_ratio{policy=\"c\\\\d\\ne\"} 1\n",
           "\nkube_extender_sim_follow_decisions_total{policy=\"a\\\"b\",verdict=\"agreed\"} 1\n",
           "\nkube_extender_sim_follow_decisions_total{policy=\"a\\\"b\",verdict=\"rejected\"} 1\n",
           "\nkube_extender_sim_follow_decisions_total{policy=\"a\\\"b\",verdict=\"outscored\"} 0\n",
           "\nkube_extender_sim_follow_preempted_pods_total{policy=\"c\\\\d\\ne\"} 1\n",
           "\nkube_extender_sim_follow_pending_pods{side=\"production\"} 1\n",
           "\nkube_extender_sim_follow_pending_pods{side=\"simulated\",policy=\"a\\\"b\"} 1\n",
           "\nkube_extender_sim_follow_pending_pods{side=\"simulated\",policy=\"c\\\\d\\ne\"} 3\n",
           "\nkube_extender_sim_follow_node_cpu_requested_ratio{side=\"production\",node=\"n1\"} 0.25\n",
           "\nkube_extender_sim_follow_node_cpu_requested_ratio{side=\"production\",node=\"n2\"} 0.5\n",
           "\nkube_extender_sim_follow_node_cpu_requested_ratio{side=\"simulated\",policy=\"a\\\"b\",node="
           "\"n1\"} "
           "0.375\n",
           "\nkube_extender_sim_follow_node_cpu_requested_ratio{side=\"simulated\",policy=\"c\\\\d\\ne\","
           "node=\"n1\"} "
           "0\n",
           "\nkube_extender_sim_follow_node_memory_requested_ratio{side=\"production\",node=\"n2\"} 0.5\n",
           "# TYPE kube_extender_sim_follow_node_memory_requested_ratio gauge\n",
       }) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\nin:\n" << text;
  }
  // Every sample line is name{labels} value, and no raw newline inside a label value.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#")) continue;
    EXPECT_TRUE(line.starts_with("kube_extender_sim_follow_")) << line;
    EXPECT_NE(line.rfind(' '), std::string::npos) << line;
  }
}

TEST(Divergence, HtmlEscapesNamesAndReloads) {
  Divergence d({"<policy>"});
  d.set_nodes({NodeFacts{"node-<1>", 4000, 8 * kGi, 110}});
  PodFacts evil{"u1", "ns/<script>alert(1)</script>", "Job/<b>", 100, kGi};
  d.pod_pending(evil);
  d.production_bound("u1", "node-<1>");
  d.simulated_bound(0, "u1", "other");
  d.pod_pending(pod("plain-web-7"));
  d.production_bound("plain-web-7", "other");
  DecisionVerdict v = verdict(DecisionVerdict::Kind::kRejected, "node-<1>", "other");
  v.rejected = {"node(s) had untolerated taint {<t>: }"};
  d.decision(0, evil.pod, v);
  const std::string html = d.html();
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("<meta http-equiv=\"refresh\" content=\"5\">"), std::string::npos);
  EXPECT_NE(html.find("ns/&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("default/plain-web-7"), std::string::npos);
  EXPECT_NE(html.find("&lt;policy&gt;"), std::string::npos);
  EXPECT_NE(html.find("node-&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<policy>"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<t>"), std::string::npos);
  // Self-contained: nothing fetched.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("&lt;policy&gt;: decision agreement"), std::string::npos) << "the headline's card";
}

TEST(Divergence, EmptyAndWithoutPolicies) {
  for (const std::vector<std::string>& policies :
       {std::vector<std::string>{}, std::vector<std::string>{"a"}}) {
    Divergence d(policies);
    EXPECT_NE(d.html().find("No nodes yet."), std::string::npos);
    EXPECT_NE(d.prometheus().find("kube_extender_sim_follow_live_events_total 0\n"), std::string::npos);
    std::ostringstream out;
    d.write_jsonl(out);
    const std::string log = out.str();
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), static_cast<long>(policies.size()));
    d.pod_pending(pod("p"));
    d.production_bound("p", "n1");
    EXPECT_NE(d.html().find("default/p"), std::string::npos);
    EXPECT_EQ(d.snapshot().production_pending, 0u);
  }
}

TEST(Divergence, HtmlListsTheNewestRecentRows) {
  Divergence d({"a"});
  for (int i = 0; i < 150; ++i) {
    const std::string uid = "web-" + std::to_string(i);
    d.pod_pending(pod(uid));
    d.production_bound(uid, "n1");
  }
  EXPECT_EQ(d.snapshot().recent.size(), 150u);
  const std::string html = d.html();
  EXPECT_NE(html.find("The newest 100 of 150 rows held"), std::string::npos);
  EXPECT_NE(html.find("default/web-149<"), std::string::npos);
  EXPECT_NE(html.find("default/web-50<"), std::string::npos);
  EXPECT_EQ(html.find("default/web-49<"), std::string::npos);
}

TEST(Divergence, JsonLinesParse) {
  Divergence d({"a", "b\"q"});
  d.pod_pending(PodFacts{"u1", "ns/we\"ird\n", "", 100, 1});
  d.production_bound("u1", "n1");
  d.simulated_bound(0, "u1", "n1");
  d.simulated_bound(1, "u1", "n2");
  d.pod_pending(pod("u2"));
  d.pod_running(pod("r"), "n1");  // no row
  d.pod_deleted("u2");            // its row is kept
  std::ostringstream out;
  d.write_jsonl(out);
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << out.str();  // two pods, two policies
  std::vector<rapidjson::Document> docs(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    docs[i].Parse(lines[i].c_str());
    ASSERT_FALSE(docs[i].HasParseError()) << lines[i];
    ASSERT_TRUE(docs[i].IsObject()) << lines[i];
  }
  EXPECT_STREQ(docs[0]["pod"].GetString(), "ns/we\"ird\n");
  EXPECT_STREQ(docs[0]["owner"].GetString(), "");
  EXPECT_STREQ(docs[0]["production"].GetString(), "n1");
  EXPECT_STREQ(docs[0]["policies"]["a"].GetString(), "n1");
  EXPECT_STREQ(docs[0]["policies"]["b\"q"].GetString(), "n2");
  EXPECT_TRUE(docs[0]["live"].GetBool());
  EXPECT_STREQ(docs[1]["pod"].GetString(), "default/u2");
  EXPECT_FALSE(docs[1]["live"].GetBool());
  EXPECT_STREQ(docs[1]["policies"]["a"].GetString(), "");
  EXPECT_STREQ(docs[2]["policy"].GetString(), "a");
  EXPECT_EQ(docs[2]["decisions"].GetUint64(), 0u);
  EXPECT_DOUBLE_EQ(docs[2]["decision_agreement_percent"].GetDouble(), 100.0);
  EXPECT_EQ(docs[2]["trajectory"]["pending"].GetUint64(), 0u);
  EXPECT_EQ(docs[2]["trajectory"]["nodes_used"].GetUint64(), 1u);
  EXPECT_STREQ(docs[3]["policy"].GetString(), "b\"q");
  EXPECT_EQ(docs[3]["trajectory"]["nodes_used"].GetUint64(), 2u);
}

}  // namespace
}  // namespace divergence_test
}  // namespace kext::simtool::follow

// The engine runs the filters in its semantics' order (catalogue.h filter_rank), whatever order it is
// given them in, and a node failing several filters reports the first failing one's status and reasons
// (or, with always_check_all_predicates, every failing filter's, in run order).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/catalogue.h"
#include "algorithms/engine.h"

namespace kext {
namespace algorithms_filter_order_test {
namespace {

const std::string kUnschedulable = "node(s) were unschedulable";
const std::string kTaint = "node(s) had untolerated taint {dedicated: gpu}";
const std::string kSelector = "node(s) didn't match Pod's node affinity/selector";
const std::string kNoCpu = "Insufficient cpu";

// What is wrong with a node: each flag makes exactly one filter fail.
struct Faults {
  bool cordoned = false;    // CheckNodeUnschedulable / NodeUnschedulable
  bool tainted = false;     // PodToleratesNodeTaints / TaintToleration
  bool other_zone = false;  // MatchNodeSelector / NodeAffinity
  bool full = false;        // PodFitsResources / NodeResourcesFit: 1500m of 2 cpu used, preemption may help
  bool tiny = false;        // PodFitsResources / NodeResourcesFit: 500m allocatable, preemption cannot help
};

NodeInfo make_node(const Faults& f) {
  auto node = std::make_shared<Node>();
  node->name = "n";
  node->labels = {{"zone", f.other_zone ? "z2" : "z1"}};
  node->allocatable.milli_cpu = f.tiny ? 500 : 2000;
  node->allocatable.memory = 4LL << 30;
  node->allocatable.pods = 110;
  node->unschedulable = f.cordoned;
  if (f.tainted) node->taints.push_back({"dedicated", "gpu", "NoSchedule"});
  NodeInfo info;
  info.node = node;
  if (f.full) {
    auto filler = std::make_shared<Pod>();
    filler->uid = "filler";
    Container c;
    c.requests.milli_cpu = 1500;
    c.has_cpu_request = true;
    filler->containers.push_back(c);
    info.add_pod(std::make_shared<const PodInfo>(make_pod_info(filler)));
  }
  return info;
}

// One cpu, for zone z1.
Pod make_pod() {
  Pod pod;
  pod.node_selector = {{"zone", "z1"}};
  Container c;
  c.requests.milli_cpu = 1000;
  c.has_cpu_request = true;
  pod.containers.push_back(c);
  return pod;
}

// Every filter, listed against both orders (reversed v1.16), so the engine has to order them itself.
std::vector<std::unique_ptr<FilterPlugin>> every_filter() {
  std::vector<std::unique_ptr<FilterPlugin>> out;
  for (std::string_view name : {"PodToleratesNodeTaints", "PodFitsResources", "MatchNodeSelector",
                                "PodFitsHost", "CheckNodeUnschedulable"}) {
    out.push_back(make_filter(name));
  }
  return out;
}

Engine engine(Semantics semantics, bool check_all) {
  EngineOptions options;
  options.semantics = semantics;
  options.always_check_all_predicates = check_all;
  return Engine(every_filter(), {}, options);
}

struct Case {
  std::string name;
  Faults faults;
  Semantics semantics;
  bool check_all;
  FilterCode code;
  std::vector<std::string> reasons;
};

TEST(FilterOrder, NodesFailingSeveralFiltersReportTheSemanticsFirstFailure) {
  constexpr auto kCur = Semantics::kCurrent;
  constexpr auto kOld = Semantics::kV1_16;
  constexpr auto kFailed = FilterCode::kUnschedulable;
  constexpr auto kUnres = FilterCode::kUnresolvable;
  const std::vector<Case> cases = {
      {"fits", {}, kCur, false, FilterCode::kSuccess, {}},
      {"fits v1.16", {}, kOld, false, FilterCode::kSuccess, {}},
      // Current: TaintToleration runs before NodeResourcesFit, so the scheduler learns that preemption
      // cannot help. v1.16: PodFitsResources runs first and the node is merely failed.
      {"taint + resources", {.tainted = true, .full = true}, kCur, false, kUnres, {kTaint}},
      {"taint + resources v1.16", {.tainted = true, .full = true}, kOld, false, kFailed, {kNoCpu}},
      {"taint + oversized request", {.tainted = true, .tiny = true}, kCur, false, kUnres, {kTaint}},
      {"taint + oversized request v1.16", {.tainted = true, .tiny = true}, kOld, false, kUnres, {kNoCpu}},
      // NodeAffinity / MatchNodeSelector precede the resource check in both orders.
      {"selector + resources", {.other_zone = true, .full = true}, kCur, false, kUnres, {kSelector}},
      {"selector + resources v1.16", {.other_zone = true, .full = true}, kOld, false, kUnres, {kSelector}},
      // The cordon check comes first in both.
      {"unschedulable + taint", {.cordoned = true, .tainted = true}, kCur, false, kUnres, {kUnschedulable}},
      {"unschedulable + taint v1.16",
       {.cordoned = true, .tainted = true},
       kOld,
       false,
       kUnres,
       {kUnschedulable}},
      // Taints before node affinity now; after it (and after resources) in v1.16.
      {"taint + selector", {.tainted = true, .other_zone = true}, kCur, false, kUnres, {kTaint}},
      {"taint + selector v1.16", {.tainted = true, .other_zone = true}, kOld, false, kUnres, {kSelector}},
      // alwaysCheckAllPredicates: every failing filter's reasons in run order; unresolvable if any is.
      {"all: taint + resources", {.tainted = true, .full = true}, kCur, true, kUnres, {kTaint, kNoCpu}},
      {"all: taint + resources v1.16", {.tainted = true, .full = true}, kOld, true, kUnres, {kNoCpu, kTaint}},
      {"all: resources only", {.full = true}, kCur, true, kFailed, {kNoCpu}},
      {"all: resources only v1.16", {.full = true}, kOld, true, kFailed, {kNoCpu}},
      {"all: every fault",
       {.cordoned = true, .tainted = true, .other_zone = true, .full = true},
       kCur,
       true,
       kUnres,
       {kUnschedulable, kTaint, kSelector, kNoCpu}},
      {"all: every fault v1.16",
       {.cordoned = true, .tainted = true, .other_zone = true, .full = true},
       kOld,
       true,
       kUnres,
       {kUnschedulable, kSelector, kNoCpu, kTaint}},
  };
  const Pod pod = make_pod();
  const PodContext ctx(pod);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const NodeInfo node = make_node(c.faults);
    const std::vector<const NodeInfo*> nodes{&node};
    const Engine e = engine(c.semantics, c.check_all);
    const auto statuses = e.filter(ctx, nodes);
    ASSERT_EQ(statuses.size(), 1u);
    EXPECT_EQ(statuses[0].code, c.code);
    EXPECT_EQ(statuses[0].reasons, c.reasons);
    EXPECT_EQ(e.fits(ctx, node), c.code == FilterCode::kSuccess);
  }
}

std::vector<std::string_view> names(const Engine& e) {
  std::vector<std::string_view> out;
  for (const auto& f : e.filters()) out.push_back(f->name());
  return out;
}

TEST(FilterOrder, EngineOrdersItsFiltersBySemantics) {
  EXPECT_EQ(names(engine(Semantics::kCurrent, false)),
            (std::vector<std::string_view>{"CheckNodeUnschedulable", "PodFitsHost", "PodToleratesNodeTaints",
                                           "MatchNodeSelector", "PodFitsResources"}));
  EXPECT_EQ(names(engine(Semantics::kV1_16, false)),
            (std::vector<std::string_view>{"CheckNodeUnschedulable", "PodFitsHost", "MatchNodeSelector",
                                           "PodFitsResources", "PodToleratesNodeTaints"}));
}

// A filter filter_rank does not know runs after the known ones, in the order it was given.
class Named final : public FilterPlugin {
 public:
  explicit Named(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  FilterCode check(const PodContext&, const NodeInfo&, std::vector<std::string>&) const override {
    return FilterCode::kSuccess;
  }

 private:
  std::string name_;
};

TEST(FilterOrder, UnknownFiltersRunLastInTheGivenOrder) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<Named>("Zeta"));
  filters.push_back(make_filter("PodFitsResources"));
  filters.push_back(std::make_unique<Named>("Alpha"));
  filters.push_back(make_filter("PodToleratesNodeTaints"));
  EngineOptions options;
  options.semantics = Semantics::kCurrent;
  EXPECT_EQ(names(Engine(std::move(filters), {}, options)),
            (std::vector<std::string_view>{"PodToleratesNodeTaints", "PodFitsResources", "Zeta", "Alpha"}));
}

struct RankRow {
  std::string_view plugin;
  std::vector<std::string_view> predicates;
  int current;
  int v1_16;
};

TEST(FilterRank, KnowsLegacyAndPluginNamesAtTheSameRank) {
  const std::vector<RankRow> rows = {
      {"NodeUnschedulable", {"CheckNodeUnschedulable"}, 0, 0},
      {"NodeName", {"PodFitsHost", "HostName"}, 1, 1},
      {"TaintToleration", {"PodToleratesNodeTaints"}, 2, 5},
      {"NodeAffinity", {"MatchNodeSelector"}, 3, 3},
      {"NodePorts", {"PodFitsHostPorts"}, 4, 2},
      {"NodeResourcesFit", {"PodFitsResources"}, 5, 4},
      {"PodTopologySpread", {}, 6, 6},
      {"InterPodAffinity", {}, 7, 7},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.plugin);
    EXPECT_EQ(filter_rank(r.plugin, Semantics::kCurrent), r.current);
    EXPECT_EQ(filter_rank(r.plugin, Semantics::kV1_16), r.v1_16);
    for (std::string_view p : r.predicates) {
      EXPECT_EQ(filter_rank(p, Semantics::kCurrent), r.current) << p;
      EXPECT_EQ(filter_rank(p, Semantics::kV1_16), r.v1_16) << p;
    }
  }
  for (Semantics s : {Semantics::kCurrent, Semantics::kV1_16}) {
    EXPECT_EQ(filter_rank("NoSuchFilter", s), 8);
    EXPECT_EQ(filter_rank("", s), 8);
    // Every filter the catalogue builds has a place in both orders.
    for (std::string_view name : filter_names()) EXPECT_LT(filter_rank(name, s), 8) << name;
    for (std::string_view name : plugin_filter_names()) EXPECT_LT(filter_rank(name, s), 8) << name;
  }
}

}  // namespace
}  // namespace algorithms_filter_order_test
}  // namespace kext

#include "policy/policy.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

namespace kext {
namespace policy_test {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_policy(text);
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "";
}

TEST(Policy, EmbeddedDefaultParsesAndBuilds) {
  Policy p = parse_policy(default_policy_json());
  EXPECT_EQ(p.predicates.size(), 5u);
  EXPECT_EQ(p.priorities.size(), 5u);
  auto engine = build_engine(p);
  EXPECT_EQ(engine->filters().size(), 5u);
  EXPECT_EQ(engine->scores().size(), 5u);
}

TEST(Policy, IssueExampleParses) {
  Policy p = parse_policy(R"({"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"}],
      "priorities":[{"name":"LeastRequestedPriority","weight":1}]})");
  ASSERT_EQ(p.predicates.size(), 1u);
  EXPECT_EQ(p.predicates[0].name, "PodFitsResources");
  ASSERT_EQ(p.priorities.size(), 1u);
  EXPECT_EQ(p.priorities[0].weight, 1);
}

std::vector<std::string_view> filter_order(const Engine& engine) {
  std::vector<std::string_view> out;
  for (const auto& f : engine.filters()) out.push_back(f->name());
  return out;
}

// The policy keeps the file's order; the engine runs them in preemption.semantics' order.
TEST(Policy, PredicatesRunInTheSemanticsOrder) {
  const std::string predicates =
      R"("predicates":[{"name":"PodFitsResources"},{"name":"PodToleratesNodeTaints"},
      {"name":"MatchNodeSelector"},{"name":"CheckNodeUnschedulable"}],"priorities":[])";
  Policy p = parse_policy("{" + predicates + "}");
  ASSERT_EQ(p.predicates.size(), 4u);
  EXPECT_EQ(p.predicates[0].name, "PodFitsResources");
  EXPECT_EQ(p.predicates[3].name, "CheckNodeUnschedulable");
  EXPECT_EQ(filter_order(compile(p).engine),
            (std::vector<std::string_view>{"CheckNodeUnschedulable", "PodToleratesNodeTaints",
                                           "MatchNodeSelector", "PodFitsResources"}));
  const Profile old = compile(parse_policy("{" + predicates + R"(,"preemption":{"semantics":"v1.16"}})"));
  EXPECT_EQ(old.engine.options().semantics, Semantics::kV1_16);
  EXPECT_EQ(filter_order(old.engine),
            (std::vector<std::string_view>{"CheckNodeUnschedulable", "MatchNodeSelector", "PodFitsResources",
                                           "PodToleratesNodeTaints"}));
  EXPECT_EQ(
      filter_order(*build_engine(parse_policy("{" + predicates + R"(,"preemption":{"semantics":"v1.16"}})"))),
      filter_order(old.engine));
}

TEST(Policy, MissingListsTakeTheDefaultsEmptyListsMeanNone) {
  Policy p = parse_policy(R"({"priorities":[{"name":"MostRequestedPriority","weight":3}]})");
  EXPECT_EQ(p.predicates.size(), 5u);
  ASSERT_EQ(p.priorities.size(), 1u);
  EXPECT_EQ(p.priorities[0].weight, 3);
  Policy q = parse_policy(R"({"predicates":[],"priorities":[{"name":"MostRequestedPriority","weight":3}]})");
  EXPECT_TRUE(q.predicates.empty());
}

TEST(Policy, RequestedToCapacityRatioArguments) {
  Policy p =
      parse_policy(R"({"predicates":[],"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":2,
      "argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}],
      "resources":[{"name":"cpu","weight":3},{"name":"memory","weight":1}]}}}]})");
  ASSERT_EQ(p.priorities.size(), 1u);
  const auto& a = p.priorities[0].args.requested_to_capacity_ratio;
  ASSERT_TRUE(a.has_value());
  ASSERT_EQ(a->shape.size(), 2u);
  EXPECT_EQ(a->shape[1].score, 10);
  ASSERT_EQ(a->resources.size(), 2u);
  EXPECT_EQ(a->resources[0].weight, 3);
}

TEST(Policy, PreemptionSection) {
  Policy p = parse_policy(R"({"preemption":{"semantics":"v1.16","maxCandidates":3}})");
  EXPECT_EQ(p.preemption.semantics, "v1.16");
  EXPECT_EQ(p.preemption.max_candidates, 3);
}

TEST(Policy, CompilesIntoATypedProfile) {
  const Profile p = compile(parse_policy(R"({"preemption":{"semantics":"v1.16","maxCandidates":3},
                                             "parallelThreshold":7})"));
  EXPECT_EQ(p.preemption.select.semantics, preemption::Semantics::kV1_16);
  EXPECT_EQ(p.preemption.max_candidates, 3u);
  EXPECT_EQ(p.engine.options().parallel_threshold, 7u);
  const Profile d = compile(parse_policy(default_policy_json()));
  EXPECT_EQ(d.preemption.select.semantics, preemption::Semantics::kCurrent);
  EXPECT_EQ(d.preemption.max_candidates, preemption::kDefaultMaxCandidates);
  EXPECT_EQ(d.engine.options().parallel_threshold, kDefaultParallelThreshold);
  EXPECT_EQ(d.engine.filters().size(), 5u);
  EXPECT_EQ(d.engine.scores().size(), 5u);
}

// The catalogue's names are the plugins' own.
TEST(Policy, CatalogueNamesAreThePluginsNames) {
  for (std::string_view name : filter_names()) EXPECT_EQ(make_filter(name)->name(), name);
  for (std::string_view name : score_names()) EXPECT_EQ(make_score(name, ScoreArgs{})->name(), name);
  EXPECT_EQ(filter_names().size(), 6u);
  EXPECT_EQ(score_names().size(), 7u);
}

struct ErrorCase {
  const char* text;
  const char* expected;
};

TEST(Policy, ErrorsNameTheField) {
  const ErrorCase cases[] = {
      {"{", "policy: malformed JSON"},
      {"[]", "policy: must be a JSON object"},
      {R"({"kind":"KubeSchedulerConfiguration"})", "kind: must be \"Policy\""},
      {R"({"predicates":{}})", "predicates: must be an array"},
      {R"({"predicates":[{"name":"NoSuchThing"}]})", "predicates[0].name: unknown predicate \"NoSuchThing\""},
      {R"({"predicates":[{}]})", "predicates[0].name: missing"},
      {R"({"predicates":[{"name":5}]})", "predicates[0].name: must be a string"},
      {R"({"predicates":[{"name":"PodFitsResources"},{"name":"PodFitsResources"}]})",
       "predicates[1].name: duplicate predicate"},
      {R"({"priorities":[{"name":"Nope","weight":1}]})", "priorities[0].name: unknown priority \"Nope\""},
      {R"({"priorities":[{"name":"LeastRequestedPriority","weight":0}]})",
       "priorities[0].weight: must be >= 1"},
      {R"({"priorities":[{"name":"LeastRequestedPriority","weight":-2}]})",
       "priorities[0].weight: must be >= 1"},
      {R"({"priorities":[{"name":"LeastRequestedPriority"}]})", "priorities[0].weight: missing"},
      {R"({"priorities":[{"name":"LeastRequestedPriority","weight":"1"}]})",
       "priorities[0].weight: must be an integer"},
      {R"({"priorities":[{"name":"LeastRequestedPriority","weight":1},{"name":"LeastRequestedPriority","weight":2}]})",
       "priorities[1].name: duplicate priority"},
      {R"({"predicates":[],"priorities":[]})", "policy: enables no predicate and no priority"},
      {R"({"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":1}]})",
       "priorities[0].argument.requestedToCapacityRatioArguments: missing"},
      {R"({"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":1,"argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":50,"score":1},{"utilization":40,"score":2}]}}}]})",
       "priorities[0].argument.requestedToCapacityRatioArguments.shape[1].utilization: must be strictly "
       "increasing"},
      {R"({"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":1,"argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":0,"score":11}]}}}]})",
       "shape[0].score: must be in 0..10"},
      {R"({"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":1,"argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":0,"score":1}],"resources":[{"name":"cpu","weight":0}]}}}]})",
       "resources[0].weight: must be >= 1"},
      {R"({"priorities":[{"name":"LeastRequestedPriority","weight":1,"argument":{}}]})",
       "priorities[0].argument: priority LeastRequestedPriority takes no argument"},
      {R"({"preemption":{"semantics":"v1.99"}})", "preemption.semantics: must be"},
      {R"({"preemption":{"maxCandidates":0}})", "preemption.maxCandidates: must be >= 1"},
      // Wrong JSON types used to escape as DecodeError instead of PolicyError.
      {R"({"kind":5})", "kind: must be a string, got number"},
      {R"({"kind":["Policy"]})", "kind: must be a string, got array"},
      {R"({"alwaysCheckAllPredicates":"true"})", "alwaysCheckAllPredicates: must be a boolean, got string"},
      {R"({"alwaysCheckAllPredicates":1})", "alwaysCheckAllPredicates: must be a boolean, got number"},
      {R"({"preemption":{"semantics":1}})", "preemption.semantics: must be a string, got number"},
      {R"({"preemption":{"semantics":{}}})", "preemption.semantics: must be a string, got object"},
      {R"({"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":1,"argument":5}]})",
       "priorities[0].argument: must be an object"},
  };
  for (const auto& c : cases) {
    std::string err = error_of(c.text);
    EXPECT_NE(err.find(c.expected), std::string::npos) << "policy " << c.text << "\n gave: " << err;
  }
}

// Every field, given every JSON type: the policy either parses or throws PolicyError (the documented
// contract), never DecodeError or anything else.
TEST(Policy, EveryWrongTypeIsAPolicyError) {
  const std::string rtcr =
      R"({"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":1,"argument":)";
  const std::string args = rtcr + R"({"requestedToCapacityRatioArguments":)";
  // The text before and after the value.
  const std::vector<std::pair<std::string, std::string>> templates = {
      {R"({"kind":)", "}"},
      {R"({"apiVersion":)", "}"},
      {R"({"alwaysCheckAllPredicates":)", "}"},
      {R"({"predicates":)", "}"},
      {R"({"predicates":[)", "]}"},
      {R"({"predicates":[{"name":)", "}]}"},
      {R"({"priorities":)", "}"},
      {R"({"priorities":[)", "]}"},
      {R"({"priorities":[{"weight":1,"name":)", "}]}"},
      {R"({"priorities":[{"name":"LeastRequestedPriority","weight":)", "}]}"},
      {R"({"priorities":[{"name":"LeastRequestedPriority","weight":1,"argument":)", "}]}"},
      {rtcr, "}]}"},
      {args, "}}]}"},
      {args + R"({"shape":)", "}}}]}"},
      {args + R"({"shape":[)", "]}}}]}"},
      {args + R"({"shape":[{"score":1,"utilization":)", "}]}}}]}"},
      {args + R"({"shape":[{"utilization":1,"score":)", "}]}}}]}"},
      {args + R"({"shape":[{"utilization":1,"score":1}],"resources":)", "}}}]}"},
      {args + R"({"shape":[{"utilization":1,"score":1}],"resources":[)", "]}}}]}"},
      {args + R"({"shape":[{"utilization":1,"score":1}],"resources":[{"name":)", "}]}}}]}"},
      {args + R"({"shape":[{"utilization":1,"score":1}],"resources":[{"name":"cpu","weight":)", "}]}}}]}"},
      {R"({"preemption":)", "}"},
      {R"({"preemption":{"semantics":)", "}}"},
      {R"({"preemption":{"maxCandidates":)", "}}"},
      {R"({"parallelThreshold":)", "}"},
  };
  const std::vector<std::string> values = {"5",      "-1",   "1.5",       "1e300", "18446744073709551615",
                                           R"("x")", "true", "false",     "[]",    "{}",
                                           "null",   "[5]",  R"({"a":1})"};
  for (const auto& [before, after] : templates) {
    for (const auto& v : values) {
      const std::string text = before + v + after;
      try {
        parse_policy(text);
      } catch (const PolicyError&) {
      } catch (const std::exception& e) {
        ADD_FAILURE() << text << "\n threw " << typeid(e).name() << ": " << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace policy_test
}  // namespace kext

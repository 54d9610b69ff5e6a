#include "usage/usage_store.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kext::usage {
namespace usage_store_test {
namespace {

using namespace std::chrono_literals;

// A store over a clock the test moves, nodes of 4 cores and 8 GiB, and its log lines kept.
struct Fixture {
  int64_t now_ms = 1'000'000;
  std::vector<std::string> log;
  Store store{StoreSettings{10min, 2min, 0.5},
              [](std::string_view node) -> std::optional<Allocatable> {
                if (node == "unknown") return std::nullopt;
                return Allocatable{4000, int64_t{8} << 30};
              },
              [this] { return now_ms; }, [this](std::string_view line) { log.emplace_back(line); }};

  void record(std::string node, int64_t milli_cpu, int64_t memory) {
    store.record({Sample{std::move(node), milli_cpu, memory, now_ms}});
  }
  size_t warnings() const {
    return static_cast<size_t>(
        std::count_if(log.begin(), log.end(), [](const std::string& l) { return l.starts_with("WARNING"); }));
  }
};

TEST(UsageStore, Moments) {
  struct Case {
    std::vector<double> xs;
    double mean, stddev;
  };
  for (const Case& c : std::vector<Case>{{{}, 0, 0},
                                         {{0.5}, 0.5, 0},
                                         {{0.2, 0.4}, 0.3, 0.1},
                                         {{0.1, 0.1, 0.1, 0.5}, 0.2, std::sqrt(0.03)}}) {
    const Moments m = moments(c.xs);
    EXPECT_NEAR(m.mean, c.mean, 1e-12);
    EXPECT_NEAR(m.stddev, c.stddev, 1e-12);
  }
}

TEST(UsageStore, SummarizesTheWindowAsFractionsOfAllocatable) {
  Fixture f;
  f.record("n1", 1000, int64_t{2} << 30);
  f.now_ms += 30'000;
  f.record("n1", 3000, int64_t{6} << 30);
  const auto snap = f.store.current();
  const NodeUsage* u = snap->find("n1");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->milli_cpu, 3000);  // the latest sample's absolute usage
  EXPECT_EQ(u->memory, int64_t{6} << 30);
  EXPECT_NEAR(u->cpu_mean, 0.5, 1e-12);  // (0.25 + 0.75) / 2
  EXPECT_NEAR(u->cpu_stddev, 0.25, 1e-12);
  EXPECT_NEAR(u->memory_mean, 0.5, 1e-12);
  EXPECT_NEAR(u->memory_stddev, 0.25, 1e-12);
  EXPECT_EQ(u->sampled_unix_ms, f.now_ms);
  EXPECT_EQ(snap->find("n2"), nullptr);
  EXPECT_DOUBLE_EQ(snap->estimate_fraction(), 0.5);
  EXPECT_TRUE(snap->fresh());
}

TEST(UsageStore, DropsSamplesOlderThanTheWindowAndRepeatsOfOne) {
  Fixture f;
  f.record("n1", 4000, 0);
  f.record("n1", 2000, 0);  // the same measurement time: replaces, does not weigh twice
  f.now_ms += 11 * 60'000;
  f.record("n1", 0, 0);
  const NodeUsage* u = f.store.current()->find("n1");
  ASSERT_NE(u, nullptr);
  EXPECT_DOUBLE_EQ(u->cpu_mean, 0);  // the first point left the window
  EXPECT_DOUBLE_EQ(u->cpu_stddev, 0);
}

TEST(UsageStore, KeepsAbsoluteUsageOfANodeWithoutAllocatable) {
  Fixture f;
  f.record("unknown", 500, 1024);
  const NodeUsage* u = f.store.current()->find("unknown");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->milli_cpu, 500);
  EXPECT_DOUBLE_EQ(u->cpu_mean, 0);
}

TEST(UsageStore, StaleSamplesAreNotFreshAndWarnOnce) {
  Fixture f;
  EXPECT_FALSE(f.store.current()->fresh());  // no sample yet
  f.record("n1", 1000, 0);
  f.store.check_freshness();
  EXPECT_EQ(f.warnings(), 0u);
  f.now_ms += 3 * 60'000;  // past staleAfter: the published snapshot turns stale by itself
  EXPECT_FALSE(f.store.current()->fresh());
  f.store.check_freshness();
  f.store.check_freshness();
  EXPECT_EQ(f.warnings(), 1u);
  f.record("n1", 1000, 0);
  f.store.check_freshness();
  EXPECT_TRUE(f.store.current()->fresh());
  EXPECT_EQ(f.log.back(), "node usage is fresh again");
  EXPECT_EQ(f.store.newest_sample_age_seconds(), 0.0);
}

TEST(UsageStore, AFailingSourceIsNotFreshUntilItAnswers) {
  Fixture f;
  f.record("n1", 1000, 0);
  f.store.record_failure("connection refused");
  EXPECT_FALSE(f.store.current()->fresh());
  EXPECT_NE(f.store.current()->find("n1"), nullptr);  // the samples stay
  f.store.check_freshness();
  ASSERT_EQ(f.warnings(), 1u);
  EXPECT_NE(f.log.back().find("connection refused"), std::string::npos);
  f.record("n1", 1000, 0);
  EXPECT_TRUE(f.store.current()->fresh());
}

TEST(UsageStore, PublishesEverySnapshot) {
  std::shared_ptr<const UsageView> published;
  Store store(
      StoreSettings{}, {}, [] { return int64_t{5000}; }, [](std::string_view) {},
      [&](std::shared_ptr<const UsageView> v) { published = std::move(v); });
  ASSERT_NE(published, nullptr);  // the empty one, at construction
  store.record({Sample{"n1", 1, 2, 5000}});
  ASSERT_NE(published->find("n1"), nullptr);
  EXPECT_TRUE(published->fresh());
}

}  // namespace
}  // namespace usage_store_test
}  // namespace kext::usage

#include "sim/core/scheduling_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kext::sim {
namespace scheduling_queue_test {
namespace {

using std::chrono::seconds;

// Pops every pod of activeQ, returning the UIDs in order.
std::vector<std::string> pop_all(SchedulingQueue& q) {
  std::vector<std::string> out;
  while (auto p = q.pop()) out.push_back(p->uid);
  return out;
}

// Pops `uid` (which must be the head) and returns it failed with `events`, as the cycle would.
void fail_head(SchedulingQueue& q, const std::string& uid, EventMask events = kAnyEvent) {
  auto p = q.pop();
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(p->uid, uid);
  p->unschedulable_events = events;
  q.add_unschedulable_if_not_present(*p, q.scheduling_cycle());
}

TEST(BackoffDuration, DoublesFromOneSecondUpToTen) {
  // calculateBackoffDuration with the defaults: attempts 1..6 -> 1, 2, 4, 8, 10, 10 s.
  const QueueOptions options;
  const std::vector<std::pair<int, int>> cases = {{0, 1}, {1, 1},  {2, 2},  {3, 4},
                                                  {4, 8}, {5, 10}, {6, 10}, {50, 10}};
  for (const auto& [attempts, want] : cases) {
    SCOPED_TRACE(attempts);
    EXPECT_EQ(backoff_duration(attempts, options), seconds(want));
  }
}

TEST(ActiveQ, OrdersByPriorityThenEnqueueTime) {
  struct Add {
    int at_s;
    std::string uid;
    int32_t priority;
  };
  struct Case {
    std::string name;
    std::vector<Add> adds;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"higher priority first", {{0, "low", 1}, {0, "high", 10}, {0, "mid", 5}}, {"high", "mid", "low"}},
      {"equal priority: earlier first", {{1, "a", 5}, {2, "b", 5}, {3, "c", 5}}, {"a", "b", "c"}},
      {"priority beats time", {{0, "old-low", 0}, {9, "new-high", 1}}, {"new-high", "old-low"}},
      {"same time: call order", {{0, "z", 0}, {0, "a", 0}, {0, "m", 0}}, {"z", "a", "m"}},
      {"negative priorities", {{0, "neg", -5}, {0, "zero", 0}}, {"zero", "neg"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    VirtualClock clock;
    SchedulingQueue q(clock);
    for (const auto& a : c.adds) {
      clock.advance_to(seconds(a.at_s));
      q.add(a.uid, a.priority);
    }
    EXPECT_EQ(pop_all(q), c.want);
  }
}

TEST(ActiveQ, EnqueueTimeNotArrivalInActiveQ) {
  // A pod that failed at 1 s and is moved back at 6 s keeps its 1 s timestamp, so it goes before a
  // pod of the same priority added at 5 s even though it re-entered activeQ later.
  VirtualClock clock;
  SchedulingQueue q(clock);
  clock.advance_to(seconds(1));
  q.add("old", 0);
  fail_head(q, "old");
  clock.advance_to(seconds(5));
  q.add("new", 0);
  clock.advance_to(seconds(6));
  q.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);
  ASSERT_EQ(q.where("old"), QueueName::kActive);
  EXPECT_EQ(pop_all(q), (std::vector<std::string>{"old", "new"}));
}

TEST(ActiveQ, PopCountsAttemptsAndCycles) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  EXPECT_FALSE(q.pop().has_value());
  EXPECT_EQ(q.scheduling_cycle(), 0) << "an empty pop is not a cycle";
  q.add("a", 0);
  q.add("b", 0);
  auto a = q.pop();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->attempts, 1);
  EXPECT_EQ(q.scheduling_cycle(), 1);
  auto b = q.pop();
  EXPECT_EQ(q.scheduling_cycle(), 2);
  EXPECT_EQ(b->attempts, 1);
}

TEST(ActiveQ, AddingAQueuedPodIsAnError) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add("a", 0);
  EXPECT_THROW(q.add("a", 0), QueueError);
  fail_head(q, "a");
  EXPECT_EQ(q.where("a"), QueueName::kUnschedulable);
  EXPECT_THROW(q.add("a", 0), QueueError);
  QueuedPodInfo again;
  again.uid = "a";
  EXPECT_THROW(q.add_unschedulable_if_not_present(again, q.scheduling_cycle()), QueueError);
}

TEST(ActiveQ, PopOrderIsDeterministic) {
  // Two queues fed the same operations pop the same sequence, including among equal keys.
  auto run = [] {
    VirtualClock clock;
    SchedulingQueue q(clock);
    for (int i = 0; i < 200; ++i) q.add("p" + std::to_string((i * 37) % 200), i % 3);
    // Fail a few and bring them back, so that re-added pods interleave with fresh ones.
    for (int i = 0; i < 20; ++i) {
      auto p = q.pop();
      q.add_unschedulable_if_not_present(*p, q.scheduling_cycle());
    }
    clock.advance(seconds(1));
    q.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);
    clock.advance(seconds(5));
    q.flush_backoff_completed();
    return pop_all(q);
  };
  const auto first = run();
  EXPECT_EQ(first.size(), 200u);
  EXPECT_EQ(run(), first);
}

TEST(BackoffQ, FailedAfterMoveRequestGoesToBackoffAndFlushesOnlyAfterExpiry) {
  for (int attempts = 1; attempts <= 6; ++attempts) {
    SCOPED_TRACE(attempts);
    VirtualClock clock;
    SchedulingQueue q(clock);
    q.add("p", 0);
    QueuedPodInfo p;
    for (int i = 0; i < attempts; ++i) {
      // Each round: pop, an event during the cycle, fail -> backoffQ; wait out the backoff.
      p = *q.pop();
      q.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);
      q.add_unschedulable_if_not_present(p, q.scheduling_cycle());
      ASSERT_EQ(q.where("p"), QueueName::kBackoff);
      if (i + 1 < attempts) {
        clock.advance(seconds(10));
        q.flush_backoff_completed();
      }
    }
    const SimTime failed_at = clock.now();
    const SimDuration want = backoff_duration(attempts, {});
    EXPECT_EQ(q.backoff_expiry(*q.get("p")), failed_at + want);
    clock.advance_to(failed_at + want - SimDuration{1});
    q.flush_backoff_completed();
    EXPECT_EQ(q.where("p"), QueueName::kBackoff) << "one microsecond before expiry";
    clock.advance_to(failed_at + want);
    q.flush_backoff_completed();
    EXPECT_EQ(q.where("p"), QueueName::kActive) << "at expiry (isPodBackingoff: expiry after now)";
  }
}

TEST(BackoffQ, FlushesInExpiryOrder) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add("a", 0);
  q.add("b", 0);
  // a fails at 0 s with 1 attempt (1 s); b at 0 s too, after a second attempt (2 s).
  fail_head(q, "a");
  auto b = *q.pop();
  b.attempts = 2;
  q.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);  // a, backing off until 1 s, -> backoffQ
  q.add_unschedulable_if_not_present(b, q.scheduling_cycle());
  EXPECT_EQ(q.where("a"), QueueName::kBackoff) << "a still backing off when the event came";
  EXPECT_EQ(q.where("b"), QueueName::kBackoff);
  clock.advance(seconds(1));
  q.flush_backoff_completed();
  EXPECT_EQ(q.where("a"), QueueName::kActive);
  EXPECT_EQ(q.where("b"), QueueName::kBackoff);
  clock.advance(seconds(1));
  q.flush_backoff_completed();
  EXPECT_EQ(q.where("b"), QueueName::kActive);
}

TEST(MoveRequestCycle, DecidesBetweenUnschedulableAndBackoff) {
  // AddUnschedulableIfNotPresent: moveRequestCycle >= the pod's cycle -> podBackoffQ.
  struct Case {
    std::string name;
    bool move_before_pop;
    bool move_during_cycle;
    QueueName want;
  };
  const std::vector<Case> cases = {
      {"no move request", false, false, QueueName::kUnschedulable},
      {"move request before the pod's cycle", true, false, QueueName::kUnschedulable},
      {"move request during the pod's cycle", false, true, QueueName::kBackoff},
      {"both", true, true, QueueName::kBackoff},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    VirtualClock clock;
    SchedulingQueue q(clock);
    q.add("other", 0);
    q.add("p", -1);
    fail_head(q, "other");  // cycle 1
    if (c.move_before_pop) q.move_all_to_active_or_backoff(ClusterEvent::kPodDeleted);
    // The move request above puts "other" back in backoffQ; p is the head of activeQ.
    auto p = q.pop();  // cycle 2
    ASSERT_EQ(p->uid, "p");
    const int64_t cycle = q.scheduling_cycle();
    if (c.move_during_cycle) q.move_all_to_active_or_backoff(ClusterEvent::kNodeChanged);
    q.add_unschedulable_if_not_present(*p, cycle);
    EXPECT_EQ(q.where("p"), c.want);
  }
}

TEST(MoveRequestCycle, SetEvenWhenNothingMoves) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  EXPECT_EQ(q.move_request_cycle(), -1);
  q.add("a", 0);
  q.pop();
  q.move_all_to_active_or_backoff(ClusterEvent::kPodDeleted);
  EXPECT_EQ(q.move_request_cycle(), 1);
}

TEST(Events, MoveOnlyPodsTheyCouldHelp) {
  const auto bit = [](ClusterEvent e) { return static_cast<EventMask>(e); };
  struct Case {
    std::string name;
    EventMask pod_events;
    ClusterEvent event;
    bool moves;
  };
  const std::vector<Case> cases = {
      {"any event moves an unknown failure", kAnyEvent, ClusterEvent::kNodeAdded, true},
      {"pod deletion helps a resource failure",
       bit(ClusterEvent::kPodDeleted) | bit(ClusterEvent::kNodeAdded), ClusterEvent::kPodDeleted, true},
      {"node added helps a resource failure", bit(ClusterEvent::kPodDeleted) | bit(ClusterEvent::kNodeAdded),
       ClusterEvent::kNodeAdded, true},
      {"pod deletion does not help a taint failure",
       bit(ClusterEvent::kNodeAdded) | bit(ClusterEvent::kNodeChanged), ClusterEvent::kPodDeleted, false},
      {"node change helps a taint failure", bit(ClusterEvent::kNodeChanged), ClusterEvent::kNodeChanged,
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    VirtualClock clock;
    SchedulingQueue q(clock);
    q.add("p", 0);
    fail_head(q, "p", c.pod_events);
    ASSERT_EQ(q.where("p"), QueueName::kUnschedulable);
    clock.advance(seconds(20));  // past the 1 s backoff
    q.move_all_to_active_or_backoff(c.event);
    EXPECT_EQ(q.where("p"), c.moves ? QueueName::kActive : QueueName::kUnschedulable);
  }
}

TEST(Events, APodStillBackingOffGoesToBackoffQ) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add("p", 0);
  fail_head(q, "p");
  clock.advance(std::chrono::milliseconds(500));  // backoff is 1 s
  q.move_all_to_active_or_backoff(ClusterEvent::kPodDeleted);
  EXPECT_EQ(q.where("p"), QueueName::kBackoff);
  clock.advance(std::chrono::milliseconds(500));
  q.flush_backoff_completed();
  EXPECT_EQ(q.where("p"), QueueName::kActive);
}

TEST(LeftoverFlush, MovesPodsOlderThanSixtySecondsAtThirtySecondTicks) {
  // Pods fail at 0 s, 10 s and 45 s into unschedulablePods; no event ever comes. The 30 s loop ticks
  // at 0, 30, 60, 90, 120 s and moves those that have waited strictly more than 60 s.
  VirtualClock clock;
  SchedulingQueue q(clock);
  const std::vector<std::pair<int, std::string>> failures = {{0, "a"}, {10, "b"}, {45, "c"}};
  for (const auto& [at, uid] : failures) {
    clock.advance_to(seconds(at));
    q.add(uid, 0);
    fail_head(q, uid);
  }
  // Drive the loop the way the simulator will: jump to each due timer.
  std::vector<std::pair<int64_t, std::vector<std::string>>> seen;
  while (q.next_timer_due() != kNever) {
    clock.advance_to(q.next_timer_due());
    q.run_due_timers();
    seen.emplace_back(std::chrono::duration_cast<seconds>(clock.now()).count(), pop_all(q));
  }
  const std::vector<std::pair<int64_t, std::vector<std::string>>> want = {{90, {"a", "b"}}, {120, {"c"}}};
  // At 60 s "a" has waited exactly 60 s, not more; at 90 s "a" (90 s) and "b" (80 s) go; "c" at 120 s.
  EXPECT_EQ(seen, want);
}

TEST(LeftoverFlush, ExactlySixtySecondsStays) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add("p", 0);
  fail_head(q, "p");
  clock.advance(seconds(60));
  q.flush_unschedulable_leftover();
  EXPECT_EQ(q.where("p"), QueueName::kUnschedulable);
  clock.advance(SimDuration{1});
  q.flush_unschedulable_leftover();
  EXPECT_EQ(q.where("p"), QueueName::kActive);
  EXPECT_EQ(q.move_request_cycle(), q.scheduling_cycle());
}

TEST(Timers, BackoffTicksEverySecondFromTheStart) {
  // The queue starts at 0.25 s; the 1 s loop ticks at 0.25, 1.25, 2.25 s. A pod failing at 0.5 s after
  // a move request backs off 1 s (until 1.5 s) and reaches activeQ at the 2.25 s tick.
  using std::chrono::milliseconds;
  VirtualClock clock(milliseconds(250));
  SchedulingQueue q(clock);
  q.add("p", 0);
  clock.advance_to(milliseconds(500));
  auto p = *q.pop();
  q.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);
  q.add_unschedulable_if_not_present(p, q.scheduling_cycle());
  EXPECT_EQ(q.next_timer_due(), milliseconds(2250));
  clock.advance_to(q.next_timer_due());
  q.run_due_timers();
  EXPECT_EQ(q.where("p"), QueueName::kActive);
  EXPECT_EQ(q.next_timer_due(), kNever);
}

TEST(Remove, FromEveryQueueAndTheNominator) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add("backoff", 0);
  q.add("unsched", 0);
  auto b = *q.pop();
  auto u = *q.pop();
  u.unschedulable_events = static_cast<EventMask>(ClusterEvent::kPodUpdated);
  q.add_unschedulable_if_not_present(u, q.scheduling_cycle());
  q.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);  // does not help u; a move request
  q.add_unschedulable_if_not_present(b, 1);                   // cycle 1 <= moveRequestCycle 2
  q.add("active", 0);
  ASSERT_EQ(q.where("active"), QueueName::kActive);
  ASSERT_EQ(q.where("backoff"), QueueName::kBackoff);
  ASSERT_EQ(q.where("unsched"), QueueName::kUnschedulable);
  q.add_nominated_pod("active", "n1");
  for (const std::string uid : {"active", "backoff", "unsched"}) {
    SCOPED_TRACE(uid);
    EXPECT_TRUE(q.remove(uid));
    EXPECT_EQ(q.where(uid), QueueName::kNone);
    EXPECT_FALSE(q.remove(uid));
  }
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.nominated_node("active").has_value());
}

TEST(Remove, FromUnschedulable) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add("p", 0);
  fail_head(q, "p");
  EXPECT_TRUE(q.remove("p"));
  EXPECT_EQ(q.unschedulable_size(), 0u);
  EXPECT_EQ(q.next_timer_due(), kNever) << "the leftover flush forgets it too";
}

TEST(Nominator, AddReplaceAndDelete) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add_nominated_pod("a", "n1");
  q.add_nominated_pod("b", "n1");
  q.add_nominated_pod("c", "n2");
  EXPECT_EQ(q.nominated_pods_for_node("n1"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(q.nominated_node("c"), "n2");
  // A second nomination replaces the first.
  q.add_nominated_pod("a", "n2");
  EXPECT_EQ(q.nominated_pods_for_node("n1"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(q.nominated_pods_for_node("n2"), (std::vector<std::string>{"c", "a"}));
  // The same node again does not duplicate.
  q.add_nominated_pod("a", "n2");
  EXPECT_EQ(q.nominated_pods_for_node("n2"), (std::vector<std::string>{"c", "a"}));
  // An empty node name removes.
  q.add_nominated_pod("b", "");
  EXPECT_TRUE(q.nominated_pods_for_node("n1").empty());
  EXPECT_FALSE(q.nominated_node("b").has_value());
  EXPECT_TRUE(q.delete_nominated_pod_if_exists("c"));
  EXPECT_FALSE(q.delete_nominated_pod_if_exists("c"));
  EXPECT_EQ(q.nominated_pods_for_node("n2"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(q.nominated_pods_for_node("nowhere").empty());
}

TEST(Nominator, SurvivesFailedAttempts) {
  // A nominated pod keeps its node while it waits for its victims to go (the pod's
  // status.nominatedNodeName is re-read by AddUnschedulableIfNotPresent's AddNominatedPod).
  VirtualClock clock;
  SchedulingQueue q(clock);
  q.add("p", 100);
  q.add_nominated_pod("p", "n1");
  fail_head(q, "p");
  EXPECT_EQ(q.nominated_node("p"), "n1");
}

std::string move_text(const std::string& uid, const QueueMove& m) {
  std::string out = std::to_string(m.at.count() / 1000) + "ms " + uid + " " +
                    std::string(m.from == QueueName::kNone ? "-" : queue_name(m.from)) + " -> " +
                    std::string(queue_name(m.to)) + " " + std::string(move_event_name(m.event));
  return m.nominated_node.empty() ? out : out + " @" + m.nominated_node;
}

TEST(QueueMoves, EveryMoveIsReportedWithItsTimeAndEvent) {
  VirtualClock clock;
  SchedulingQueue q(clock);
  std::vector<std::string> moves;
  q.set_move_observer(
      [&](const std::string& uid, const QueueMove& m) { moves.push_back(move_text(uid, m)); });
  q.add("a", 0);
  q.add("b", 0);
  // a fails with no move request since its pop: unschedulablePods.
  fail_head(q, "a", static_cast<EventMask>(ClusterEvent::kNodeAdded));
  // b is popped; while it is in flight a node joins: a (backing off until 1 s) goes to podBackoffQ,
  // and b, failing in the cycle the move request came in, goes straight to podBackoffQ too.
  auto b = q.pop();
  ASSERT_TRUE(b.has_value());
  q.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);
  b->unschedulable_events = static_cast<EventMask>(ClusterEvent::kPodDeleted);
  q.add_unschedulable_if_not_present(*b, q.scheduling_cycle());
  // Both backoffs (1 s: first attempts) end at the 1 s tick, a first (stamped first).
  EXPECT_EQ(q.next_timer_due(), seconds(1));
  clock.advance_to(q.next_timer_due());
  q.run_due_timers();
  // Second attempts fail with no move request: unschedulablePods; a is nominated to n1 first.
  q.add_nominated_pod("a", "n1");
  fail_head(q, "a", static_cast<EventMask>(ClusterEvent::kNodeAdded));
  fail_head(q, "b", static_cast<EventMask>(ClusterEvent::kPodDeleted));
  // A pod deleted at 1.5 s helps b only, still backing off (2 s from 1 s): podBackoffQ until 3 s.
  clock.advance_to(std::chrono::milliseconds(1500));
  q.move_all_to_active_or_backoff(ClusterEvent::kPodDeleted);
  EXPECT_EQ(q.next_timer_due(), seconds(3));
  clock.advance_to(q.next_timer_due());
  q.run_due_timers();
  EXPECT_EQ(pop_all(q), (std::vector<std::string>{"b"}));
  // a, in unschedulablePods since 1 s, leaves at the first 30 s tick more than 60 s later: 90 s.
  EXPECT_EQ(q.next_timer_due(), seconds(90));
  clock.advance_to(q.next_timer_due());
  q.run_due_timers();
  EXPECT_EQ(moves, (std::vector<std::string>{
                       "0ms a - -> activeQ PodAdd",
                       "0ms b - -> activeQ PodAdd",
                       "0ms a - -> unschedulablePods ScheduleAttemptFailure",
                       "0ms a unschedulablePods -> backoffQ NodeAdd",
                       "0ms b - -> backoffQ ScheduleAttemptFailure",
                       "1000ms a backoffQ -> activeQ BackoffComplete",
                       "1000ms b backoffQ -> activeQ BackoffComplete",
                       "1000ms a - -> unschedulablePods ScheduleAttemptFailure @n1",
                       "1000ms b - -> unschedulablePods ScheduleAttemptFailure",
                       "1500ms b unschedulablePods -> backoffQ AssignedPodDelete",
                       "3000ms b backoffQ -> activeQ BackoffComplete",
                       "90000ms a unschedulablePods -> activeQ UnschedulableTimeout @n1",
                   }));
}

TEST(QueueMoves, EventNames) {
  EXPECT_EQ(move_event_of(ClusterEvent::kPodDeleted), MoveEvent::kAssignedPodDelete);
  EXPECT_EQ(move_event_of(ClusterEvent::kNodeAdded), MoveEvent::kNodeAdd);
  EXPECT_EQ(move_event_of(ClusterEvent::kNodeChanged), MoveEvent::kNodeChange);
  EXPECT_EQ(move_event_of(ClusterEvent::kPodUpdated), MoveEvent::kAssignedPodUpdate);
  EXPECT_EQ(queue_name(QueueName::kNone), "");
}

}  // namespace
}  // namespace scheduling_queue_test
}  // namespace kext::sim

// parallel_for_index: every index once; in TSan builds, all on the calling thread.
#include "algorithms/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kext {
namespace parallel_test {
namespace {

TEST(ParallelForIndex, VisitsEveryIndexOnce) {
  std::vector<std::atomic<int>> visits(10000);
  parallel_for_index(visits.size(), [&](size_t i) { visits[i].fetch_add(1, std::memory_order_relaxed); });
  for (size_t i = 0; i < visits.size(); ++i) ASSERT_EQ(visits[i].load(), 1) << i;
}

#ifdef KEXT_TBB_SERIAL
TEST(ParallelForIndex, TsanBuildRunsOnTheCallingThread) {
  std::mutex mu;
  std::set<std::thread::id> threads;
  parallel_for_index(100000, [&](size_t) {
    std::lock_guard lock(mu);
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}
#endif

}  // namespace
}  // namespace parallel_test
}  // namespace kext

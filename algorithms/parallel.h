#pragma once
// The one place the algorithms hand work to oneTBB, and the rule for when they do.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstddef>
#include <cstdint>

namespace kext {

#ifdef KEXT_TBB_SERIAL
// TSan builds (KEXT_SANITIZE=thread): limits oneTBB to one thread, so tasks run on the thread that
// calls parallel_for. The system libtbb is not instrumented, so TSan cannot see how it hands tasks
// to its workers; run serially, the project's own threads are what TSan checks.
void limit_tbb_to_calling_thread();
#else
inline void limit_tbb_to_calling_thread() {}
#endif

// A loop goes parallel only when its estimated serial work reaches this. The price of a parallel
// region is not the hand-off but what follows it: oneTBB 2021.8 keeps its worker looking for more
// work, pausing and calling sched_yield, before it sleeps, and on a 2-vCPU VM that is a fixed price in
// CPU after every region whatever its size. The library has no public setting for it: an explicit or
// per-request task_arena, arena priorities, a global_control limit set after the region all paid the
// same. So a loop splits only work of about twice that price, estimated as the plugins' cache-warm
// cost (a request meets colder caches and takes longer). At 500 names no loop of filter or prioritize
// comes near it; preempt over 100 candidates of ~10 pods does, and running it serially made bench/run's
// preempt p50 slower for less CPU (bench/engine_bench.cc BM_Choice; docs/performance.md "Figures behind
// design choices in the code").
inline constexpr uint64_t kDefaultParallelMinWorkNs = 400'000;

// When a loop runs in parallel: at least `min_items` items (the policy's parallelThreshold) and at
// least `min_work_ns` of estimated serial work (items x the measured cost of one item).
struct ParallelLimits {
  size_t min_items = 0;
  uint64_t min_work_ns = kDefaultParallelMinWorkNs;

  bool parallel(size_t items, uint64_t work_ns) const { return items >= min_items && work_ns >= min_work_ns; }
};

// Runs body(i) for every i in [0, n) with tbb::parallel_for.
template <typename Body>
void parallel_for_index(size_t n, const Body& body) {
  limit_tbb_to_calling_thread();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i != r.end(); ++i) body(i);
  });
}

// body(i) for every i in [0, n): in parallel when `parallel`, else serially on the calling thread.
template <typename Body>
void for_each_index(size_t n, bool parallel, const Body& body) {
  if (!parallel) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  parallel_for_index(n, body);
}

}  // namespace kext

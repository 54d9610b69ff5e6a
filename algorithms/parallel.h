#pragma once
// The one place the algorithms hand work to oneTBB.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstddef>

namespace kext {

#ifdef KEXT_TBB_SERIAL
// TSan builds (KEXT_SANITIZE=thread): limits oneTBB to one thread, so tasks run on the thread that
// calls parallel_for. The system libtbb is not instrumented, so TSan cannot see how it hands tasks
// to its workers; run serially, the project's own threads are what TSan checks.
void limit_tbb_to_calling_thread();
#else
inline void limit_tbb_to_calling_thread() {}
#endif

// Runs body(i) for every i in [0, n) with tbb::parallel_for.
template <typename Body>
void parallel_for_index(size_t n, const Body& body) {
  limit_tbb_to_calling_thread();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i != r.end(); ++i) body(i);
  });
}

// The serial-or-parallel choice every caller makes: body(i) for every i in [0, n), in parallel when
// `work` (the caller's measure of the whole job: nodes, or nodes x plugins) reaches `threshold`,
// serially below it, where handing tasks to oneTBB costs more than it saves.
template <typename Body>
void for_each_index(size_t n, size_t work, size_t threshold, const Body& body) {
  if (work < threshold) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  parallel_for_index(n, body);
}

// The same with the work measured as n.
template <typename Body>
void for_each_index(size_t n, size_t threshold, const Body& body) {
  for_each_index(n, n, threshold, body);
}

}  // namespace kext

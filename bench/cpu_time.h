#pragma once
// The benchmarks' CPU per request: user + system time of the whole process, in microseconds (serial
// benchmarks report it beside wall time; a parallel one shows the cost of its threads).
#include <sys/resource.h>

namespace kext::bench {

inline double process_cpu_us() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

}  // namespace kext::bench

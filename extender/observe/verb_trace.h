#pragma once
// What a verb reports besides its reply: phase times and node count for /metrics, the pod for the
// request log line, and, when asked, the whole decision for GET /debug/decisions.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "extender/observe/decision.h"

namespace kext {

enum class Phase : uint8_t { kDecode, kCompute, kEncode };
inline constexpr size_t kPhaseCount = 3;

struct VerbTrace {
  bool want_decision = false;  // set by the caller: building a Decision is the only optional cost
  std::array<double, kPhaseCount> seconds{};
  size_t nodes = 0;
  std::string pod;  // "namespace/name"; empty when the body did not decode
  std::unique_ptr<Decision> decision;
};

// Consecutive phases share their boundaries, so one clock read per phase; no reads without a trace.
class PhaseClock {
 public:
  explicit PhaseClock(VerbTrace* trace) : trace_(trace) {
    if (trace_) last_ = std::chrono::steady_clock::now();
  }
  void end(Phase p) {
    if (!trace_) return;
    const auto now = std::chrono::steady_clock::now();
    trace_->seconds[static_cast<size_t>(p)] += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  VerbTrace* trace_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace kext

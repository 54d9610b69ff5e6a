#pragma once
// Virtual time for the simulator: an integer count of microseconds since the simulation started. Nothing
// in sim/ reads the wall clock, so a run is a pure function of its inputs and its seed, and simulated
// minutes take only as long as the decisions in them.
#include <chrono>
#include <cstdint>
#include <limits>

namespace kext::sim {

// A point in simulated time, as the duration since the simulation began.
using SimTime = std::chrono::microseconds;
// A span of simulated time.
using SimDuration = std::chrono::microseconds;

// "Never": later than every time a simulation reaches.
inline constexpr SimTime kNever = SimTime{std::numeric_limits<SimTime::rep>::max()};

// The clock the queue and the event loop share. Only the event loop moves it, and only forward.
class VirtualClock {
 public:
  explicit VirtualClock(SimTime start = SimTime{0}) : now_(start) {}

  SimTime now() const { return now_; }

  // Moves the clock to `t`; a time in the past leaves it where it is (the clock never goes back, as
  // kube-scheduler's clock.Clock never does).
  void advance_to(SimTime t) {
    if (t > now_) now_ = t;
  }
  void advance(SimDuration d) { advance_to(now_ + d); }

 private:
  SimTime now_;
};

}  // namespace kext::sim

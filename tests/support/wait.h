#pragma once
// Tests wait for a condition, never for a fixed time: wait_until polls it up to a deadline.
#include <chrono>
#include <functional>
#include <thread>

namespace kext::testing {

// How long a test waits for something that should happen: generous, since it only costs time when the
// test fails, and sanitizer builds run much slower.
inline constexpr std::chrono::seconds kPatience{60};

// Whether `done` held within `limit`, asked every few milliseconds.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = kPatience) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

}  // namespace kext::testing

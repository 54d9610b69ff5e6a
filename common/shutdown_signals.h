#pragma once
// SIGTERM/SIGINT handled on an ordinary thread (sigwait) instead of in a signal handler, where almost
// nothing (no locks, no allocation, no joining) is allowed.
#include <signal.h>

#include <atomic>
#include <functional>
#include <thread>

namespace kext {

class ShutdownSignals {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread; threads started afterwards inherit the mask, so
  // construct this in main before anything starts a thread (server pool, TBB).
  ShutdownSignals();
  ~ShutdownSignals();
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  // on_first(signal) runs on the watcher thread for the first signal; a second one exits the process
  // at once with status 1 (an operator who insists).
  void start(std::function<void(int)> on_first);
  // Stops watching and waits for on_first to return; before destroying what on_first touches.
  void stop();

 private:
  sigset_t set_{};
  std::thread watcher_;
  std::thread handler_;  // runs on_first, so the watcher stays free to see a second signal
  std::atomic<bool> done_{false};
};

}  // namespace kext

#include "common/shutdown_signals.h"

#include <pthread.h>
#include <unistd.h>

namespace kext {

ShutdownSignals::ShutdownSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
}

ShutdownSignals::~ShutdownSignals() { stop(); }

void ShutdownSignals::stop() {
  if (!watcher_.joinable()) return;
  done_ = true;
  // Wakes sigwait; done_ tells the watcher it is not a real signal.
  pthread_kill(watcher_.native_handle(), SIGTERM);
  watcher_.join();
  if (handler_.joinable()) handler_.join();
}

void ShutdownSignals::start(std::function<void(int)> on_first) {
  watcher_ = std::thread([this, on_first = std::move(on_first)] {
    bool first = true;
    while (true) {
      int sig = 0;
      if (sigwait(&set_, &sig) != 0) continue;
      if (done_) return;
      if (!first) _exit(1);
      first = false;
      handler_ = std::thread(on_first, sig);
    }
  });
}

}  // namespace kext

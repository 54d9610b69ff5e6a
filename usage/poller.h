#pragma once
// A source's fetch every interval on a thread of its own, into a Store: the requests never wait for a
// source, and a source's error is counted and logged there, never thrown into a request.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "usage/source.h"
#include "usage/usage_store.h"

namespace kext::usage {

class Poller {
 public:
  // on_error: called on the poller's thread after each failed fetch (the metrics' error counter).
  Poller(Source& source, Store& store, std::chrono::milliseconds interval,
         std::function<void()> on_error = {});
  ~Poller();  // stop()
  void start();
  // Ends the thread: a fetch in progress finishes first (its timeout bounds it), no new one starts.
  void stop();
  // One fetch into the store, on the caller's thread (start() runs it every interval).
  void poll_once();

 private:
  void run();

  Source& source_;
  Store& store_;
  std::chrono::milliseconds interval_;
  std::function<void()> on_error_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // under mu_
  std::thread thread_;
};

}  // namespace kext::usage

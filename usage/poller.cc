#include "usage/poller.h"

#include <string>

namespace kext::usage {

Poller::Poller(Source& source, Store& store, std::chrono::milliseconds interval,
               std::function<void()> on_error)
    : source_(source), store_(store), interval_(interval), on_error_(std::move(on_error)) {}

Poller::~Poller() { stop(); }

void Poller::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void Poller::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Poller::poll_once() {
  FetchResult r = source_.fetch();
  if (r.ok()) {
    store_.record(r.samples);
  } else {
    store_.record_failure(std::string(source_.name()) + ": " + r.error);
    if (on_error_) on_error_();
  }
  store_.check_freshness();
}

void Poller::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    poll_once();
    lock.lock();
    cv_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

}  // namespace kext::usage

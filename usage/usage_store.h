#pragma once
// Every node's usage samples over a window, published as an immutable UsageView
// (algorithms/node_usage.h) that requests read without a lock, as StateStore publishes ClusterState. A
// source's poller (poller.h) records into it off the request path.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/node_usage.h"
#include "policy/usage_config.h"

namespace kext::usage {

// One node's usage as a source measured it.
struct Sample {
  std::string node;
  int64_t milli_cpu = 0;
  int64_t memory = 0;   // bytes
  int64_t unix_ms = 0;  // when it was measured
  bool operator==(const Sample&) const = default;
};

// What the source could read, or why not.
struct FetchResult {
  std::vector<Sample> samples;
  std::string error;  // empty: the fetch succeeded
  bool ok() const { return error.empty(); }
};

// A node's allocatable CPU (millicores) and memory (bytes): the denominators of the utilizations.
struct Allocatable {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
};
using AllocatableOf = std::function<std::optional<Allocatable>(std::string_view node)>;
using UnixMsClock = std::function<int64_t()>;
using LogFn = std::function<void(std::string_view)>;

int64_t unix_ms_now();

// The store's part of the configuration's usage: section; its defaults are that section's.
struct StoreSettings {
  explicit StoreSettings(const UsageConfig& c = {})
      : window(std::chrono::seconds(c.window_seconds)),
        stale_after(std::chrono::seconds(c.stale_after_seconds)),
        estimate_fraction(c.estimate_fraction) {}
  StoreSettings(std::chrono::milliseconds w, std::chrono::milliseconds stale, double fraction)
      : window(w), stale_after(stale), estimate_fraction(fraction) {}
  std::chrono::milliseconds window;
  std::chrono::milliseconds stale_after;
  double estimate_fraction;
};

// What a request reads: fixed when published, except fresh(), which compares the newest sample's time
// with the clock when asked, so that a source that stops answering goes stale without a publication.
class Snapshot final : public UsageView {
 public:
  Snapshot(std::map<std::string, NodeUsage, std::less<>> nodes, int64_t newest_ms, bool failing,
           const StoreSettings& settings, std::shared_ptr<const UnixMsClock> clock);
  const NodeUsage* find(std::string_view node) const override;
  bool fresh() const override;
  double estimate_fraction() const override { return fraction_; }
  int64_t newest_unix_ms() const { return newest_ms_; }  // 0: no sample yet
  bool failing() const { return failing_; }

 private:
  std::map<std::string, NodeUsage, std::less<>> nodes_;
  int64_t newest_ms_;
  bool failing_;
  int64_t stale_after_ms_;
  double fraction_;
  std::shared_ptr<const UnixMsClock> clock_;
};

class Store {
 public:
  // allocatable: a node's allocatable when the samples are recorded (the cluster state's node object);
  // a node without one keeps its absolute usage and utilizations of 0. publish: called with every new
  // snapshot (e.g. StateStore::publish_usage); may be empty.
  Store(StoreSettings settings, AllocatableOf allocatable, UnixMsClock clock = unix_ms_now, LogFn log = {},
        std::function<void(std::shared_ptr<const UsageView>)> publish = {});

  // One successful fetch: its samples added, those older than the window dropped, a snapshot published.
  void record(const std::vector<Sample>& samples);
  // A failed fetch: the snapshot keeps the samples and is not fresh until the next successful one.
  void record_failure(const std::string& error);
  // Logs a WARNING when the view turns stale or has no sample, once, and a line when it is fresh again.
  // The poller calls it after every fetch.
  void check_freshness();

  std::shared_ptr<const Snapshot> current() const { return current_.load(std::memory_order_acquire); }
  // Seconds since the newest sample was measured; nullopt before the first.
  std::optional<double> newest_sample_age_seconds() const;

 private:
  struct Point {
    int64_t unix_ms = 0;
    int64_t milli_cpu = 0;
    int64_t memory = 0;
    std::optional<double> cpu;  // fractions of allocatable, when it is known
    std::optional<double> memory_fraction;
  };
  Point point_of(const Sample& s) const;
  void add(std::deque<Point>& series, const Point& p) const;
  void publish_locked();  // under mu_

  StoreSettings settings_;
  AllocatableOf allocatable_;
  std::shared_ptr<const UnixMsClock> clock_;
  LogFn log_;
  std::function<void(std::shared_ptr<const UsageView>)> publish_;
  std::mutex mu_;
  std::map<std::string, std::deque<Point>, std::less<>> series_;  // under mu_
  int64_t newest_ms_ = 0;                                         // under mu_
  bool failing_ = false;                                          // under mu_
  std::string last_error_;                                        // under mu_
  bool warned_ = false;                                           // under mu_
  std::atomic<std::shared_ptr<const Snapshot>> current_;
};

// The mean and population standard deviation of `xs` (0 and 0 when empty): how the window's
// utilizations summarize (Trimaran's load watcher reports both per node).
struct Moments {
  double mean = 0;
  double stddev = 0;
};
Moments moments(const std::vector<double>& xs);

}  // namespace kext::usage

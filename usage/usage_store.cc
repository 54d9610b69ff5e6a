#include "usage/usage_store.h"

#include <cmath>

#include "common/log.h"

namespace kext::usage {

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Moments moments(const std::vector<double>& xs) {
  Moments m;
  if (xs.empty()) return m;
  double sum = 0;
  for (double x : xs) sum += x;
  m.mean = sum / static_cast<double>(xs.size());
  double squares = 0;
  for (double x : xs) squares += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(squares / static_cast<double>(xs.size()));
  return m;
}

Snapshot::Snapshot(std::map<std::string, NodeUsage, std::less<>> nodes, int64_t newest_ms, bool failing,
                   const StoreSettings& settings, std::shared_ptr<const UnixMsClock> clock)
    : nodes_(std::move(nodes)),
      newest_ms_(newest_ms),
      failing_(failing),
      stale_after_ms_(settings.stale_after.count()),
      fraction_(settings.estimate_fraction),
      clock_(std::move(clock)) {}

const NodeUsage* Snapshot::find(std::string_view node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second;
}

bool Snapshot::fresh() const {
  return !failing_ && newest_ms_ > 0 && (*clock_)() - newest_ms_ <= stale_after_ms_;
}

Store::Store(StoreSettings settings, AllocatableOf allocatable, UnixMsClock clock, LogFn log,
             std::function<void(std::shared_ptr<const UsageView>)> publish)
    : settings_(settings),
      allocatable_(std::move(allocatable)),
      clock_(std::make_shared<const UnixMsClock>(std::move(clock))),
      log_(log ? std::move(log) : LogFn([](std::string_view line) { log_line(line); })),
      publish_(std::move(publish)) {
  std::lock_guard lock(mu_);
  publish_locked();
}

Store::Point Store::point_of(const Sample& s) const {
  Point p{s.unix_ms, s.milli_cpu, s.memory, std::nullopt, std::nullopt};
  const std::optional<Allocatable> a = allocatable_ ? allocatable_(s.node) : std::nullopt;
  if (a && a->milli_cpu > 0) p.cpu = static_cast<double>(s.milli_cpu) / static_cast<double>(a->milli_cpu);
  if (a && a->memory > 0) p.memory_fraction = static_cast<double>(s.memory) / static_cast<double>(a->memory);
  return p;
}

// The metrics API answers the same sample until its next scrape: a repeat replaces the point instead of
// weighing twice in the window.
void Store::add(std::deque<Point>& series, const Point& p) const {
  if (!series.empty() && series.back().unix_ms >= p.unix_ms) {
    if (series.back().unix_ms == p.unix_ms) series.back() = p;
    return;
  }
  series.push_back(p);
}

void Store::record(const std::vector<Sample>& samples) {
  std::lock_guard lock(mu_);
  for (const Sample& s : samples) {
    auto it = series_.find(s.node);
    if (it == series_.end()) it = series_.emplace(s.node, std::deque<Point>()).first;
    add(it->second, point_of(s));
    newest_ms_ = std::max(newest_ms_, s.unix_ms);
  }
  const int64_t oldest = (*clock_)() - settings_.window.count();
  for (auto it = series_.begin(); it != series_.end();) {
    std::deque<Point>& points = it->second;
    // The latest point stays while the node is listed: it is the node's current usage.
    while (points.size() > 1 && points.front().unix_ms < oldest) points.pop_front();
    it = points.back().unix_ms < oldest ? series_.erase(it) : std::next(it);
  }
  failing_ = false;
  last_error_.clear();
  publish_locked();
}

void Store::record_failure(const std::string& error) {
  std::lock_guard lock(mu_);
  failing_ = true;
  last_error_ = error;
  publish_locked();
}

void Store::publish_locked() {
  std::map<std::string, NodeUsage, std::less<>> nodes;
  for (const auto& [name, points] : series_) {
    std::vector<double> cpu, memory;
    for (const Point& p : points) {
      if (p.cpu) cpu.push_back(*p.cpu);
      if (p.memory_fraction) memory.push_back(*p.memory_fraction);
    }
    const Moments c = moments(cpu), m = moments(memory);
    const Point& latest = points.back();
    nodes.emplace(
        name, NodeUsage{latest.milli_cpu, latest.memory, c.mean, c.stddev, m.mean, m.stddev, latest.unix_ms});
  }
  auto snap = std::make_shared<const Snapshot>(std::move(nodes), newest_ms_, failing_, settings_, clock_);
  current_.store(snap, std::memory_order_release);
  if (publish_) publish_(std::move(snap));
}

void Store::check_freshness() {
  const std::shared_ptr<const Snapshot> snap = current();
  const bool fresh = snap->fresh();
  std::lock_guard lock(mu_);
  if (!fresh && !warned_) {
    std::string why = failing_ ? "the source fails: " + last_error_
                      : newest_ms_ == 0
                          ? std::string("no sample yet")
                          : "the newest sample is " + std::to_string(((*clock_)() - newest_ms_) / 1000) +
                                " s old (staleAfterSeconds " +
                                std::to_string(settings_.stale_after.count() / 1000) + ")";
    log_("WARNING: node usage is not fresh (" + why + "): the load-aware plugins score every node alike");
    warned_ = true;
  } else if (fresh && warned_) {
    log_("node usage is fresh again");
    warned_ = false;
  }
}

std::optional<double> Store::newest_sample_age_seconds() const {
  const std::shared_ptr<const Snapshot> snap = current();
  if (snap->newest_unix_ms() == 0) return std::nullopt;
  return static_cast<double>((*clock_)() - snap->newest_unix_ms()) / 1000.0;
}

}  // namespace kext::usage

#include "load/replay.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "json/json.h"
#include "load/http_connection.h"
#include "load/json_compare.h"

namespace kext::load {

namespace {

using Clock = std::chrono::steady_clock;

struct Shared {
  const std::vector<Exchange>& exchanges;
  const ReplayOptions& options;
  Clock::time_point start;
  Clock::time_point deadline;
  uint64_t limit;
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> done{0};
  std::atomic<uint64_t> failed{0};
};

// A reply body the scheduler would treat as a failed call although the status is 200; *message gets the
// Error text. Large replies (full-Nodes filter echoes) are only scanned near the end, where every envelope
// puts "Error", so the load generator does not spend its CPU parsing megabytes the server must also send;
// their message is left empty.
bool has_error_body(const std::string& body, std::string* message) {
  constexpr size_t kParseLimit = 256 * 1024;
  message->clear();
  if (body.size() <= kParseLimit) {
    rapidjson::Document d;
    d.Parse<json::kParseFlags>(body.data(), body.size());
    if (d.HasParseError() || !d.IsObject()) return false;
    const json::Value* e = json::find_non_null(d, "Error");
    if (!e || !e->IsString() || e->GetStringLength() == 0) return false;
    message->assign(e->GetString(), e->GetStringLength());
    return true;
  }
  const size_t at = body.rfind("\"Error\":");
  if (at == std::string::npos) return false;
  size_t i = at + 8;
  while (i < body.size() && (body[i] == ' ' || body[i] == '\n' || body[i] == '\t' || body[i] == '\r')) ++i;
  return i + 1 < body.size() && body[i] == '"' && body[i + 1] != '"';
}

// The index of the expectation that covers this Error reply, or -1.
int expected_index(const std::vector<ExpectedError>& expected, const std::string& verb,
                   const std::string& message) {
  if (message.empty()) return -1;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i].verb == verb && message.find(expected[i].text) != std::string::npos)
      return static_cast<int>(i);
  }
  return -1;
}

void check_reply(const Exchange& ex, const HttpReply& res, size_t shown, ReplayResult& r) {
  if (ex.record.status == 0) {
    ++r.unchecked;
    return;
  }
  ++r.checked;
  std::string why;
  if (res.status != ex.record.status) {
    why = "status " + std::to_string(ex.record.status) + " recorded, " + std::to_string(res.status) +
          " received";
  } else if (!same_json(ex.record.reply, res.body, &why)) {
    why = "reply differs at " + why + " (recorded vs received)";
  } else {
    return;
  }
  ++r.differences;
  if (r.first_differences.size() < shown)
    r.first_differences.push_back(ex.source + " " + ex.record.verb + ": " + why);
}

void worker(Shared& sh, ReplayResult& r) {
  const ReplayOptions& o = sh.options;
  HttpConnection connection(o.target.host, o.target.port, std::chrono::duration<double>(o.timeout_s));
  HttpReply reply;
  std::string message;
  r.expected.assign(o.expected_errors.size(), 0);
  const size_t n = sh.exchanges.size();
  for (;;) {
    const uint64_t i = sh.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= sh.limit) break;
    Clock::time_point scheduled;
    if (o.rate > 0) {
      scheduled = sh.start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(static_cast<double>(i) / o.rate));
      if (scheduled >= sh.deadline) break;
      std::this_thread::sleep_until(scheduled);
    } else {
      scheduled = Clock::now();
      if (scheduled >= sh.deadline) break;
    }
    const Exchange& ex = sh.exchanges[i % n];
    const RecordEntry& rec = ex.record;
    VerbResult& v = r.verbs[rec.verb];
    const HttpFailure failure =
        connection.post(o.target.prefix + "/" + rec.verb, rec.body, rec.content_type, reply);
    const auto end = Clock::now();
    ++v.requests;
    v.bytes_sent += rec.body.size();
    bool failed = false;
    if (failure != HttpFailure::kNone) {
      failed = true;
      const char* what = "transport failure";
      if (failure == HttpFailure::kConnect) {
        ++r.errors.connect;
        what = "connect failure";
      } else if (failure == HttpFailure::kTimeout) {
        ++r.errors.timeout;
        what = "timeout";
      } else {
        ++r.errors.transport;
      }
      if (r.first_errors.size() < o.shown_differences) {
        char after[32];
        std::snprintf(after, sizeof after, " after %.2f s",
                      std::chrono::duration<double>(end - scheduled).count());
        r.first_errors.push_back(rec.verb + ": " + what + after);
      }
    } else {
      v.latency_us.push_back(std::chrono::duration<double, std::micro>(end - scheduled).count());
      v.bytes_received += reply.body.size();
      if (reply.status != 200) {
        failed = true;
        ++r.errors.http_status[reply.status];
        if (r.first_errors.size() < o.shown_differences) {
          r.first_errors.push_back(rec.verb + ": HTTP " + std::to_string(reply.status) + " " +
                                   reply.body.substr(0, 200));
        }
      } else if (has_error_body(reply.body, &message)) {
        if (int e = expected_index(o.expected_errors, rec.verb, message); e >= 0) {
          ++r.expected[static_cast<size_t>(e)];
        } else {
          failed = true;
          ++r.errors.error_body;
          if (r.first_errors.size() < o.shown_differences)
            r.first_errors.push_back(rec.verb + ": " + message.substr(0, 300));
        }
      }
      if (o.check) check_reply(ex, reply, o.shown_differences, r);
    }
    sh.done.fetch_add(1, std::memory_order_relaxed);
    if (failed) {
      ++v.errors;
      sh.failed.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void merge(ReplayResult& into, ReplayResult&& from, size_t shown) {
  for (auto& [verb, v] : from.verbs) {
    VerbResult& t = into.verbs[verb];
    t.requests += v.requests;
    t.bytes_sent += v.bytes_sent;
    t.bytes_received += v.bytes_received;
    t.errors += v.errors;
    t.latency_us.insert(t.latency_us.end(), v.latency_us.begin(), v.latency_us.end());
  }
  into.errors.connect += from.errors.connect;
  into.errors.timeout += from.errors.timeout;
  into.errors.transport += from.errors.transport;
  into.errors.error_body += from.errors.error_body;
  for (auto [status, n] : from.errors.http_status) into.errors.http_status[status] += n;
  into.expected.resize(std::max(into.expected.size(), from.expected.size()), 0);
  for (size_t i = 0; i < from.expected.size(); ++i) into.expected[i] += from.expected[i];
  into.checked += from.checked;
  into.differences += from.differences;
  into.unchecked += from.unchecked;
  for (auto& d : from.first_differences) {
    if (into.first_differences.size() < shown) into.first_differences.push_back(std::move(d));
  }
  for (auto& e : from.first_errors) {
    if (into.first_errors.size() < shown) into.first_errors.push_back(std::move(e));
  }
}

}  // namespace

uint64_t ErrorCounts::total() const {
  uint64_t n = connect + timeout + transport + error_body;
  for (auto [status, c] : http_status) n += c;
  return n;
}

ReplayResult replay(const std::vector<Exchange>& exchanges, const ReplayOptions& options) {
  if (exchanges.empty())
    throw std::invalid_argument("no requests to replay (empty recording or --verb matched none)");
  if (options.connections == 0) throw std::invalid_argument("--connections: must be >= 1");
  Shared sh{exchanges, options, Clock::now(), Clock::time_point::max(), 0};
  if (options.count > 0) {
    sh.limit = options.count;
  } else if (options.duration_s > 0) {
    sh.limit = std::numeric_limits<uint64_t>::max();
  } else {
    sh.limit = exchanges.size();
  }
  sh.start = Clock::now();
  if (options.duration_s > 0) {
    sh.deadline = sh.start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(options.duration_s));
  }

  std::vector<ReplayResult> locals(options.connections);
  std::vector<std::thread> threads;
  threads.reserve(options.connections);
  for (size_t c = 0; c < options.connections; ++c)
    threads.emplace_back([&sh, &locals, c] { worker(sh, locals[c]); });

  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::thread progress;
  if (options.progress) {
    progress = std::thread([&] {
      std::unique_lock<std::mutex> lock(mu);
      uint64_t last = 0;
      for (int second = 1; !cv.wait_for(lock, std::chrono::seconds(1), [&] { return finished; }); ++second) {
        const uint64_t done = sh.done.load(std::memory_order_relaxed);
        std::fprintf(stderr, "extender-load: %3d s  %llu requests  %llu/s  %llu errors\n", second,
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(done - last),
                     static_cast<unsigned long long>(sh.failed.load(std::memory_order_relaxed)));
        last = done;
      }
    });
  }
  for (auto& t : threads) t.join();
  const auto end = Clock::now();
  if (progress.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu);
      finished = true;
    }
    cv.notify_all();
    progress.join();
  }

  ReplayResult out;
  out.expected.assign(options.expected_errors.size(), 0);
  out.elapsed_s = std::chrono::duration<double>(end - sh.start).count();
  for (auto& l : locals) merge(out, std::move(l), options.shown_differences);
  for (auto& [verb, v] : out.verbs) {
    std::sort(v.latency_us.begin(), v.latency_us.end());
    out.requests += v.requests;
    out.bytes_sent += v.bytes_sent;
    out.bytes_received += v.bytes_received;
  }
  return out;
}

}  // namespace kext::load

#pragma once
// Sends recorded requests to an extender, closed loop (C keep-alive connections, each sending its next
// request as soon as the last reply arrives) or open loop (fixed rate, latency counted from each
// request's scheduled send time so that a stalled server is not flattered by requests it delayed).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "load/exchanges.h"
#include "load/target.h"

namespace kext::load {

// A failure the run expects, e.g. bind conflicts while the cluster changes under the replay: a 200 reply
// of `verb` whose Error contains `text`. Counted in ReplayResult::expected, not as an error.
struct ExpectedError {
  std::string verb;
  std::string text;
};

struct ReplayOptions {
  Target target;
  size_t connections = 1;
  double rate = 0;        // requests per second over all connections; 0 = closed loop
  uint64_t count = 0;     // requests to send, cycling through the exchanges; 0 = no limit
  double duration_s = 0;  // 0 = no limit; with neither limit, one pass over the exchanges
  double timeout_s = 5;   // kube-scheduler's default extender timeout (whole exchange)
  bool check = false;     // compare each reply with the recorded one
  size_t shown_differences = 5;
  bool progress = false;  // a line on stderr every second
  std::vector<ExpectedError> expected_errors;
};

struct ErrorCounts {
  uint64_t connect = 0;
  uint64_t timeout = 0;
  uint64_t transport = 0;   // any other socket failure (reset, closed mid-reply)
  uint64_t error_body = 0;  // 200 with a non-empty {"Error": ...}: the scheduler fails the attempt
  std::map<int, uint64_t> http_status;  // non-200 replies
  uint64_t total() const;
};

struct VerbResult {
  uint64_t requests = 0;
  std::vector<double> latency_us;  // every request that got an HTTP reply, sorted
  uint64_t bytes_sent = 0;         // request bodies
  uint64_t bytes_received = 0;     // reply bodies
  uint64_t errors = 0;             // of these requests, how many ReplayResult::errors counts
};

struct ReplayResult {
  double elapsed_s = 0;
  uint64_t requests = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  std::map<std::string, VerbResult> verbs;
  ErrorCounts errors;
  std::vector<uint64_t> expected;  // per ReplayOptions::expected_errors entry
  uint64_t checked = 0;            // replies compared with a recorded one
  uint64_t differences = 0;        // of those, how many differed (status or JSON value)
  uint64_t unchecked = 0;          // replies whose exchange has no recorded reply
  std::vector<std::string> first_differences;
  std::vector<std::string> first_errors;  // "verb: Error text" or "verb: HTTP status", a few
};

// Throws std::invalid_argument when there is nothing to send; every network problem is counted, never
// thrown.
ReplayResult replay(const std::vector<Exchange>& exchanges, const ReplayOptions& options);

}  // namespace kext::load

#pragma once
// The server's connections: who may connect, how long they may take, and which thread reads.
//
// A server that gives each connection a worker for its whole life and bounds each read(2), not a
// request (cpp-httplib's, which served these routes before), lets as many clients as it has workers
// that stall mid-body (or trickle a byte every few seconds, or just hold an idle keep-alive
// connection) take every worker while the scheduler's requests wait. Here one reactor thread owns
// every socket while it is idle or receiving, reads without blocking, and hands a request to a worker
// only once it is whole (RequestFramer). A worker parses it (message.h), has its listener's Router run
// the handler and writes the reply (reply_writer.h); a client that stops reading has its reply's
// remainder moved back to the reactor. After a reply the worker keeps the
// connection for a short window and runs the client's next request itself if it comes whole within it
// (a scheduler sends /prioritize right after /filter): without that, each request pays a second
// cross-core wake-up (reactor -> worker), which slows a 500-node NodeNames filter+prioritize pair
// (docs/performance.md "Benchmarks", end to end).
// Every stage has a bound:
//   - connections: at most `max_connections`; beyond it a 503 and close (counted);
//   - a request: header block ≤ max_header_bytes (431), body ≤ max_body_bytes (413, refused from the
//     declared length, never read), whole request within request_timeout from its first byte —
//     or from accept, on a new connection (408);
//   - idle keep-alive: closed after idle_timeout (longer than Go's 90 s IdleConnTimeout, so the
//     scheduler's client closes first and never races a close);
//   - memory: request bytes buffered across all connections ≤ max_buffered_bytes (503);
//   - workers: `threads`; whole requests waiting for one ≤ max_queued_requests (503 + Retry-After);
//     at most half of them keep a connection after its reply, each for at most keep_window, and
//     they give it back at once when a request waits for a worker;
//   - a reply: drained within write_timeout or the connection is closed.
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "extender/http/request_framing.h"
#include "extender/observe/metrics.h"

namespace kext {

struct TransportLimits {
  size_t threads = 16;            // workers; a connection holds one only while its request runs
  size_t max_connections = 4096;  // open at once, across listeners
  size_t max_header_bytes = kDefaultMaxHeaderBytes;
  size_t max_body_bytes = kDefaultMaxBodyBytes;
  size_t max_queued_requests = 256;             // whole requests waiting for a worker
  size_t max_buffered_bytes = size_t{1} << 30;  // request bytes held across connections
  std::chrono::milliseconds request_timeout{10'000};
  std::chrono::milliseconds idle_timeout{120'000};
  std::chrono::milliseconds write_timeout{10'000};
  // How long a worker keeps a connection after its reply, waiting for the client's next request.
  // kube-scheduler sends /prioritize as soon as its own score plugins are done and the next pod's
  // /filter after its own filters: a few ms at 500 nodes, tens at 5000. Waiting blocks a thread and
  // costs no CPU; 0 = every request goes through the reactor.
  std::chrono::milliseconds keep_window{50};
};

class Router;

struct Listener {
  std::string address;
  int port = 0;                    // 0 = any free port; the bound one after Transport::bind()
  const Router* router = nullptr;  // must outlive the Transport
  SSL_CTX* tls = nullptr;          // null = plain HTTP; must outlive the Transport
};

class Transport {
 public:
  // metrics may be null.
  Transport(TransportLimits limits, std::vector<Listener> listeners, Metrics* metrics);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Binds every listener; false with the reason in *error when one cannot be bound.
  bool bind(std::string* error);
  int port(size_t listener) const { return listeners_[listener].port; }
  // Serves until stop() or a finished drain; returns false if it could not start.
  bool run();
  // Stops at once: the reactor stops, workers finish the request they run, every socket closes.
  void stop();
  // Graceful: stops accepting and closes idle connections; requests being received or run finish (a
  // kept-alive connection is closed after its reply) until none is left or `grace` has passed.
  void drain(std::chrono::milliseconds grace);
  // Requests of which some bytes have arrived but that no worker runs yet.
  size_t receiving() const { return static_cast<size_t>(receiving_.load(std::memory_order_acquire)); }
  // Request bytes held across connections (what --max-buffered-bytes bounds).
  size_t buffered_bytes() const { return buffered_.load(std::memory_order_relaxed); }
  // Whole requests waiting for a worker (what --max-queued-requests bounds).
  size_t queued();

  struct Connection;

 private:
  using Clock = std::chrono::steady_clock;
  struct Poll;

  void reactor_loop();
  void worker_loop();
  void run_request(Connection& c);
  bool await_next(Connection& c);
  enum class Read { kDone, kWouldBlockRead, kWouldBlockWrite, kClosed, kFailed, kOverBudget };
  Read read_some(Connection& c, size_t* n, size_t* chunk);
  void accept_ready(size_t listener);
  void on_event(Connection& c, uint32_t events);
  void read_ready(Connection& c);
  void handshake(Connection& c);
  void advance_request(Connection& c);
  void dispatch(Connection& c);
  void returned(Connection* c);
  void flush(Connection& c);
  void refuse(Connection& c, int status, std::string_view reason, Refusal cause, bool retry_after);
  void refuse_memory(Connection& c);
  void answer_and_close(Connection& c, int status, std::string_view reason, bool retry_after);
  void arm(Connection& c, bool in, bool out);
  void close_connection(Connection* c);
  void set_started(Connection& c, bool started);
  void sweep(Clock::time_point now);
  void wake();

  TransportLimits limits_;
  std::vector<Listener> listeners_;
  std::vector<int> listen_fds_;
  Metrics* metrics_;
  const std::string busy_reply_;  // the 503 for a connection beyond max_connections
  const std::string keep_alive_;  // the Keep-Alive header's value on every kept connection's reply
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  int spare_fd_ = -1;  // given up to accept-and-close when out of descriptors (EMFILE)
  // Wake workers that keep a connection after its reply (await_next): nudge_fd_ when a request waits
  // for a worker (read, so reset, by the worker it wakes), stop_fd_ on stop or drain (never read).
  int nudge_fd_ = -1;
  int stop_fd_ = -1;

  // Reactor-owned.
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<std::unique_ptr<Poll>> polls_;  // epoll tags of the listeners and the wake fd

  // Reactor -> workers.
  std::mutex jobs_mutex_;
  std::condition_variable jobs_cv_;
  std::deque<Connection*> jobs_;
  size_t idle_workers_ = 0;         // waiting on jobs_cv_; under jobs_mutex_
  std::atomic<size_t> keeping_{0};  // workers in await_next
  // Workers -> reactor.
  std::mutex returns_mutex_;
  std::vector<Connection*> returns_;

  std::vector<std::thread> workers_;
  std::atomic<size_t> buffered_{0};
  std::atomic<int64_t> receiving_{0};
  std::atomic<bool> running_{false};
  std::atomic<bool> stop_{false};
  std::atomic<bool> draining_{false};
  std::atomic<int64_t> drain_deadline_ns_{0};
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
};

}  // namespace kext

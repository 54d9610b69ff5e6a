#include "extender/http/transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "extender/http/message.h"
#include "extender/http/receive_buffer.h"
#include "extender/http/reply_writer.h"
#include "extender/http/request_framing.h"
#include "extender/http/router.h"

namespace kext {

namespace {

using Clock = std::chrono::steady_clock;

// How often deadlines are checked: their resolution.
constexpr auto kSweepInterval = std::chrono::milliseconds(100);
// A worker writes its reply itself for at most this long; a client that has not taken it by then
// gets the rest from the reactor, so a client that does not read holds no worker. Loopback takes even the
// largest full-Nodes reply well within it, so only a stalled reader ever reaches it.
constexpr auto kWorkerWriteBudget = std::chrono::milliseconds(200);
// Replies up to this size go out in one send (ConnectionReplies::send): a prioritize reply at hundreds of
// nodes fits, and copying this much costs about as much as one send.
constexpr size_t kCoalesceBytes = 64 * 1024;
// A worker waiting for a kept connection's next request leaves one larger than this to the reactor
// (a NodeNames request for thousands of nodes is well below it; a full-Nodes one for hundreds is above).
constexpr size_t kKeepMaxRequest = size_t{1} << 20;
// Read at most this much from one connection per readiness event, so one fast upload cannot keep
// the reactor from the others.
constexpr size_t kReadPerEvent = size_t{4} << 20;
// One read(2) takes at most kMaxRead. It reads straight into the connection's buffer when that has
// kMinRead of room or the declared length is reserved; the room is zero-filled first (std::string has
// no uninitialised resize before C++23), so in-place reads stay near the kernel's chunk.
constexpr size_t kMinRead = size_t{16} << 10;
constexpr size_t kMaxRead = size_t{256} << 10;
// What an idle kept-alive connection's buffer may keep when memory runs short.
constexpr size_t kKeptCapacity = size_t{1} << 20;
// After refusing a request the transport has not read, it keeps reading (and discarding) this long
// before closing, so that the client sees the refusal rather than a reset from unread data.
constexpr auto kLinger = std::chrono::milliseconds(1000);

int port_of(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
  return 0;
}

enum class Io { kDone, kWouldBlockRead, kWouldBlockWrite, kClosed, kFailed };

Io classify_ssl(SSL* ssl, int r) {
  switch (SSL_get_error(ssl, r)) {
    case SSL_ERROR_WANT_READ:
      return Io::kWouldBlockRead;
    case SSL_ERROR_WANT_WRITE:
      return Io::kWouldBlockWrite;
    case SSL_ERROR_ZERO_RETURN:
      return Io::kClosed;
    default:
      ERR_clear_error();
      return Io::kFailed;
  }
}

// One non-blocking transfer of a plain or TLS socket; *n is the byte count when kDone. tls() is the
// SSL_read or SSL_write call, sock() the recv or send call; a plain socket's 0 is end of stream only
// when reading (would_block says which direction waits).
template <typename Tls, typename Sock>
Io io_transfer(SSL* ssl, size_t* n, Io would_block, const Tls& tls, const Sock& sock) {
  if (ssl) {
    const int r = tls();
    if (r > 0) {
      *n = static_cast<size_t>(r);
      return Io::kDone;
    }
    return classify_ssl(ssl, r);
  }
  while (true) {
    const ssize_t r = sock();
    if (r > 0 || (r == 0 && would_block == Io::kWouldBlockWrite)) {
      *n = static_cast<size_t>(r);
      return Io::kDone;
    }
    if (r == 0) return Io::kClosed;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? would_block : Io::kFailed;
  }
}

Io io_read(int fd, SSL* ssl, char* buf, size_t len, size_t* n) {
  return io_transfer(
      ssl, n, Io::kWouldBlockRead,
      [&] { return SSL_read(ssl, buf, static_cast<int>(std::min<size_t>(len, INT32_MAX))); },
      [&] { return ::recv(fd, buf, len, 0); });
}

Io io_write(int fd, SSL* ssl, const char* buf, size_t len, size_t* n) {
  return io_transfer(
      ssl, n, Io::kWouldBlockWrite,
      [&] { return SSL_write(ssl, buf, static_cast<int>(std::min<size_t>(len, INT32_MAX))); },
      [&] { return ::send(fd, buf, len, MSG_NOSIGNAL); });
}

void signal_fd(int fd) {
  if (fd < 0) return;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t r = ::write(fd, &one, sizeof one);
}

// Descriptors are the one resource a connection flood takes; use every one the hard limit allows.
void raise_descriptor_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

struct Transport::Poll {
  enum Kind { kListener, kWake, kConnection } kind;
  size_t listener = 0;
  Connection* conn = nullptr;
};

struct Transport::Connection {
  enum class Phase { kHandshake, kReading, kRunning, kWriting, kLinger };

  Poll tag{Poll::kConnection, 0, nullptr};
  int fd = -1;
  SSL* ssl = nullptr;
  size_t listener = 0;
  size_t index = 0;  // in connections_
  Phase phase = Phase::kReading;
  ReceiveBuffer in;  // received, not yet consumed; starts at the current request
  RequestFramer framer;
  std::string out;  // to send before anything else (refusals, 100 Continue, a reply's rest)
  size_t out_sent = 0;
  size_t accounted = 0;  // in.capacity() + out.capacity(), as counted in Transport::buffered_
  Clock::time_point deadline;
  Timeout deadline_cause = Timeout::kRequest;
  bool request_started = false;  // a byte of the current request has arrived
  bool continue_sent = false;
  bool close_after_write = false;
  bool broken = false;       // a write failed in the worker
  bool peer_closed = false;  // the client shut its side after sending: answer, then close
  bool over_budget = false;  // await_next met --max-buffered-bytes
  uint32_t armed = 0;
  bool registered = false;
  HttpRequest request;  // the one a worker runs; its vectors and strings reused across requests
};

namespace {

// Memory held for a connection is what its buffers have allocated, not what they hold: a reserved
// body counts from the moment it is reserved.
void sync_accounting(Transport::Connection& c, std::atomic<size_t>& buffered) {
  const size_t now = c.in.capacity() + c.out.capacity();
  if (now >= c.accounted) {
    buffered.fetch_add(now - c.accounted, std::memory_order_relaxed);
  } else {
    buffered.fetch_sub(c.accounted - now, std::memory_order_relaxed);
  }
  c.accounted = now;
}

// Writes a router's replies to the connection: straight to the socket for up to kWorkerWriteBudget,
// then the rest moves to the connection's out buffer for the reactor.
class ConnectionReplies final : public ReplySink {
 public:
  ConnectionReplies(Transport::Connection& c, const ReplyFraming& framing, std::atomic<size_t>& buffered)
      : c_(c), framing_(framing), buffered_(buffered), budget_end_(Clock::now() + kWorkerWriteBudget) {}

  void send(const HttpRequest& req, HttpResponse& res) override {
    std::string head = reply_head(req, res, framing_, std::min(res.body.size(), kCoalesceBytes));
    const std::string_view body = req.is_head() ? std::string_view() : std::string_view(res.body);
    // A reply up to kCoalesceBytes leaves in one send, headers and body: one system call less per
    // request than a send each (send, most of it tcp_sendmsg paid per call, was a large share of a
    // filter request's CPU under perf; docs/performance.md "Figures behind design choices in the
    // code"). Beyond that the copy would cost more than the call.
    if (head.size() + body.size() <= kCoalesceBytes) {
      head.append(body);
      write(head);
    } else if (write(head)) {
      write(body);
    }
  }

 private:
  bool write(std::string_view bytes);

  Transport::Connection& c_;
  const ReplyFraming& framing_;
  std::atomic<size_t>& buffered_;
  Clock::time_point budget_end_;
};

bool ConnectionReplies::write(std::string_view bytes) {
  if (c_.broken) return false;
  const auto spill = [this](std::string_view rest) {
    c_.out.append(rest);
    sync_accounting(c_, buffered_);
    return true;
  };
  if (!c_.out.empty()) return spill(bytes);
  size_t done = 0;
  while (done < bytes.size()) {
    size_t n = 0;
    const Io io = io_write(c_.fd, c_.ssl, bytes.data() + done, bytes.size() - done, &n);
    if (io == Io::kDone) {
      done += n;
      continue;
    }
    if (io == Io::kClosed || io == Io::kFailed) {
      c_.broken = true;
      return false;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(budget_end_ - Clock::now());
    if (left.count() <= 0) return spill(bytes.substr(done));
    pollfd p{c_.fd, static_cast<short>(io == Io::kWouldBlockRead ? POLLIN : POLLOUT), 0};
    ::poll(&p, 1, static_cast<int>(left.count()) + 1);
  }
  return true;
}

}  // namespace

Transport::Transport(TransportLimits limits, std::vector<Listener> listeners, Metrics* metrics)
    : limits_(limits),
      listeners_(std::move(listeners)),
      metrics_(metrics),
      busy_reply_(refusal_reply(
          503, "too many connections (--max-connections " + std::to_string(limits_.max_connections) + ")",
          true)),
      keep_alive_(keep_alive_value(std::chrono::duration_cast<std::chrono::seconds>(limits_.idle_timeout))) {
  // SSL_write reaches write(2), which raises SIGPIPE on a peer that has gone; the error is enough.
  ::signal(SIGPIPE, SIG_IGN);
  raise_descriptor_limit();
  // Made before any thread exists: stop() and drain() write wake_fd_ from other threads.
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  nudge_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

Transport::~Transport() {
  stop();
  for (int fd : listen_fds_) {
    if (fd >= 0) ::close(fd);
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  for (int fd : {wake_fd_, nudge_fd_, stop_fd_}) {
    if (fd >= 0) ::close(fd);
  }
  if (spare_fd_ >= 0) ::close(spare_fd_);
}

bool Transport::bind(std::string* error) {
  for (Listener& l : listeners_) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(l.port);
    if (int rc = ::getaddrinfo(l.address.c_str(), port.c_str(), &hints, &found); rc != 0) {
      if (error) *error = "cannot listen on " + l.address + ":" + port + ": " + gai_strerror(rc);
      return false;
    }
    int fd = -1;
    int last_errno = 0;
    for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
      fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
        last_errno = errno;
        ::close(fd);
        fd = -1;
      }
    }
    ::freeaddrinfo(found);
    if (fd < 0) {
      if (error) {
        *error = "cannot listen on " + l.address + ":" + port + " (" + std::strerror(last_errno) + ")";
      }
      return false;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    l.port = port_of(bound);
    listen_fds_.push_back(fd);
  }
  return true;
}

bool Transport::run() {
  if (listen_fds_.size() != listeners_.size() || stop_) return false;
  if (epoll_fd_ < 0 || wake_fd_ < 0 || nudge_fd_ < 0 || stop_fd_ < 0) return false;
  auto add = [this](int fd, Poll::Kind kind, size_t listener) {
    polls_.push_back(std::make_unique<Poll>(Poll{kind, listener, nullptr}));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = polls_.back().get();
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  };
  add(wake_fd_, Poll::kWake, 0);
  for (size_t i = 0; i < listen_fds_.size(); ++i) add(listen_fds_[i], Poll::kListener, i);

  running_ = true;
  for (size_t i = 0; i < limits_.threads; ++i) workers_.emplace_back([this] { worker_loop(); });
  reactor_loop();

  // Workers finish the request they run (their connections are closed below), then exit.
  {
    std::lock_guard lock(jobs_mutex_);
    stop_ = true;
  }
  jobs_cv_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
  jobs_.clear();
  returns_.clear();
  while (!connections_.empty()) close_connection(connections_.back().get());
  for (int& fd : listen_fds_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  {
    std::lock_guard lock(done_mutex_);
    running_ = false;
  }
  done_cv_.notify_all();
  return true;
}

void Transport::wake() { signal_fd(wake_fd_); }

size_t Transport::queued() {
  std::lock_guard lock(jobs_mutex_);
  return jobs_.size();
}

void Transport::stop() {
  stop_ = true;
  jobs_cv_.notify_all();
  signal_fd(stop_fd_);
  wake();
}

void Transport::drain(std::chrono::milliseconds grace) {
  drain_deadline_ns_ = (Clock::now() + grace).time_since_epoch().count();
  draining_ = true;
  signal_fd(stop_fd_);
  wake();
  std::unique_lock lock(done_mutex_);
  done_cv_.wait_for(lock, grace + std::chrono::seconds(5), [this] { return !running_.load(); });
}

void Transport::reactor_loop() {
  std::vector<epoll_event> events(256);
  auto next_sweep = Clock::now() + kSweepInterval;
  bool listeners_closed = false;
  while (!stop_.load(std::memory_order_acquire)) {
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                               static_cast<int>(kSweepInterval.count()));
    for (int i = 0; i < n; ++i) {
      auto* p = static_cast<Poll*>(events[static_cast<size_t>(i)].data.ptr);
      if (p->kind == Poll::kWake) {
        uint64_t v;
        [[maybe_unused]] ssize_t r = ::read(wake_fd_, &v, sizeof v);
        std::vector<Connection*> back;
        {
          std::lock_guard lock(returns_mutex_);
          back.swap(returns_);
        }
        for (Connection* c : back) returned(c);
      } else if (p->kind == Poll::kListener) {
        if (!listeners_closed) accept_ready(p->listener);
      } else {
        on_event(*p->conn, events[static_cast<size_t>(i)].events);
      }
    }
    const auto now = Clock::now();
    if (draining_.load(std::memory_order_acquire)) {
      if (!listeners_closed) {
        for (int& fd : listen_fds_) {
          ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
          ::close(fd);
          fd = -1;
        }
        listeners_closed = true;
      }
      // Idle keep-alive connections go now; the rest as their request finishes.
      for (size_t i = connections_.size(); i-- > 0;) {
        Connection* c = connections_[i].get();
        if (c->phase == Connection::Phase::kReading && !c->request_started && c->out.empty())
          close_connection(c);
      }
      if (connections_.empty() || now.time_since_epoch().count() >= drain_deadline_ns_.load()) break;
    }
    if (now >= next_sweep) {
      sweep(now);
      next_sweep = now + kSweepInterval;
    }
  }
}

void Transport::accept_ready(size_t listener) {
  const int lfd = listen_fds_[listener];
  while (true) {
    const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && spare_fd_ >= 0) {
        // Out of descriptors: take the spare one to accept the connection only to close it, so the
        // kernel's queue does not keep waking us.
        ::close(spare_fd_);
        const int dropped = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
        if (dropped >= 0) ::close(dropped);
        spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (metrics_) metrics_->count_refusal(Refusal::kConnections);
        if (dropped >= 0) continue;
      }
      return;  // EAGAIN: the queue is empty
    }
    if (connections_.size() >= limits_.max_connections) {
      if (!listeners_[listener].tls) {
        [[maybe_unused]] ssize_t r =
            ::send(fd, busy_reply_.data(), busy_reply_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      }
      ::close(fd);
      if (metrics_) metrics_->count_refusal(Refusal::kConnections);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    auto owned = std::make_unique<Connection>();
    Connection& c = *owned;
    c.tag.conn = &c;
    c.fd = fd;
    c.listener = listener;
    c.index = connections_.size();
    c.framer = RequestFramer(FrameLimits{limits_.max_header_bytes, limits_.max_body_bytes});
    // A new connection must deliver a whole request (and its TLS handshake) within request_timeout.
    c.deadline = Clock::now() + limits_.request_timeout;
    c.deadline_cause = Timeout::kRequest;
    connections_.push_back(std::move(owned));
    if (metrics_) metrics_->add_open_connections(1);
    if (SSL_CTX* ctx = listeners_[listener].tls) {
      c.ssl = SSL_new(ctx);
      if (!c.ssl) {
        close_connection(&c);
        continue;
      }
      SSL_set_fd(c.ssl, fd);
      SSL_set_accept_state(c.ssl);
      c.phase = Connection::Phase::kHandshake;
    }
    arm(c, true, false);
  }
}

void Transport::arm(Connection& c, bool in, bool out) {
  const uint32_t want = (in ? EPOLLIN : 0u) | (out ? EPOLLOUT : 0u) | EPOLLRDHUP;
  if (c.registered && c.armed == want) return;
  epoll_event ev{};
  ev.events = want;
  ev.data.ptr = &c.tag;
  ::epoll_ctl(epoll_fd_, c.registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd, &ev);
  c.registered = true;
  c.armed = want;
}

void Transport::on_event(Connection& c, uint32_t events) {
  switch (c.phase) {
    case Connection::Phase::kHandshake:
      return handshake(c);
    case Connection::Phase::kReading:
      if (!c.out.empty() && (events & EPOLLOUT)) {
        flush(c);
        if (c.phase != Connection::Phase::kReading) return;
      }
      if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) read_ready(c);
      return;
    case Connection::Phase::kWriting:
      if (events & (EPOLLHUP | EPOLLERR)) return close_connection(&c);
      return flush(c);
    case Connection::Phase::kLinger: {
      // Read and drop what the client still sends; close at its end or the linger deadline.
      char drop[16384];
      while (true) {
        size_t n = 0;
        const Io io = io_read(c.fd, c.ssl, drop, sizeof drop, &n);
        if (io == Io::kDone) continue;
        if (io != Io::kWouldBlockRead) return close_connection(&c);
        return;
      }
    }
    case Connection::Phase::kRunning:
      return;  // not registered while a worker has it
  }
}

void Transport::handshake(Connection& c) {
  const int r = SSL_do_handshake(c.ssl);
  if (r == 1) {
    c.phase = Connection::Phase::kReading;
    return read_ready(c);  // the client's first request may already be in OpenSSL's buffer
  }
  switch (classify_ssl(c.ssl, r)) {
    case Io::kWouldBlockRead:
      return arm(c, true, false);
    case Io::kWouldBlockWrite:
      return arm(c, false, true);
    default:
      if (metrics_) metrics_->count_refusal(Refusal::kTls);
      return close_connection(&c);
  }
}

Transport::Read Transport::read_some(Connection& c, size_t* n, size_t* chunk) {
  const size_t old = c.in.size();
  const size_t declared = c.framer.expected_end();
  *n = 0;
  Io io;
  if (declared > c.in.capacity() || c.in.capacity() - old >= kMinRead) {
    // In place: once the header block has declared the length, the whole request gets one
    // allocation instead of a doubling series of copies, slow for a large full-Nodes body on a new
    // connection.
    if (declared > c.in.capacity()) {
      if (buffered_.load(std::memory_order_relaxed) + (declared - c.in.capacity()) >
          limits_.max_buffered_bytes) {
        return Read::kOverBudget;
      }
      c.in.reserve(declared);
    }
    *chunk = std::min(c.in.capacity() - old, kMaxRead);
    io = io_read(c.fd, c.ssl, c.in.spare(), *chunk, n);
    if (io == Io::kDone) c.in.commit(*n);
  } else {
    // Length not known yet and no room: read into the thread's scratch and keep only what came, so
    // an idle or stalled connection holds its bytes, not a read buffer (with many hostile connections
    // open, a buffer each grew RSS by their number).
    thread_local std::vector<char> scratch(kMaxRead);
    *chunk = scratch.size();
    io = io_read(c.fd, c.ssl, scratch.data(), *chunk, n);
    if (io == Io::kDone) {
      if (buffered_.load(std::memory_order_relaxed) + *n > limits_.max_buffered_bytes)
        return Read::kOverBudget;
      c.in.append(scratch.data(), *n);
    }
  }
  sync_accounting(c, buffered_);
  switch (io) {
    case Io::kDone:
      return Read::kDone;
    case Io::kWouldBlockRead:
      return Read::kWouldBlockRead;
    case Io::kWouldBlockWrite:
      return Read::kWouldBlockWrite;
    case Io::kClosed:
      return Read::kClosed;
    case Io::kFailed:
      break;
  }
  return Read::kFailed;
}

void Transport::read_ready(Connection& c) {
  size_t got = 0;
  bool want_out = false;
  while (got < kReadPerEvent) {
    size_t chunk = 0, n = 0;
    const Read r = read_some(c, &n, &chunk);
    if (r == Read::kOverBudget) return refuse_memory(c);
    if (r == Read::kWouldBlockRead) break;
    if (r == Read::kWouldBlockWrite) {
      want_out = true;
      break;
    }
    if (r == Read::kClosed && !c.in.empty()) {
      // Half-closed after a request (printf | nc does this): answer what was sent, then close.
      c.peer_closed = true;
      break;
    }
    if (r != Read::kDone) return close_connection(&c);  // the peer closed or the socket failed
    got += n;
    if (!c.request_started) {
      set_started(c, true);
      if (c.deadline_cause == Timeout::kIdle) {
        c.deadline = Clock::now() + limits_.request_timeout;
        c.deadline_cause = Timeout::kRequest;
      }
    }
    if (!c.framer.headers_done()) c.framer.feed(c.in);  // learns the declared length early
    if (n < chunk) break;                               // drained what the kernel had
  }
  if (got > 0 || c.peer_closed) return advance_request(c);  // a half-closed partial request is closed there
  arm(c, true, want_out || !c.out.empty());
}

void Transport::refuse_memory(Connection& c) {
  refuse(c, 503,
         "the extender holds --max-buffered-bytes (" + std::to_string(limits_.max_buffered_bytes) +
             ") of request bytes; retry",
         Refusal::kMemory, true);
}

void Transport::advance_request(Connection& c) {
  if (c.in.empty()) return arm(c, true, !c.out.empty());
  switch (c.framer.feed(c.in)) {
    case RequestFramer::Status::kRejected: {
      const int status = c.framer.reject_status();
      const Refusal cause = status == 431   ? Refusal::kHeaderTooLarge
                            : status == 413 ? Refusal::kBodyTooLarge
                                            : Refusal::kMalformed;
      return refuse(c, status, c.framer.reject_reason(), cause, false);
    }
    case RequestFramer::Status::kNeedMore:
      if (c.peer_closed) return close_connection(&c);
      if (c.framer.headers_done() && c.framer.expects_continue() && !c.continue_sent) {
        c.continue_sent = true;
        c.out.append(kContinueReply);
        return flush(c);
      }
      return arm(c, true, !c.out.empty());
    case RequestFramer::Status::kComplete:
      return dispatch(c);
  }
}

void Transport::dispatch(Connection& c) {
  bool nudge = false;
  {
    std::unique_lock lock(jobs_mutex_);
    if (jobs_.size() >= limits_.max_queued_requests) {
      lock.unlock();
      return refuse(c, 503,
                    "all workers busy and " + std::to_string(limits_.max_queued_requests) +
                        " requests queued (--max-queued-requests); retry",
                    Refusal::kQueueFull, true);
    }
    if (c.registered) {
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
      c.registered = false;
    }
    c.phase = Connection::Phase::kRunning;
    set_started(c, false);  // the request is the worker's now (and counted in flight by the server)
    jobs_.push_back(&c);
    nudge = idle_workers_ < jobs_.size() && keeping_.load(std::memory_order_acquire) > 0;
  }
  jobs_cv_.notify_one();
  if (nudge) signal_fd(nudge_fd_);
}

void Transport::worker_loop() {
  while (true) {
    Connection* c = nullptr;
    {
      std::unique_lock lock(jobs_mutex_);
      ++idle_workers_;
      jobs_cv_.wait(lock, [this] { return stop_.load() || !jobs_.empty(); });
      --idle_workers_;
      if (stop_.load()) return;
      c = jobs_.front();
      jobs_.pop_front();
    }
    do {
      run_request(*c);
    } while (await_next(*c));
    {
      std::lock_guard lock(returns_mutex_);
      returns_.push_back(c);
    }
    wake();
  }
}

void Transport::run_request(Connection& c) {
  const size_t end = c.framer.request_end();
  const bool draining = draining_.load(std::memory_order_acquire);
  bool close = true;
  try {
    HttpRequest& req = c.request;
    parse_request(std::string_view(c.in).substr(0, end), c.framer.body_start(), c.framer.chunked(), req);
    // Draining: the reply says "Connection: close" and the connection closes after it.
    close = draining || !req.keep_alive();
    const ReplyFraming framing{.close = close, .keep_alive = keep_alive_};
    ConnectionReplies replies(c, framing, buffered_);
    listeners_[c.listener].router->serve(req, replies);
  } catch (...) {
    c.broken = true;  // the router answers the handlers' exceptions; this is out of memory or worse
  }
  c.in.consume(end);
  std::string().swap(c.request.decoded_body);  // a chunked body, rare: not kept with the connection
  if (c.in.empty() && c.in.capacity() > kKeptCapacity &&
      buffered_.load(std::memory_order_relaxed) > limits_.max_buffered_bytes / 2) {
    // Kept-alive connections keep their buffer for the next request of the same size, until
    // memory runs short.
    c.in.release();
  }
  sync_accounting(c, buffered_);
  c.framer.reset();
  c.continue_sent = false;
  if (!c.in.empty()) {  // a pipelined request has begun: its deadline counts from now
    set_started(c, true);
    c.deadline = Clock::now() + limits_.request_timeout;
    c.deadline_cause = Timeout::kRequest;
  } else {
    set_started(c, false);
  }
  c.close_after_write = close;
}

// True when c.in holds the connection's next whole request for this worker to run. A pipelined one is
// run at once. Otherwise the worker waits up to keep_window for it, if no request waits for a worker
// and fewer than half the workers keep a connection, so the reactor's requests always find one. A
// request that has not come whole by then goes back to the reactor with its deadline running.
bool Transport::await_next(Connection& c) {
  if (c.broken || !c.out.empty() || c.close_after_write || c.peer_closed) return false;
  if (stop_.load(std::memory_order_acquire) || draining_.load(std::memory_order_acquire)) return false;
  if (!c.in.empty()) return c.framer.feed(c.in) == RequestFramer::Status::kComplete;
  if (limits_.keep_window.count() <= 0) return false;
  if (keeping_.fetch_add(1, std::memory_order_acq_rel) >= limits_.threads / 2) {
    keeping_.fetch_sub(1, std::memory_order_acq_rel);
    return false;
  }
  {
    std::lock_guard lock(jobs_mutex_);
    if (!jobs_.empty()) {
      keeping_.fetch_sub(1, std::memory_order_acq_rel);
      return false;
    }
  }
  const auto until = Clock::now() + limits_.keep_window;
  // False when the window ends, the server stops or drains, or a request waits for this worker.
  const auto wait_readable = [&] {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0 || stop_.load(std::memory_order_acquire) ||
        draining_.load(std::memory_order_acquire))
      return false;
    pollfd p[3] = {{c.fd, POLLIN, 0}, {nudge_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(p, 3, static_cast<int>(left.count())) <= 0) return false;
    if (p[1].revents & POLLIN) {
      uint64_t v;
      [[maybe_unused]] ssize_t rd = ::read(nudge_fd_, &v, sizeof v);
      return false;
    }
    return p[2].revents == 0;
  };
  // Plain TCP waits before its first read: just after a reply the client has not answered yet, and the
  // read that found nothing (EAGAIN) was a second system call on every kept request (strace: recvfrom
  // twice per request, once failing). TLS reads first: OpenSSL may hold the next record already, which
  // poll(2) on the socket cannot see.
  bool wait_first = c.ssl == nullptr;
  size_t got = 0;
  bool whole = false;
  while (got < kReadPerEvent) {
    if (std::exchange(wait_first, false) && !wait_readable()) break;
    size_t chunk = 0, n = 0;
    const Read r = read_some(c, &n, &chunk);
    if (r == Read::kDone) {
      got += n;
      if (!c.request_started) {
        set_started(c, true);
        c.deadline = Clock::now() + limits_.request_timeout;
        c.deadline_cause = Timeout::kRequest;
      }
      const RequestFramer::Status st = c.framer.feed(c.in);
      if (st == RequestFramer::Status::kComplete) {
        whole = true;
        break;
      }
      // A refusal, or a client waiting for 100 Continue: the reactor answers both. A large upload
      // too: receiving it is the reactor's job, not a worker's.
      if (st == RequestFramer::Status::kRejected || c.framer.expects_continue() ||
          c.framer.expected_end() > kKeepMaxRequest)
        break;
      continue;
    }
    if (r == Read::kClosed) {
      c.peer_closed = true;  // returned() closes it, or answers what came first
      break;
    }
    if (r == Read::kOverBudget) {
      c.over_budget = true;  // returned() refuses it: the reactor owns refusals
      break;
    }
    if (r != Read::kWouldBlockRead || !wait_readable()) break;
  }
  keeping_.fetch_sub(1, std::memory_order_acq_rel);
  return whole;
}

void Transport::returned(Connection* c) {
  if (c->broken) return close_connection(c);
  if (c->over_budget) return refuse_memory(*c);
  const auto now = Clock::now();
  if (!c->out.empty()) {
    c->phase = Connection::Phase::kWriting;
    c->deadline = now + limits_.write_timeout;
    c->deadline_cause = Timeout::kWrite;
    return flush(*c);
  }
  if (c->close_after_write || (c->peer_closed && c->in.empty())) return close_connection(c);
  c->phase = Connection::Phase::kReading;
  if (c->request_started) return advance_request(*c);  // its deadline was set as it began
  c->deadline = now + limits_.idle_timeout;
  c->deadline_cause = Timeout::kIdle;
  arm(*c, true, false);
}

void Transport::flush(Connection& c) {
  while (c.out_sent < c.out.size()) {
    size_t n = 0;
    const Io io = io_write(c.fd, c.ssl, c.out.data() + c.out_sent, c.out.size() - c.out_sent, &n);
    if (io == Io::kDone) {
      c.out_sent += n;
      continue;
    }
    if (io == Io::kWouldBlockWrite || io == Io::kWouldBlockRead) {
      return arm(c, c.phase == Connection::Phase::kReading || io == Io::kWouldBlockRead, true);
    }
    return close_connection(&c);
  }
  std::string().swap(c.out);
  c.out_sent = 0;
  sync_accounting(c, buffered_);
  if (c.phase == Connection::Phase::kReading) return arm(c, true, false);
  if (c.phase != Connection::Phase::kWriting) return;
  if (c.close_after_write) {
    if (c.ssl) return close_connection(&c);
    // A refusal: the client may still be sending what was refused; read and drop it for a moment.
    ::shutdown(c.fd, SHUT_WR);
    c.phase = Connection::Phase::kLinger;
    c.deadline = Clock::now() + kLinger;
    return arm(c, true, false);
  }
  returned(&c);  // the rest of a reply is out: back to keep-alive
}

void Transport::refuse(Connection& c, int status, std::string_view reason, Refusal cause, bool retry_after) {
  if (metrics_) metrics_->count_refusal(cause);
  answer_and_close(c, status, reason, retry_after);
}

void Transport::answer_and_close(Connection& c, int status, std::string_view reason, bool retry_after) {
  set_started(c, false);
  c.in.release();
  c.out.append(refusal_reply(status, reason, retry_after));
  sync_accounting(c, buffered_);
  c.close_after_write = true;
  c.phase = Connection::Phase::kWriting;
  c.deadline = Clock::now() + std::min(limits_.write_timeout, std::chrono::milliseconds(kLinger));
  c.deadline_cause = Timeout::kWrite;
  flush(c);
}

void Transport::sweep(Clock::time_point now) {
  // Downwards: closing one moves the last (already visited) into its place.
  for (size_t i = connections_.size(); i-- > 0;) {
    Connection& c = *connections_[i];
    if (c.phase == Connection::Phase::kRunning || now < c.deadline) continue;
    if (c.phase == Connection::Phase::kLinger) {
      close_connection(&c);
      continue;
    }
    if (metrics_) metrics_->count_timeout(c.deadline_cause);
    if (c.phase == Connection::Phase::kReading && c.request_started) {
      // Tell the client why; counted as a timeout, not also as a refusal.
      answer_and_close(
          c, 408, "request not received within " + std::to_string(limits_.request_timeout.count()) + " ms",
          false);
      continue;
    }
    close_connection(&c);
  }
}

void Transport::set_started(Connection& c, bool started) {
  if (c.request_started == started) return;
  c.request_started = started;
  receiving_.fetch_add(started ? 1 : -1, std::memory_order_acq_rel);
}

void Transport::close_connection(Connection* c) {
  set_started(*c, false);
  if (c->registered) ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd, nullptr);
  if (c->ssl) {
    SSL_shutdown(c->ssl);  // one non-blocking close_notify, best effort
    SSL_free(c->ssl);
    ERR_clear_error();
  }
  ::close(c->fd);
  buffered_.fetch_sub(c->accounted, std::memory_order_relaxed);
  if (metrics_) metrics_->add_open_connections(-1);
  const size_t i = c->index;
  if (i + 1 != connections_.size()) {
    connections_[i] = std::move(connections_.back());
    connections_[i]->index = i;
  }
  connections_.pop_back();
}

}  // namespace kext

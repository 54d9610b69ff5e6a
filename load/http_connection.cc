#include "load/http_connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "json/json.h"

namespace kext::load {

namespace {

constexpr size_t kReadPiece = 256 * 1024;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <typename T>
bool parse_number(std::string_view s, T& out, int base = 10) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

HttpConnection::HttpConnection(std::string host, int port, std::chrono::duration<double> timeout)
    : host_(std::move(host)), port_(port), timeout_(std::chrono::duration_cast<Clock::duration>(timeout)) {}

HttpConnection::~HttpConnection() { close_socket(); }

void HttpConnection::close_socket() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
  consumed_ = 0;
}

HttpFailure HttpConnection::wait(short events, Clock::time_point deadline) const {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return HttpFailure::kTimeout;
    pollfd p{fd_, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (r > 0) return HttpFailure::kNone;  // readable, writable, or an error the next call reports
    if (r < 0 && errno != EINTR) return HttpFailure::kTransport;
  }
}

HttpFailure HttpConnection::connect_socket(Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host_.c_str(), std::to_string(port_).c_str(), &hints, &found) != 0)
    return HttpFailure::kConnect;
  HttpFailure result = HttpFailure::kConnect;
  for (addrinfo* a = found; a && fd_ < 0; a = a->ai_next) {
    fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) continue;
    int err = 0;
    if (::connect(fd_, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        result = wait(POLLOUT, deadline);
        socklen_t len = sizeof err;
        err = result == HttpFailure::kNone && ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) == 0 ? err
                                                                                                       : -1;
      }
    }
    if (err != 0) {
      ::close(fd_);
      fd_ = -1;
      if (result != HttpFailure::kTimeout) result = HttpFailure::kConnect;
    }
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) return result;
  const int one = 1;  // as Go's net/http, which kube-scheduler uses
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  keep_alive_ = true;
  return HttpFailure::kNone;
}

HttpFailure HttpConnection::read_more(Clock::time_point deadline) {
  eof_ = false;
  if (consumed_ == buffer_.size()) {  // keeps the capacity: no allocation once warm
    buffer_.clear();
    consumed_ = 0;
  }
  if (!scratch_) scratch_ = std::make_unique<char[]>(kReadPiece);
  for (;;) {
    // poll first: the reply is rarely there yet, and poll+recv is one syscall fewer than
    // recv (EAGAIN) + poll + recv.
    if (HttpFailure f = wait(POLLIN, deadline); f != HttpFailure::kNone) return f;
    const ssize_t n = ::recv(fd_, scratch_.get(), kReadPiece, 0);
    if (n > 0) {
      buffer_.append(scratch_.get(), static_cast<size_t>(n));
      return HttpFailure::kNone;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    eof_ = n == 0;  // closed by the server
    return HttpFailure::kTransport;
  }
}

HttpFailure HttpConnection::read_chunked(HttpReply& reply, Clock::time_point deadline) {
  for (;;) {
    size_t eol;
    while ((eol = buffer_.find("\r\n", consumed_)) == std::string::npos) {
      if (HttpFailure f = read_more(deadline); f != HttpFailure::kNone) return f;
    }
    std::string_view size_text(buffer_.data() + consumed_, eol - consumed_);
    size_text = trim(size_text.substr(0, size_text.find(';')));
    size_t size = 0;
    if (!parse_number(size_text, size, 16)) return HttpFailure::kTransport;
    consumed_ = eol + 2;
    if (size == 0) {  // trailers, then an empty line
      for (;;) {
        while ((eol = buffer_.find("\r\n", consumed_)) == std::string::npos) {
          if (HttpFailure f = read_more(deadline); f != HttpFailure::kNone) return f;
        }
        const bool last = eol == consumed_;
        consumed_ = eol + 2;
        if (last) return HttpFailure::kNone;
      }
    }
    while (buffer_.size() - consumed_ < size + 2) {
      if (HttpFailure f = read_more(deadline); f != HttpFailure::kNone) return f;
    }
    reply.body.append(buffer_, consumed_, size);
    consumed_ += size + 2;
  }
}

HttpFailure HttpConnection::send_request(std::string_view head, std::string_view body,
                                         Clock::time_point deadline) {
  // Head and body in one sendmsg, so a small request is one segment even with TCP_NODELAY.
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()},
                    {const_cast<char*>(body.data()), body.size()}};
  size_t sent = 0;
  const size_t total = head.size() + body.size();
  while (sent < total) {
    iovec left[2];
    int count = 0;
    for (size_t i = 0, offset = 0; i < 2; offset += parts[i].iov_len, ++i) {
      if (sent >= offset + parts[i].iov_len) continue;
      const size_t skip = sent > offset ? sent - offset : 0;
      left[count++] = {static_cast<char*>(parts[i].iov_base) + skip, parts[i].iov_len - skip};
    }
    msghdr msg{};
    msg.msg_iov = left;
    msg.msg_iovlen = static_cast<size_t>(count);
    const ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n >= 0) {
      sent += static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (HttpFailure f = wait(POLLOUT, deadline); f != HttpFailure::kNone) return f;
    } else if (errno != EINTR) {
      return HttpFailure::kTransport;
    }
  }
  return HttpFailure::kNone;
}

HttpFailure HttpConnection::read_head(HttpReply& reply, BodyFraming& framing, Clock::time_point deadline,
                                      bool& nothing_received) {
  for (;;) {  // 1xx replies precede the real one
    size_t end;
    while ((end = buffer_.find("\r\n\r\n", consumed_)) == std::string::npos) {
      if (HttpFailure f = read_more(deadline); f != HttpFailure::kNone) return f;
      nothing_received = false;
    }
    nothing_received = false;
    std::string_view headers(buffer_.data() + consumed_, end + 2 - consumed_);
    consumed_ = end + 4;
    const size_t line_end = headers.find("\r\n");
    std::string_view status_line = headers.substr(0, line_end);
    if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12 ||
        !parse_number(status_line.substr(9, 3), reply.status)) {
      return HttpFailure::kTransport;
    }
    if (reply.status >= 100 && reply.status < 200) continue;
    keep_alive_ = status_line.substr(0, 8) == "HTTP/1.1";
    framing = {};
    for (size_t at = line_end + 2; at < headers.size();) {
      const size_t next = headers.find("\r\n", at);
      std::string_view line = headers.substr(at, next - at);
      at = next + 2;
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string_view name = trim(line.substr(0, colon));
      const std::string_view value = trim(line.substr(colon + 1));
      if (json::iequals(name, "Content-Length")) {
        if (!parse_number(value, framing.length)) return HttpFailure::kTransport;
        framing.has_length = true;
      } else if (json::iequals(name, "Transfer-Encoding")) {
        framing.chunked = value.find("chunked") != std::string_view::npos;
      } else if (json::iequals(name, "Connection")) {
        if (json::iequals(value, "close")) keep_alive_ = false;
        if (json::iequals(value, "keep-alive")) keep_alive_ = true;
      }
    }
    return HttpFailure::kNone;
  }
}

HttpFailure HttpConnection::read_to_close(HttpReply& reply, Clock::time_point deadline) {
  keep_alive_ = false;
  reply.body.assign(buffer_, consumed_);
  consumed_ = buffer_.size();
  for (;;) {
    if (HttpFailure f = read_more(deadline); f != HttpFailure::kNone) return eof_ ? HttpFailure::kNone : f;
    reply.body.append(buffer_, consumed_);
    consumed_ = buffer_.size();
  }
}

HttpFailure HttpConnection::read_length(HttpReply& reply, size_t length, Clock::time_point deadline) {
  // The body goes straight into its final string: one allocation, recv() as large as what is left.
  const size_t buffered = std::min(length, buffer_.size() - consumed_);
  reply.body.resize(length);
  std::memcpy(reply.body.data(), buffer_.data() + consumed_, buffered);
  consumed_ += buffered;
  for (size_t got = buffered; got < length;) {
    const ssize_t n = ::recv(fd_, reply.body.data() + got, length - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (HttpFailure f = wait(POLLIN, deadline); f != HttpFailure::kNone) return f;
    } else if (!(n < 0 && errno == EINTR)) {
      return HttpFailure::kTransport;
    }
  }
  return HttpFailure::kNone;
}

HttpFailure HttpConnection::exchange(std::string_view head, std::string_view body, HttpReply& reply,
                                     Clock::time_point deadline, bool& nothing_received) {
  nothing_received = true;
  if (HttpFailure f = send_request(head, body, deadline); f != HttpFailure::kNone) return f;
  BodyFraming framing;
  if (HttpFailure f = read_head(reply, framing, deadline, nothing_received); f != HttpFailure::kNone)
    return f;
  // net/http transfer.go readTransfer: chunked first, then Content-Length, else to the connection's end.
  reply.body.clear();
  if (framing.chunked) return read_chunked(reply, deadline);
  if (!framing.has_length) return read_to_close(reply, deadline);
  return read_length(reply, framing.length, deadline);
}

HttpFailure HttpConnection::request(std::string_view method, std::string_view path, std::string_view body,
                                    std::string_view content_type, HttpReply& reply) {
  const auto deadline = Clock::now() + timeout_;
  std::string head;
  head.reserve(160 + path.size() + host_.size() + content_type.size());
  head.append(method).append(" ").append(path).append(" HTTP/1.1\r\nHost: ");
  if (host_.find(':') != std::string::npos) {
    head.append("[").append(host_).append("]");
  } else {
    head.append(host_);
  }
  head.append(":").append(std::to_string(port_)).append("\r\nUser-Agent: extender-load\r\n");
  if (!content_type.empty()) head.append("Content-Type: ").append(content_type).append("\r\n");
  if (method != "GET") head.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  head.append("\r\n");

  for (int attempt = 0;; ++attempt) {
    const bool reused = fd_ >= 0;
    if (!reused) {
      if (HttpFailure f = connect_socket(deadline); f != HttpFailure::kNone) return f;
    }
    bool nothing_received = true;
    HttpFailure f = exchange(head, body, reply, deadline, nothing_received);
    if (f == HttpFailure::kNone) {
      if (!keep_alive_) close_socket();
      return f;
    }
    close_socket();
    // A kept-alive connection the server closed while idle fails before any reply byte: reopen once.
    if (!(f == HttpFailure::kTransport && reused && nothing_received && attempt == 0)) return f;
  }
}

}  // namespace kext::load

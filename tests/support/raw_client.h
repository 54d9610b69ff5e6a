#pragma once
// Loopback TCP sockets driven byte by byte, for tests that must misbehave as no HTTP library will:
// stall mid-headers, trickle, pipeline, half-close.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

namespace kext::testing {

class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    if (fd_ >= 0) {
      int one = 1;
      ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(RawConnection&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  RawConnection(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

  // Reads until `done(received)` holds, the peer closes, or `timeout` passes; returns what arrived.
  template <class Done>
  std::string read_until(Done done, std::chrono::milliseconds timeout) {
    std::string got;
    const auto end = std::chrono::steady_clock::now() + timeout;
    char buf[65536];
    while (!done(got)) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
    return got;
  }
  // One whole HTTP response with a Content-Length body (or whatever arrived by the timeout).
  std::string read_response(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return read_until(&complete_response, timeout);
  }
  // Everything until the server closes the connection.
  std::string read_to_close(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return read_until([](const std::string&) { return false; }, timeout);
  }
  // True once the server has closed (reads EOF) within `timeout`.
  bool closed_within(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char c;
    return ::recv(fd_, &c, 1, MSG_PEEK) <= 0;
  }

  static bool complete_response(const std::string& got) { return response_size(got) > 0; }

  // Bytes of the first whole response in `got` (header block and Content-Length body); 0 if not whole.
  static size_t response_size(std::string_view got) {
    const size_t head = got.find("\r\n\r\n");
    if (head == std::string::npos) return 0;
    const std::string_view headers = got.substr(0, head);
    size_t length = 0;
    for (std::string_view key : {"Content-Length: ", "content-length: "}) {
      const size_t at = headers.find(key);
      if (at != std::string::npos) length = std::stoul(std::string(headers.substr(at + key.size(), 20)));
    }
    return got.size() >= head + 4 + length ? head + 4 + length : 0;
  }

 private:
  int fd_ = -1;
};

inline int status_of(const std::string& response) {
  return response.size() > 12 && response.starts_with("HTTP/1.") ? std::atoi(response.c_str() + 9) : 0;
}

inline std::string body_of(const std::string& response) {
  const size_t head = response.find("\r\n\r\n");
  return head == std::string::npos ? std::string() : response.substr(head + 4);
}

inline std::string post_request(std::string_view path, std::string_view body,
                                std::string_view extra_headers = "") {
  return "POST " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
         std::string(extra_headers) + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         std::string(body);
}

}  // namespace kext::testing

#include "kube/client/transport_error.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kext::kube {

namespace {

std::string seconds_text(std::chrono::milliseconds d) {
  char text[32];
  if (d.count() % 1000 == 0) {
    std::snprintf(text, sizeof text, "%lld s", static_cast<long long>(d.count() / 1000));
  } else {
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(d.count()) / 1000.0);
  }
  return text;
}

TransportFailure connect_failure(const TransportFacts& f, const std::string& url) {
  const std::string where = "cannot connect to " + url + ": ";
  if (!f.resolve_error.empty()) return {"dns", where + "cannot resolve the host: " + f.resolve_error};
  switch (f.connect_errno) {
    case ECONNREFUSED:
      return {"refused", where + "connection refused"};
    case EHOSTUNREACH:
      return {"unreachable", where + "no route to host"};
    case ENETUNREACH:
      return {"unreachable", where + "network is unreachable"};
    case ETIMEDOUT:
      return {"timeout", where + "timed out after " + seconds_text(f.timeout)};
    case 0:
      // The connect that failed a moment ago succeeds now: a server restarting, or a full backlog.
      return {"error", "cannot connect to " + url + " (it accepted a connection just after)"};
    default:
      return {"error", where + std::strerror(f.connect_errno)};
  }
}

}  // namespace

TransportFailure describe_transport_failure(const TransportFacts& f, const std::string& url) {
  const std::string& e = f.error;
  if (e == "Connection") return connect_failure(f, url);
  if (e == "ConnectionTimeout")
    return {"timeout", "cannot connect to " + url + ": timed out after " + seconds_text(f.timeout)};
  if (e == "SSLConnection" || e == "SSLServerVerification" || e == "SSLLoadingCerts") {
    return {"tls",
            "TLS handshake with " + url + " failed" + (f.tls_reason.empty() ? "" : ": " + f.tls_reason)};
  }
  if (e == "Read") {
    if (f.timed_out)
      return {"timeout", "no response from " + url + ": timed out after " + seconds_text(f.timeout)};
    return {"closed", "no response from " + url + ": connection closed"};
  }
  if (e == "Write") return {"closed", "request to " + url + " not sent: connection closed"};
  if (e == "Canceled" || e == "cancelled") return {"cancelled", "cancelled"};
  return {"error", (e.empty() ? std::string("no response") : e) + " (" + url + ")"};
}

namespace {

// One address: a non-blocking connect waited for at most `timeout`.
int connect_errno(const addrinfo& a, std::chrono::milliseconds timeout) {
  const int fd = ::socket(a.ai_family, a.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a.ai_protocol);
  if (fd < 0) return errno;
  int err = 0;
  if (::connect(fd, a.ai_addr, a.ai_addrlen) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int n = ::poll(&p, 1, static_cast<int>(timeout.count()));
      socklen_t len = sizeof err;
      if (n == 0) {
        err = ETIMEDOUT;
      } else if (n < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
      }
    }
  }
  ::close(fd);
  return err;
}

}  // namespace

int probe_connect(const std::string& host, int port, std::chrono::milliseconds timeout,
                  std::string* resolve_error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    *resolve_error = rc == EAI_SYSTEM ? std::strerror(errno) : gai_strerror(rc);
    return -1;
  }
  // As cpp-httplib tries the addresses in order: the first that connects wins; else the first's error.
  int first = 0;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int err = connect_errno(*a, timeout);
    if (err == 0) {
      first = 0;
      break;
    }
    if (first == 0) first = err;
  }
  ::freeaddrinfo(found);
  return first;
}

}  // namespace kext::kube

#include "extender/http/connections.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <charconv>
#include <cstring>

namespace kext {

namespace {

int local_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return -1;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return -1;
}

bool connected(int fd) {
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  return getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0;
}

}  // namespace

size_t shutdown_connections_on_port(int port) {
  if (port <= 0) return 0;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return 0;
  const int dir_fd = dirfd(dir);
  size_t count = 0;
  while (const dirent* e = readdir(dir)) {
    int fd = -1;
    const size_t n = std::strlen(e->d_name);
    auto [p, ec] = std::from_chars(e->d_name, e->d_name + n, fd);
    if (ec != std::errc() || p != e->d_name + n || fd == dir_fd) continue;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    // A client socket of this process talking to the server has the server's port as its *peer*
    // port, so matching the local port selects the server side only.
    if (local_port(fd) != port || !connected(fd)) continue;
    if (::shutdown(fd, SHUT_RDWR) == 0) ++count;
  }
  closedir(dir);
  return count;
}

}  // namespace kext

// The kernel's count of data segments a socket received (tcpi_data_segs_in, Linux 4.6+). Apart from
// the tests that use it: <linux/tcp.h> has it, glibc's <netinet/tcp.h> (which httplib.h includes)
// does not, and the two headers cannot share a translation unit.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

namespace kext {

// -1 when the kernel does not report it.
int64_t tcp_data_segments_in(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return -1;
  if (len < offsetof(tcp_info, tcpi_data_segs_in) + sizeof info.tcpi_data_segs_in) return -1;
  return info.tcpi_data_segs_in;
}

}  // namespace kext

#pragma once
// cpp-httplib 0.11 offers no way to close its idle keep-alive connections: a worker waits on one for
// up to the keep-alive timeout (120 s here) before it notices stop(), and the listener joins every
// worker. A graceful stop therefore shuts those sockets down itself, once no request is in flight.
#include <cstddef>

namespace kext {

// shutdown(2)s (never closes: cpp-httplib owns the descriptors) every connected TCP socket of this
// process whose local port is `port`. Returns how many. Linux: reads /proc/self/fd.
size_t shutdown_connections_on_port(int port);

}  // namespace kext

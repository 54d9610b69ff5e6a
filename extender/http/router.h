#pragma once
// A cpp-httplib Server used only for what it does with a request once the Transport has read it whole:
// routing, handlers, the error and exception handlers, and writing the reply. Its own listener and
// thread pool are never started.
#include <httplib.h>

#include <optional>
#include <string>
#include <string_view>

namespace kext {

class Router : public httplib::Server {
 public:
  // Protected in cpp-httplib 0.11: the step SocketStream-driven serving runs per request.
  using httplib::Server::process_request;
};

// The body of the request this worker thread is running, in place in the transport's buffer, for a
// handler registered with a ContentReader (cpp-httplib then does not copy the body into req.body:
// 9.4 MB at 5000 full Nodes). Empty optional outside a request or for a chunked body, which the
// handler reads through its ContentReader instead. Valid until the handler returns.
std::optional<std::string_view> received_body();

// The body either way: in place, or read through `reader` into `owned`.
inline std::string_view request_body(const httplib::ContentReader& reader, std::string& owned) {
  if (std::optional<std::string_view> body = received_body()) return *body;
  reader([&owned](const char* data, size_t n) {
    owned.append(data, n);
    return true;
  });
  return owned;
}

}  // namespace kext

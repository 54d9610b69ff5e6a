#pragma once
// A cpp-httplib Server used only for what it does with a request once the Transport has read it whole:
// routing, handlers, the error and exception handlers, and writing the reply. Its own listener and
// thread pool are never started.
//
// Beside it, the routes the scheduler calls thousands of times a second (the verbs) are served
// directly: for a plain HTTP/1.1 POST to one of them, serve_direct reads the few headers a verb needs
// from the bytes in place, runs the handler and writes the reply cpp-httplib would have written, byte
// for byte. cpp-httplib's request processing around the handler (a header multimap with
// case-insensitive keys, percent-decoding, std::regex routing, a std::stringstream per reply) was a
// large share of a 500-name filter's user CPU on 5000 nodes (perf, extender outside its handler;
// docs/performance.md "Figures behind design choices in the code"). Anything
// serve_direct is not sure of goes to cpp-httplib instead, which registers the same handler.
#include <httplib.h>

#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kext {

// What a direct route's handler sees of its request (the same from either path). Valid until it returns.
struct DirectRequest {
  std::string_view path;
  std::optional<std::string_view> content_type;  // nullopt: no Content-Type header
  std::string_view content_length;               // the header's value; empty when absent (chunked)
  std::string_view body;
};

struct DirectReply {
  int status = 200;
  std::string body;
};

using DirectHandler = std::function<DirectReply(const DirectRequest&)>;

class Router : public httplib::Server {
 public:
  // Protected in cpp-httplib 0.11: the step SocketStream-driven serving runs per request.
  using httplib::Server::process_request;

  Router();

  // cpp-httplib's keep-alive settings, which also shape the Keep-Alive header of direct replies.
  void set_keep_alive(size_t max_count, time_t timeout_sec);

  // POST `path` runs `handler`; its replies carry `content_type`, which must be one cpp-httplib never
  // compresses (it gzips bare "application/json" for a client that accepts gzip; direct replies are
  // never compressed). Registered with cpp-httplib too, for the requests serve_direct passes on.
  void post_direct(const std::string& path, std::string content_type, DirectHandler handler);

  // Called as cpp-httplib's pre-routing handler and logger are, for direct requests.
  void set_direct_observer(std::function<void(std::string_view path)> on_start,
                           std::function<void(std::string_view path, int status, size_t body_bytes)> on_end);

  // Serves `request` (its whole bytes; the body starts at body_start) when it is a plain HTTP/1.1 POST
  // to a direct route; false, with nothing written, when it must go to process_request. `closing`
  // (the server drains) always goes to cpp-httplib, which answers Connection: close.
  bool serve_direct(std::string_view request, size_t body_start, bool closing, httplib::Stream& out);

  // Off: every request goes through cpp-httplib (tests compare the two).
  void set_direct_enabled(bool on) { direct_enabled_ = on; }

 private:
  struct DirectRoute {
    std::string path;
    std::string content_type;
    DirectHandler handler;
  };

  std::vector<DirectRoute> direct_;
  std::string keep_alive_header_;  // "Keep-Alive: timeout=T, max=M\r\n", as cpp-httplib writes it
  std::function<void(std::string_view)> on_start_;
  std::function<void(std::string_view, int, size_t)> on_end_;
  bool direct_enabled_ = true;
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

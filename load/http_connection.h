#pragma once
// One keep-alive HTTP/1.1 client connection for the load tool. Not cpp-httplib's client: that one
// reads replies in small pieces through a growing string and spent more CPU receiving a full-Nodes
// filter reply than the server spent producing it, so the tool measured itself (docs/performance.md
// "Load test (`bench/run`)"). Go's net/http (what
// kube-scheduler uses) reads bodies in large pieces; this does the same: Content-Length bodies land in
// a string reserved once, with recv() calls as large as the kernel allows.
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace kext::load {

struct HttpReply {
  int status = 0;
  std::string body;
};

enum class HttpFailure {
  kNone,
  kConnect,    // no connection could be made
  kTimeout,    // the whole exchange did not finish within the timeout
  kTransport,  // reset, closed mid-reply, or a reply that is not HTTP/1.x
};

class HttpConnection {
 public:
  HttpConnection(std::string host, int port, std::chrono::duration<double> timeout);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends one request; on kNone, `reply` holds the status and body. A kept-alive connection the server has
  // closed in the meantime is reopened once, as Go's transport does for idempotent-looking retries.
  HttpFailure post(std::string_view path, std::string_view body, std::string_view content_type,
                   HttpReply& reply) {
    return request("POST", path, body, content_type, reply);
  }
  HttpFailure get(std::string_view path, HttpReply& reply) { return request("GET", path, {}, {}, reply); }
  HttpFailure request(std::string_view method, std::string_view path, std::string_view body,
                      std::string_view content_type, HttpReply& reply);

 private:
  using Clock = std::chrono::steady_clock;
  HttpFailure connect_socket(Clock::time_point deadline);
  // How the reply's body ends (net/http transfer.go readTransfer): chunked, at Content-Length, or with
  // the connection.
  struct BodyFraming {
    bool chunked = false;
    bool has_length = false;
    size_t length = 0;
  };
  // One request and its reply; `nothing_received` says whether any reply byte came (a retry is safe).
  HttpFailure exchange(std::string_view head, std::string_view body, HttpReply& reply,
                       Clock::time_point deadline, bool& nothing_received);
  // net/http transport.go persistConn.writeLoop: the request, whole.
  HttpFailure send_request(std::string_view head, std::string_view body, Clock::time_point deadline);
  // net/http transport.go persistConn.readResponse: the status line and headers, 1xx replies skipped.
  HttpFailure read_head(HttpReply& reply, BodyFraming& framing, Clock::time_point deadline,
                        bool& nothing_received);
  HttpFailure read_to_close(HttpReply& reply, Clock::time_point deadline);
  HttpFailure read_length(HttpReply& reply, size_t length, Clock::time_point deadline);
  HttpFailure wait(short events, Clock::time_point deadline) const;
  HttpFailure read_more(Clock::time_point deadline);  // appends to buffer_
  HttpFailure read_chunked(HttpReply& reply, Clock::time_point deadline);
  void close_socket();

  std::string host_;
  int port_;
  Clock::duration timeout_;
  int fd_ = -1;
  bool keep_alive_ = false;
  bool eof_ = false;                 // the last read_more failed because the server closed the connection
  std::string buffer_;               // bytes received; those before consumed_ are used up
  std::unique_ptr<char[]> scratch_;  // what one recv() fills
  size_t consumed_ = 0;
};

}  // namespace kext::load

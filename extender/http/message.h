#pragma once
// One HTTP/1.1 request as the transport framed it, and the reply a handler makes for it.
//
// An HttpRequest is views into the connection's receive buffer: the request line's parts, the header
// lines, the body in place. Only what must be decoded is copied: a percent-encoded path and a
// chunked body (RFC 9112 §7.1). It is valid until the reply has been written.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext {

using HeaderField = std::pair<std::string_view, std::string_view>;

struct HttpRequest {
  std::string_view method;
  std::string_view path;   // percent-decoded, without the query and fragment
  std::string_view query;  // raw, after '?'; empty when there is none
  std::string_view version;
  std::vector<HeaderField> headers;  // in order; names as sent, values without surrounding whitespace
  std::string_view body;

  // The first header of that name (compared without case); nullopt when absent.
  std::optional<std::string_view> header(std::string_view name) const;
  // A query parameter's first value, percent-decoded with '+' as a space (HTML form encoding, which
  // Go's url.Values.Encode writes); nullopt when absent.
  std::optional<std::string> param(std::string_view name) const;
  // Whether the client keeps the connection after this request: HTTP/1.1 unless "Connection: close",
  // HTTP/1.0 only with "Connection: keep-alive" (RFC 9112 §9.3).
  bool keep_alive() const;
  // HEAD is answered as GET without the body (RFC 9110 §9.3.2).
  bool is_head() const { return method == "HEAD"; }

  // Storage for what had to be decoded; reused by the next request on the connection.
  std::string decoded_path;
  std::string decoded_body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;  // empty: text/plain when there is a body
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // others, such as Allow or Retry-After

  void set(int status_code, std::string type, std::string text) {
    status = status_code;
    content_type = std::move(type);
    body = std::move(text);
  }
};

// Fills `req` from one whole framed request: `bytes` from the request line to the end of the body,
// the body starting at `body_start`, chunk-encoded when `chunked`. The framer has checked the syntax
// of the request line, of every header line and of the chunks, so this does not fail.
void parse_request(std::string_view bytes, size_t body_start, bool chunked, HttpRequest& req);

// %XX sequences decoded (a malformed one is kept as written); with plus_as_space, '+' too.
std::string percent_decode(std::string_view s, bool plus_as_space);

}  // namespace kext

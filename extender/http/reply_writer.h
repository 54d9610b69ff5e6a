#pragma once
// Where every reply's bytes are made: a handler's reply, a refusal the transport answers before any
// handler (400, 408, 413, 431, 503), the 503 beyond --max-connections. The status line, then the
// headers ordered by name without case (the order cpp-httplib, which served these routes before,
// wrote them in, so replies to the same request read the same), then the body.
#include <chrono>
#include <string>
#include <string_view>

#include "extender/http/message.h"

namespace kext {

// Every JSON reply's type. Not bare "application/json": cpp-httplib, which once served these routes,
// gzipped that for a client accepting gzip (Go always does), which only costs CPU on loopback; the
// charset keeps clients from expecting it.
inline constexpr std::string_view kJsonContentType = "application/json; charset=utf-8";

// The interim reply to "Expect: 100-continue" (RFC 9110 §10.1.1), sent while the body is awaited.
inline constexpr std::string_view kContinueReply = "HTTP/1.1 100 Continue\r\n\r\n";

// The reason phrase of a status line (RFC 9110 §15); "Internal Server Error" for one not listed.
std::string_view reason_phrase(int status);

struct ReplyFraming {
  bool close = false;           // "Connection: close": the connection closes after this reply
  std::string_view keep_alive;  // otherwise the Keep-Alive header's value (keep_alive_value)
};

// "timeout=T, max=M": how long an idle connection is kept, and no bound on its requests.
std::string keep_alive_value(std::chrono::seconds idle_timeout);

// Makes `res` ready to send to `req` and returns its status line and headers; the body follows unless
// the request is HEAD. A text body is gzipped for a client that accepts gzip, as it always was (a
// Prometheus scrape of /metrics); JSON (kJsonContentType) never is. `room`: capacity to leave after
// the headers, for a caller that sends them and the body in one piece.
std::string reply_head(const HttpRequest& req, HttpResponse& res, const ReplyFraming& framing,
                       size_t room = 0);

// A refusal made before any handler ran, whole (headers and JSON body), with "Connection: close";
// `retry_after` adds "Retry-After: 1" (the client may retry at once).
std::string refusal_reply(int status, std::string_view reason, bool retry_after);

}  // namespace kext

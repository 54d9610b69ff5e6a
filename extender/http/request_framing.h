#pragma once
// Where one HTTP/1.1 request ends in the bytes received so far, before any worker sees it.
//
// The transport reads every connection without a worker and hands a request to one only once it is
// whole, so it must know where the request ends: after the header block, Content-Length bytes or the
// last chunk of a chunked body (RFC 9112 §6). It refuses what it will not buffer as soon as it can
// tell: a header block over the cap (431), a declared or chunked body over the cap (413, without
// reading it), and framing it cannot trust (400: both Content-Length and Transfer-Encoding, two
// different lengths, a transfer coding other than chunked) — the request-smuggling cases RFC 9112
// RFC 9112 §6.3 tells a server to reject. Pure: no I/O, resumable, O(bytes) over a trickled request.
#include <cstddef>
#include <string>
#include <string_view>

namespace kext {

// HTTP/1.1 line ending (RFC 9112 section 2.1).
inline constexpr std::string_view kCrlf = "\r\n";

// The --max-header-bytes and --max-body-bytes defaults.
inline constexpr size_t kDefaultMaxHeaderBytes = size_t{32} << 10;
inline constexpr size_t kDefaultMaxBodyBytes = size_t{64} << 20;

struct FrameLimits {
  size_t max_header_bytes = kDefaultMaxHeaderBytes;
  size_t max_body_bytes = kDefaultMaxBodyBytes;
};

// A header value without the optional whitespace (spaces and tabs) around it (RFC 9110 §5.6.3).
std::string_view trim_ows(std::string_view s);

class RequestFramer {
 public:
  enum class Status { kNeedMore, kComplete, kRejected };

  explicit RequestFramer(FrameLimits limits = {}) : limits_(limits) {}

  // `received` is every byte of this request received so far (it starts at the request line and
  // may run past the request's end: pipelining). Call again with more bytes after kNeedMore.
  Status feed(std::string_view received);

  bool headers_done() const { return stage_ > Stage::kHeaders; }
  // Expect: 100-continue was sent (valid once headers_done()).
  bool expects_continue() const { return expect_continue_; }
  // The whole request's size once the header block has declared it (Content-Length); 0 before, or
  // for a chunked body.
  size_t expected_end() const { return stage_ == Stage::kBody ? body_start_ + content_length_ : 0; }
  // Where the body starts, and whether it is chunk-encoded (valid once headers_done()).
  size_t body_start() const { return body_start_; }
  bool chunked() const { return chunked_; }
  // Bytes of the whole request, header block and body (valid once kComplete).
  size_t request_end() const { return end_; }
  // 400, 413 or 431 and why (valid once kRejected).
  int reject_status() const { return reject_status_; }
  const std::string& reject_reason() const { return reject_reason_; }

  // Ready for the next request on the connection.
  void reset() { *this = RequestFramer(limits_); }

 private:
  enum class Stage { kHeaders, kBody, kChunkSize, kChunkData, kTrailers, kComplete, kRejected };

  Status reject(int status, std::string reason);
  Status parse_headers(std::string_view head);
  Status scan_chunks(std::string_view received);

  FrameLimits limits_;
  Stage stage_ = Stage::kHeaders;
  size_t scanned_ = 0;  // header search resumes here (minus 3 for a split "\r\n\r\n")
  size_t body_start_ = 0;
  size_t content_length_ = 0;
  size_t pos_ = 0;         // chunked: the next unread byte
  size_t chunk_left_ = 0;  // chunked: data bytes (+ CRLF) of the current chunk still to come
  size_t body_bytes_ = 0;  // chunked: data bytes so far
  size_t end_ = 0;
  bool expect_continue_ = false;
  bool chunked_ = false;
  int reject_status_ = 0;
  std::string reject_reason_;
};

}  // namespace kext

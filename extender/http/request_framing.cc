#include "extender/http/request_framing.h"

#include <algorithm>
#include <charconv>

#include "json/json.h"

namespace kext {

namespace {

constexpr size_t kMaxChunkLine = 1024;  // hex size plus extensions; Go writes 4–8 bytes

bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// "GET /path HTTP/1.1": a token, one space, a target without spaces, one space, HTTP/1.x.
bool valid_request_line(std::string_view line) {
  const size_t sp1 = line.find(' ');
  if (sp1 == 0 || sp1 == std::string_view::npos) return false;
  if (!std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(sp1), is_token_char))
    return false;
  const size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return false;
  const std::string_view version = line.substr(sp2 + 1);
  return version == "HTTP/1.1" || version == "HTTP/1.0";
}

}  // namespace

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

RequestFramer::Status RequestFramer::reject(int status, std::string reason) {
  stage_ = Stage::kRejected;
  reject_status_ = status;
  reject_reason_ = std::move(reason);
  return Status::kRejected;
}

RequestFramer::Status RequestFramer::feed(std::string_view received) {
  if (stage_ == Stage::kHeaders) {
    const size_t from = scanned_ >= 3 ? scanned_ - 3 : 0;
    const size_t blank = received.find("\r\n\r\n", from);
    if (blank == std::string_view::npos) {
      if (received.size() > limits_.max_header_bytes) {
        return reject(431, "request header block larger than " + std::to_string(limits_.max_header_bytes) +
                               " bytes (--max-header-bytes)");
      }
      scanned_ = received.size();
      return Status::kNeedMore;
    }
    if (blank + 4 > limits_.max_header_bytes) {
      return reject(431, "request header block larger than " + std::to_string(limits_.max_header_bytes) +
                             " bytes (--max-header-bytes)");
    }
    body_start_ = blank + 4;
    if (Status s = parse_headers(received.substr(0, blank + 2)); s == Status::kRejected) return s;
  }
  switch (stage_) {
    case Stage::kBody:
      if (received.size() - body_start_ < content_length_) return Status::kNeedMore;
      end_ = body_start_ + content_length_;
      stage_ = Stage::kComplete;
      return Status::kComplete;
    case Stage::kChunkSize:
    case Stage::kChunkData:
    case Stage::kTrailers:
      return scan_chunks(received);
    case Stage::kComplete:
      return Status::kComplete;
    case Stage::kRejected:
      return Status::kRejected;
    case Stage::kHeaders:
      break;
  }
  return Status::kNeedMore;
}

// `head`: the request line and header lines, each ending in CRLF.
RequestFramer::Status RequestFramer::parse_headers(std::string_view head) {
  size_t eol = head.find(kCrlf);
  if (!valid_request_line(head.substr(0, eol))) return reject(400, "malformed HTTP request line");
  bool has_length = false, chunked = false;
  for (size_t at = eol + 2; at < head.size(); at = eol + 2) {
    eol = head.find(kCrlf, at);
    const std::string_view line = head.substr(at, eol - at);
    const size_t colon = line.find(':');
    // No space before the colon and no folded continuation lines (RFC 9112 §5.1, §5.2).
    if (colon == std::string_view::npos || colon == 0 ||
        !std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon), is_token_char)) {
      return reject(400, "malformed HTTP header line");
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trim_ows(line.substr(colon + 1));
    if (json::iequals(name, "Content-Length")) {
      size_t n = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || ec != std::errc() || p != value.data() + value.size()) {
        if (ec == std::errc::result_out_of_range) {
          return reject(413, "request body larger than " + std::to_string(limits_.max_body_bytes) +
                                 " bytes (--max-body-bytes)");
        }
        return reject(400, "malformed Content-Length \"" + std::string(value.substr(0, 40)) + "\"");
      }
      if (has_length && n != content_length_) return reject(400, "conflicting Content-Length headers");
      has_length = true;
      content_length_ = n;
    } else if (json::iequals(name, "Transfer-Encoding")) {
      if (chunked || !json::iequals(value, "chunked")) {
        return reject(400, "unsupported Transfer-Encoding \"" + std::string(value.substr(0, 40)) +
                               "\" (only chunked is accepted)");
      }
      chunked = true;
    } else if (json::iequals(name, "Expect")) {
      expect_continue_ = json::iequals(value, "100-continue");
    }
  }
  if (has_length && chunked) return reject(400, "both Content-Length and Transfer-Encoding: chunked");
  if (content_length_ > limits_.max_body_bytes) {
    return reject(413, "request body of " + std::to_string(content_length_) + " bytes is larger than " +
                           std::to_string(limits_.max_body_bytes) + " bytes (--max-body-bytes)");
  }
  stage_ = chunked ? Stage::kChunkSize : Stage::kBody;
  chunked_ = chunked;
  pos_ = body_start_;
  return Status::kNeedMore;
}

RequestFramer::Status RequestFramer::scan_chunks(std::string_view received) {
  while (true) {
    if (stage_ == Stage::kChunkData) {
      if (received.size() - pos_ < chunk_left_) return Status::kNeedMore;
      if (received.substr(pos_ + chunk_left_ - 2, 2) != kCrlf)
        return reject(400, "chunk not followed by CRLF");
      pos_ += chunk_left_;
      stage_ = Stage::kChunkSize;
      continue;
    }
    const size_t eol = received.find(kCrlf, pos_);
    if (eol == std::string_view::npos) {
      if (received.size() - pos_ > kMaxChunkLine) return reject(400, "chunk size line too long");
      return Status::kNeedMore;
    }
    const std::string_view line = received.substr(pos_, eol - pos_);
    pos_ = eol + 2;
    if (stage_ == Stage::kTrailers) {
      if (line.empty()) {
        end_ = pos_;
        stage_ = Stage::kComplete;
        return Status::kComplete;
      }
      if (pos_ - body_start_ - body_bytes_ > limits_.max_header_bytes + limits_.max_body_bytes) {
        return reject(431, "chunked trailers too large");
      }
      continue;
    }
    // kChunkSize: hex digits, then optional ";extension".
    const std::string_view hex = trim_ows(line.substr(0, line.find(';')));
    size_t size = 0;
    auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
    if (hex.empty() || p != hex.data() + hex.size() || ec == std::errc::invalid_argument) {
      return reject(400, "malformed chunk size");
    }
    if (ec == std::errc::result_out_of_range || size > limits_.max_body_bytes - body_bytes_) {
      return reject(413, "chunked request body larger than " + std::to_string(limits_.max_body_bytes) +
                             " bytes (--max-body-bytes)");
    }
    if (size == 0) {
      stage_ = Stage::kTrailers;
      continue;
    }
    body_bytes_ += size;
    chunk_left_ = size + 2;
    stage_ = Stage::kChunkData;
  }
}

}  // namespace kext

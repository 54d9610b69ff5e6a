#include "extender/http/reply_writer.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <span>
#include <vector>

#include "json/append.h"
#include "json/json.h"

namespace kext {

namespace {

bool less_without_case(std::string_view a, std::string_view b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
  });
}

// Text is worth compressing; JSON replies carry kJsonContentType, which is not on this list.
bool compressible(std::string_view type) {
  return (type.starts_with("text/") && type != "text/event-stream") || type == "application/json" ||
         type == "application/xml" || type == "image/svg+xml";
}

bool accepts_gzip(const HttpRequest& req) {
  const std::optional<std::string_view> accepted = req.header("Accept-Encoding");
  return accepted && accepted->find("gzip") != std::string_view::npos;
}

// The body as one gzip member (RFC 1952); false, the body unchanged, if zlib fails.
bool gzip(std::string& body) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return false;
  std::string out(deflateBound(&zs, static_cast<uLong>(body.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(body.data());
  zs.avail_in = static_cast<uInt>(body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return false;
  body.swap(out);
  return true;
}

void append_int(std::string& out, int64_t v) {
  char number[json::kMaxIntBytes];
  out.append(number, json::write_int(number, v));
}

// The status line and `fields`, then the blank line; `room` more bytes reserved after them.
std::string write_head(int status, std::span<const HeaderField> fields, size_t room) {
  const std::string_view reason = reason_phrase(status);
  size_t size = 16 + reason.size();
  for (const auto& [name, value] : fields) size += name.size() + value.size() + 4;
  std::string head;
  head.reserve(size + room);
  head += "HTTP/1.1 ";
  append_int(head, status);
  head += ' ';
  head += reason;
  head += "\r\n";
  for (const auto& [name, value] : fields) {
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  }
  head += "\r\n";
  return head;
}

}  // namespace

std::string keep_alive_value(std::chrono::seconds idle_timeout) {
  return "timeout=" + std::to_string(idle_timeout.count()) + ", max=" + std::to_string(SIZE_MAX);
}

std::string reply_head(const HttpRequest& req, HttpResponse& res, const ReplyFraming& framing, size_t room) {
  std::string_view encoding;
  if (!res.body.empty() && compressible(res.content_type) && accepts_gzip(req) && gzip(res.body)) {
    encoding = "gzip";
  }
  char length[json::kMaxIntBytes];
  const std::string_view content_length(
      length, json::write_int(length, static_cast<int64_t>(res.body.size())) - length);
  std::string_view type = res.content_type;
  if (type.empty() && !res.body.empty()) type = "text/plain";

  // The fields every reply may carry, in order by name; a handler's own are merged into them.
  std::array<HeaderField, 4> standard;
  size_t n = 0;
  if (framing.close) standard[n++] = {"Connection", "close"};
  if (!encoding.empty()) standard[n++] = {"Content-Encoding", encoding};
  standard[n++] = {"Content-Length", content_length};
  if (!type.empty()) standard[n++] = {"Content-Type", type};
  if (!framing.close) standard[n++] = {"Keep-Alive", framing.keep_alive};
  if (res.headers.empty()) return write_head(res.status, std::span(standard.data(), n), room);
  std::vector<HeaderField> fields(standard.begin(), standard.begin() + static_cast<std::ptrdiff_t>(n));
  for (const auto& [name, value] : res.headers) fields.emplace_back(name, value);
  std::stable_sort(fields.begin(), fields.end(), [](const HeaderField& a, const HeaderField& b) {
    return less_without_case(a.first, b.first);
  });
  return write_head(res.status, fields, room);
}

std::string refusal_reply(int status, std::string_view reason, bool retry_after) {
  HttpResponse res;
  res.set(status, std::string(kJsonContentType), json::error_body(reason));
  if (retry_after) res.headers.emplace_back("Retry-After", "1");
  std::string out = reply_head(HttpRequest{}, res, ReplyFraming{.close = true, .keep_alive = {}});
  out += res.body;
  return out;
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 421:
      return "Misdirected Request";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

}  // namespace kext

#include "extender/http/router.h"

#include <algorithm>
#include <utility>

#include "extender/http/request_framing.h"
#include "json/append.h"
#include "json/json.h"

namespace kext {

namespace {

std::string keep_alive_header(size_t max_count, time_t timeout_sec) {
  return "Keep-Alive: timeout=" + std::to_string(timeout_sec) + ", max=" + std::to_string(max_count) + "\r\n";
}

// Paths whose std::regex (cpp-httplib routes by regex_match) matches only the path itself, or more
// paths than it: so an exact match here is one cpp-httplib would route to the same handler.
bool plain_path(std::string_view path) {
  for (char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return !path.empty();
}

// CPPHTTPLIB_HEADER_MAX_LENGTH bounds each line cpp-httplib reads; a longer one it refuses, so it goes
// there.
constexpr size_t kMaxLine = CPPHTTPLIB_HEADER_MAX_LENGTH;

}  // namespace

Router::Router()
    : keep_alive_header_(
          keep_alive_header(CPPHTTPLIB_KEEPALIVE_MAX_COUNT, CPPHTTPLIB_KEEPALIVE_TIMEOUT_SECOND)) {}

void Router::set_keep_alive(size_t max_count, time_t timeout_sec) {
  set_keep_alive_max_count(max_count);
  set_keep_alive_timeout(timeout_sec);
  keep_alive_header_ = keep_alive_header(max_count, timeout_sec);
}

void Router::post_direct(const std::string& path, std::string content_type, DirectHandler handler) {
  Post(path, [this, content_type, handler](const httplib::Request& req, httplib::Response& res,
                                           const httplib::ContentReader& reader) {
    std::string owned;
    const std::string type = req.get_header_value("Content-Type");
    const std::string length = req.get_header_value("Content-Length");
    DirectRequest r{req.path, std::nullopt, length, request_body(reader, owned)};
    if (req.has_header("Content-Type")) r.content_type = type;
    DirectReply reply = handler(r);
    res.status = reply.status;
    res.body = std::move(reply.body);  // moved, not copied (set_content copies)
    res.set_header("Content-Type", content_type);
  });
  if (plain_path(path)) direct_.push_back(DirectRoute{path, std::move(content_type), std::move(handler)});
}

void Router::set_direct_observer(std::function<void(std::string_view)> on_start,
                                 std::function<void(std::string_view, int, size_t)> on_end) {
  on_start_ = std::move(on_start);
  on_end_ = std::move(on_end);
}

bool Router::serve_direct(std::string_view request, size_t body_start, bool closing, httplib::Stream& out) {
  if (!direct_enabled_ || direct_.empty() || closing) return false;
  if (body_start < 4 || body_start > request.size() || request.substr(body_start - 4, 4) != "\r\n\r\n") {
    return false;
  }
  // The request line: exactly "POST <path> HTTP/1.1" for a direct route's path (no query, no
  // percent-encoding: those go to cpp-httplib, which decodes them).
  constexpr std::string_view kMethod = "POST ", kVersion = " HTTP/1.1";
  const size_t line_end = request.find("\r\n");
  if (line_end > kMaxLine || !request.starts_with(kMethod)) return false;
  const std::string_view line = request.substr(0, line_end);
  if (!line.ends_with(kVersion) || line.size() < kMethod.size() + kVersion.size()) return false;
  const std::string_view path = line.substr(kMethod.size(), line.size() - kMethod.size() - kVersion.size());
  const auto route =
      std::find_if(direct_.begin(), direct_.end(), [&](const DirectRoute& r) { return r.path == path; });
  if (route == direct_.end()) return false;

  // Header lines, as cpp-httplib's detail::parse_header reads them: the name up to the first colon, the
  // value without surrounding spaces and tabs. What it would treat specially (Connection, Range, a
  // transfer coding), decode (a '%' in a value) or refuse (an empty value, a line without a colon or
  // ending in a bare LF) goes there; so does a second Content-Type or Content-Length.
  DirectRequest req{path, std::nullopt, {}, request.substr(body_start)};
  bool have_length = false;
  for (size_t pos = line_end + 2; pos < body_start - 2;) {
    const size_t eol = request.find("\r\n", pos);
    const std::string_view h = request.substr(pos, eol - pos);
    pos = eol + 2;
    if (h.size() > kMaxLine || h.find_first_of("\r\n") != std::string_view::npos) return false;
    const size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    const std::string_view name = h.substr(0, colon);
    const std::string_view value = trim_ows(h.substr(colon + 1));
    if (value.empty() || value.find('%') != std::string_view::npos) return false;
    if (json::iequals(name, "Content-Type")) {
      if (req.content_type) return false;
      req.content_type = value;
    } else if (json::iequals(name, "Content-Length")) {
      if (std::exchange(have_length, true)) return false;
      req.content_length = value;
    } else if (json::iequals(name, "Connection") || json::iequals(name, "Range") ||
               json::iequals(name, "Transfer-Encoding")) {
      return false;
    }
  }

  if (on_start_) on_start_(path);
  const DirectReply reply = route->handler(req);
  // What cpp-httplib's write_response_core writes for it: the status line, then the headers in its
  // multimap's (case-insensitive) order.
  const std::string_view reason = reason_phrase(reply.status);
  const std::string& keep_alive = keep_alive_header_;
  std::string head;
  head.reserve(96 + reason.size() + route->content_type.size() + keep_alive.size());
  char number[json::kMaxIntBytes];
  head += "HTTP/1.1 ";
  head.append(number, json::write_int(number, reply.status));
  head += ' ';
  head += reason;
  head += "\r\nContent-Length: ";
  head.append(number, json::write_int(number, static_cast<int64_t>(reply.body.size())));
  head += "\r\nContent-Type: ";
  head += route->content_type;
  head += "\r\n";
  head += keep_alive;
  head += "\r\n";
  if (out.write(head.data(), head.size()) >= 0 && !reply.body.empty()) {
    out.write(reply.body.data(), reply.body.size());
  }
  if (on_end_) on_end_(path, reply.status, req.body.size());
  return true;
}

}  // namespace kext

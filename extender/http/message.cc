#include "extender/http/message.h"

#include <charconv>

#include "extender/http/request_framing.h"
#include "json/json.h"

namespace kext {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The data of a chunked body the framer accepted: chunk-size [; extensions] CRLF data CRLF, up to
// the last (zero-size) chunk; trailers are dropped, as Go's server drops them from Request.Body.
void decode_chunked(std::string_view chunks, std::string& out) {
  out.clear();
  size_t pos = 0;
  while (pos < chunks.size()) {
    const size_t eol = chunks.find(kCrlf, pos);
    if (eol == std::string_view::npos) return;
    const std::string_view line = chunks.substr(pos, eol - pos);
    const std::string_view hex = trim_ows(line.substr(0, line.find(';')));
    size_t size = 0;
    std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
    if (size == 0 || size > chunks.size() - eol - 2) return;
    out.append(chunks.substr(eol + 2, size));
    pos = eol + 2 + size + 2;
  }
}

// The request line "METHOD target VERSION"; the target split into path and query, its fragment
// dropped, the path percent-decoded only when it holds a '%'.
void parse_request_line(std::string_view line, HttpRequest& req) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = line.find(' ', sp1 + 1);
  req.method = line.substr(0, sp1);
  req.version = line.substr(sp2 + 1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('#'));
  const size_t question = target.find('?');
  req.query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  const std::string_view path = target.substr(0, question);
  if (path.find('%') == std::string_view::npos) {
    req.path = path;
  } else {
    req.decoded_path = percent_decode(path, false);
    req.path = req.decoded_path;
  }
}

}  // namespace

std::string percent_decode(std::string_view s, bool plus_as_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
      i += 2;
    } else if (s[i] == '+' && plus_as_space) {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

void parse_request(std::string_view bytes, size_t body_start, bool chunked, HttpRequest& req) {
  req.headers.clear();
  size_t eol = bytes.find(kCrlf);
  parse_request_line(bytes.substr(0, eol), req);
  // Header lines up to the blank line that ends the block (body_start - 2).
  for (size_t at = eol + 2; at + 2 < body_start; at = eol + 2) {
    eol = bytes.find(kCrlf, at);
    const std::string_view line = bytes.substr(at, eol - at);
    const size_t colon = line.find(':');
    req.headers.emplace_back(line.substr(0, colon), trim_ows(line.substr(colon + 1)));
  }
  if (chunked) {
    decode_chunked(bytes.substr(body_start), req.decoded_body);
    req.body = req.decoded_body;
  } else {
    req.body = bytes.substr(body_start);
  }
}

std::optional<std::string_view> HttpRequest::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (json::iequals(n, name)) return v;
  }
  return std::nullopt;
}

std::optional<std::string> HttpRequest::param(std::string_view name) const {
  for (size_t pos = 0; pos <= query.size();) {
    size_t amp = query.find('&', pos);
    if (amp == std::string_view::npos) amp = query.size();
    const std::string_view pair = query.substr(pos, amp - pos);
    const size_t eq = pair.find('=');
    if (percent_decode(pair.substr(0, eq), true) == name) {
      return eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1), true);
    }
    pos = amp + 1;
  }
  return std::nullopt;
}

bool HttpRequest::keep_alive() const {
  const std::optional<std::string_view> connection = header("Connection");
  if (version == "HTTP/1.0") return connection && json::iequals(*connection, "keep-alive");
  return !connection || !json::iequals(*connection, "close");
}

}  // namespace kext

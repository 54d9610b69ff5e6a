#include "load/target.h"

#include <charconv>
#include <stdexcept>

#include "common/url_path.h"

namespace kext::load {

Target parse_target(const std::string& url) {
  const std::string scheme = "http://";
  if (!url.starts_with(scheme))
    throw std::invalid_argument("--url: expected http://host:port[/prefix], got \"" + url + "\"");
  std::string rest = url.substr(scheme.size());
  Target t;
  const size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  // Trimmed as kube-scheduler trims urlPrefix: every trailing slash goes, exactly one is added.
  if (slash != std::string::npos) t.prefix = normalized_path_prefix(rest.substr(slash));
  // "[::1]:8888": the port follows the bracket; a bare IPv6 address has no port.
  const size_t close = authority.find(']');
  const size_t colon = authority.rfind(':');
  const bool has_port = colon != std::string::npos &&
                        (close == std::string::npos ? authority.find(':') == colon : colon > close);
  if (has_port) {
    std::string port = authority.substr(colon + 1);
    int v = 0;
    auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
    if (ec != std::errc() || p != port.data() + port.size() || v < 1 || v > 65535) {
      throw std::invalid_argument("--url: bad port \"" + port + "\"");
    }
    t.port = v;
    authority.resize(colon);
  }
  if (authority.size() >= 2 && authority.front() == '[' && authority.back() == ']') {
    authority = authority.substr(1, authority.size() - 2);
  }
  if (authority.empty()) throw std::invalid_argument("--url: missing host in \"" + url + "\"");
  t.host = authority;
  return t;
}

}  // namespace kext::load

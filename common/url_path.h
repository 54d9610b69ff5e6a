#pragma once
// Path prefixes of URLs: the extender's --path-prefix, a scheduler's urlPrefix, extender-load's --url,
// extender-sim's --extender, a kubeconfig's server. kube-scheduler joins urlPrefix and the verb with
// one '/' (pkg/scheduler/extender.go HTTPExtender.send), so trailing slashes do not count. The one
// place the project normalises them.
#include <string>
#include <string_view>

namespace kext {

// `s` without its trailing '/'s.
inline std::string_view without_trailing_slashes(std::string_view s) {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

// A path prefix as served and joined: "" or "/path", without a trailing '/' ("scheduler/" is
// "/scheduler", "/" is "").
inline std::string normalized_path_prefix(std::string_view prefix) {
  const std::string_view p = without_trailing_slashes(prefix);
  if (p.empty() || p.front() == '/') return std::string(p);
  return "/" + std::string(p);
}

}  // namespace kext

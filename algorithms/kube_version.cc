#include "algorithms/kube_version.h"

#include <charconv>

namespace kext {

namespace {

// Digits at the front of `text`, consumed; nullopt when there are none.
std::optional<int> leading_number(std::string_view& text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return value;
}

}  // namespace

std::optional<KubeVersion> parse_kube_version(std::string_view text) {
  if (text.starts_with('v')) text.remove_prefix(1);
  const std::optional<int> major = leading_number(text);
  if (major != 1 || !text.starts_with('.')) return std::nullopt;
  text.remove_prefix(1);
  const std::optional<int> minor = leading_number(text);
  if (!minor) return std::nullopt;
  // What may follow the minor: nothing, a patch ("." digits) and then anything a build adds
  // ("-gke.100", "+k3s1"), as kube-apiserver's gitVersion carries it.
  if (!text.empty()) {
    if (text.front() != '.') return std::nullopt;
    text.remove_prefix(1);
    if (!leading_number(text)) return std::nullopt;
    if (!text.empty() && text.front() != '-' && text.front() != '+') return std::nullopt;
  }
  return KubeVersion{*minor};
}

KubeVersion clamp_supported(KubeVersion v, std::string* note) {
  KubeVersion out = v;
  if (v.minor < KubeVersion::kOldestMinor) out = KubeVersion::oldest();
  if (v.minor > KubeVersion::kNewestMinor) out = KubeVersion::newest();
  if (note) {
    *note = out == v ? std::string()
                     : v.str() + " is not reproduced by this extender (" + KubeVersion::oldest().str() +
                           " to " + KubeVersion::newest().str() + "): " + out.str() + "'s semantics run";
  }
  return out;
}

}  // namespace kext

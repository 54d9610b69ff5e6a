#include "policy/version_choice.h"

#include <stdexcept>

namespace kext {

namespace {

std::string supported_range() {
  return "supported: " + KubeVersion::oldest().str() + " to " + KubeVersion::newest().str();
}

// The server's answer as the minor in force: clamped into the supported range, or the newest when it
// failed or named no version.
VersionInForce from_server(const ServerVersion& server) {
  VersionInForce out;
  out.server_git_version = server.git_version;
  if (!server.error.empty()) {
    out.warning = "the API server's /version failed (" + server.error + "): " + KubeVersion::newest().str() +
                  "'s semantics run";
    return out;
  }
  const std::optional<KubeVersion> parsed = parse_kube_version(server.git_version);
  if (!parsed) {
    out.warning = "the API server's /version gitVersion \"" + server.git_version +
                  "\" is not a Kubernetes version: " + KubeVersion::newest().str() + "'s semantics run";
    return out;
  }
  out.version = clamp_supported(*parsed, &out.warning);
  out.source = VersionSource::kApiServer;
  return out;
}

}  // namespace

VersionInForce resolve_version(const VersionChoice& choice, std::optional<KubeVersion> configured) {
  if (choice.flag) return VersionInForce{*choice.flag, VersionSource::kFlag, {}, {}};
  if (configured) return VersionInForce{*configured, VersionSource::kConfiguration, {}, {}};
  if (choice.server) return from_server(*choice.server);
  return VersionInForce{};
}

std::optional<KubeVersion> parse_supported_version(std::string_view text, std::string* why) {
  const std::optional<KubeVersion> v = parse_kube_version(text);
  if (!v) {
    *why = "\"" + std::string(text) +
           "\" is not a Kubernetes version such as \"1.34\", \"v1.34\" or \"1.34.2\" (" + supported_range() +
           ")";
    return std::nullopt;
  }
  if (!supported(*v)) {
    *why = "\"" + std::string(text) + "\": " + v->str() + " is not reproduced by this extender (" +
           supported_range() + ")";
    return std::nullopt;
  }
  return v;
}

KubeVersion parse_version_flag(std::string_view text) {
  std::string why;
  const std::optional<KubeVersion> v = parse_supported_version(text, &why);
  if (!v) throw std::invalid_argument(why);
  return *v;
}

std::string version_flag_help() {
  return "the kube-scheduler minor whose plugin and preemption semantics run, " +
         KubeVersion::oldest().str() + " to " + KubeVersion::newest().str() +
         " (default: the configuration's kubernetesVersion, else the API server's /version, else " +
         KubeVersion::newest().str() + ")";
}

std::string describe(const VersionInForce& v) {
  std::string why;
  switch (v.source) {
    case VersionSource::kFlag:
      why = "--kubernetes-version";
      break;
    case VersionSource::kConfiguration:
      why = "the configuration's kubernetesVersion";
      break;
    case VersionSource::kApiServer:
      why = "from the API server's /version " + v.server_git_version;
      break;
    case VersionSource::kNewest:
      why = v.warning.empty() ? "the newest supported: no API server"
                              : "the newest supported: no version from the API server";
      break;
  }
  return "kube-scheduler " + v.version.str() + " semantics (" + why + ")";
}

std::string_view source_label(VersionSource source) {
  switch (source) {
    case VersionSource::kFlag:
      return "flag";
    case VersionSource::kConfiguration:
      return "config";
    case VersionSource::kApiServer:
      return "apiserver";
    case VersionSource::kNewest:
      break;
  }
  return "default";
}

}  // namespace kext

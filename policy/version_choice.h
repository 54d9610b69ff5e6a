#pragma once
// Which kube-scheduler minor's semantics run (algorithms/kube_version.h), and where that came from. In
// this precedence: --kubernetes-version, else the configuration's kubernetesVersion, else the API
// server's /version (its gitVersion, as kubectl version prints it) when the process talks to one, else
// the newest minor this project reproduces. A server outside the supported range is clamped
// (clamp_supported), a /version that failed falls back to the newest: both with a warning.
#include <optional>
#include <string>
#include <string_view>

#include "algorithms/kube_version.h"

namespace kext {

// Where the minor in force came from, highest precedence first.
enum class VersionSource { kFlag, kConfiguration, kApiServer, kNewest };

// What GET /version answered (k8s.io/apimachinery pkg/version/types.go Info.GitVersion), or why it
// could not be read.
struct ServerVersion {
  std::string git_version;  // "v1.36.3"; empty when the request failed
  std::string error;        // the request's failure; empty when it was read
};

// What a process knows before its configuration loads: load_scheduling_file (policy/config.h) takes it.
struct VersionChoice {
  std::optional<KubeVersion> flag;      // --kubernetes-version (parse_supported_version)
  std::optional<ServerVersion> server;  // nullopt: the process talks to no API server
};

// The minor in force and why.
struct VersionInForce {
  KubeVersion version = KubeVersion::newest();
  VersionSource source = VersionSource::kNewest;
  std::string server_git_version;  // the server's gitVersion, whenever it was read
  // For the operator when the server decided or was asked to: a minor outside the supported range
  // (clamp_supported's note), a /version that failed or named no version. Empty otherwise.
  std::string warning;
  bool operator==(const VersionInForce&) const = default;
};

// The precedence above; `configured` is the configuration's kubernetesVersion. The server is consulted
// only when neither the flag nor the file says.
VersionInForce resolve_version(const VersionChoice& choice, std::optional<KubeVersion> configured);

// A version an operator wrote (--kubernetes-version, kubernetesVersion): "1.34", "v1.34", "1.34.2",
// within the supported range. nullopt, and `why` saying what is wrong and naming the range, otherwise.
std::optional<KubeVersion> parse_supported_version(std::string_view text, std::string* why);

// --kubernetes-version's value (kube-extender and extender-sim): parse_supported_version, its `why` as
// std::invalid_argument. And what their --help says of it.
KubeVersion parse_version_flag(std::string_view text);
std::string version_flag_help();

// The start-up line: "kube-scheduler 1.36 semantics (from the API server's /version v1.36.3)".
std::string describe(const VersionInForce& v);
// The `source` label of kube_extender_kubernetes_semantics_info: flag, config, apiserver, default.
std::string_view source_label(VersionSource source);

}  // namespace kext

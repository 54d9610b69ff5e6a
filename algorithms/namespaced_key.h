#pragma once
// "namespace/name": the key of a namespaced object, as client-go's cache keys it
// (k8s.io/client-go/tools/cache/store.go MetaNamespaceKeyFunc) and kube-scheduler names a pod in its
// logs (klog.KObj). The one place the project joins or splits it. A namespace never contains '/'.
#include <string>
#include <string_view>

namespace kext {

inline std::string namespaced_key(std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  return key.append(namespace_).append("/").append(name);
}

struct NamespacedName {
  std::string_view namespace_;  // "" for a key without '/' (a cluster-scoped object's name)
  std::string_view name;
};

// A key back into its parts, as cache.SplitMetaNamespaceKey: up to the first '/', the namespace.
inline NamespacedName split_namespaced_key(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {{}, key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace kext

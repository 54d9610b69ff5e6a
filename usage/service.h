#pragma once
// The extender's usage source as its configuration's `usage:` section says (policy/usage_config.h): the
// source, its Store publishing into the StateStore that the verbs read (StateStore::usage), and the
// poller that feeds it.
#include <functional>
#include <memory>
#include <string_view>

#include "kube/client/api_client.h"
#include "kube/state/cluster_state.h"
#include "policy/usage_config.h"
#include "usage/poller.h"
#include "usage/prometheus_source.h"
#include "usage/usage_store.h"

namespace kext::usage {

// A node's allocatable as `state`'s current node object has it.
AllocatableOf allocatable_from(const StateStore& state);
// How a Prometheus label value names a node of `state` (policy/usage_config.h nodeLabel): with its port
// stripped, a node's name, else the node whose kubernetes.io/hostname label it is; "" for neither.
NodeResolver node_resolver_from(const StateStore& state);

class Service {
 public:
  // api: the extender's API client, required by the metricsAPI source (std::runtime_error without).
  // on_error: after each failed fetch, on the poller's thread. `state` must outlive the Service.
  Service(const UsageConfig& config, kube::ApiClient* api, StateStore& state, std::function<void()> on_error);
  ~Service();  // stop()
  void start() { poller_->start(); }
  void stop() { poller_->stop(); }
  const Store& store() const { return *store_; }
  std::string_view source_name() const { return source_->name(); }

 private:
  std::unique_ptr<Source> source_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Poller> poller_;
};

}  // namespace kext::usage

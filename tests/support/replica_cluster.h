#pragma once
// Extender replicas with --enable-bind --leader-elect against the in-repo API server, behind a
// connection-pinning balancer (tcp_balancer.h), and the SchedulerClientConfig that drives them: the
// shipped high-availability set-up on loopback, for the failover test and bench/ha_bind_bench.cc.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/extender_process.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/scheduler_client.h"
#include "tests/support/tcp_balancer.h"

namespace kext::testing {

struct ReplicaClusterShape {
  int nodes = 10;
  int64_t node_milli = 4000;    // node_json(name, "4")
  int max_pods_per_node = 110;  // node_json's allocatable pods
  int pods = 1000;
  int64_t pod_milli = 36;
  // --leader-elect-lease-duration, -renew-deadline, -retry-period
  std::vector<std::string> election = {"--leader-elect-lease-duration", "3s",
                                       "--leader-elect-renew-deadline", "2s",
                                       "--leader-elect-retry-period",   "200ms"};
  // Node i's and pod i's objects in the API server (default: 4 CPUs, and pod_milli of CPU); pod i's is
  // also what the scheduler sends in its calls.
  std::function<std::string(int)> node_object;
  std::function<std::string(int)> pod_object;
  std::vector<std::string> extender_args;  // added to each replica's command line
};

inline const std::string kLeaseKey = "kube-extender/kube-extender";

class ReplicaCluster {
 public:
  static std::string node_name(int i) { return "n" + std::to_string(i); }
  static std::string pod_name(int i) { return "p" + std::to_string(i); }

  // binary: the kube-extender executable.
  ReplicaCluster(std::string binary, ReplicaClusterShape shape)
      : binary_(std::move(binary)), shape_(std::move(shape)) {
    for (int i = 0; i < shape_.nodes; ++i)
      api.put("nodes", shape_.node_object ? shape_.node_object(i) : node_json(node_name(i), "4", "64Gi"));
    for (int i = 0; i < shape_.pods; ++i) {
      api.put("pods", shape_.pod_object
                          ? shape_.pod_object(i)
                          : pod_json("default", pod_name(i), "", std::to_string(shape_.pod_milli) + "m"));
    }
    kubeconfig_ = write_temp("replica-cluster-kubeconfig", api.kubeconfig(true));
  }

  // Starts replica `id`; its port is 0 when it did not start (its log says why).
  ExtenderProcess& start(const std::string& id) {
    std::vector<std::string> args = {"--kubeconfig",
                                     kubeconfig_,
                                     "--enable-bind",
                                     "--leader-elect",
                                     "--leader-elect-identity",
                                     id,
                                     "--shutdown-delay-seconds",
                                     "1"};
    args.insert(args.end(), shape_.election.begin(), shape_.election.end());
    args.insert(args.end(), shape_.extender_args.begin(), shape_.extender_args.end());
    replicas[id] = std::make_unique<ExtenderProcess>(binary_, args);
    return *replicas[id];
  }
  // The balancer routes to the replicas that run now.
  void publish() {
    std::vector<int> ports;
    for (auto& [id, p] : replicas) {
      if (p) ports.push_back(p->port());
    }
    lb.set_backends(ports);
  }
  // A holder in the Lease and `n` replicas ready behind the balancer.
  bool wait_ready(size_t n, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    return wait_until([&] { return !api.lease_holder(kLeaseKey).empty() && lb.ready_count() == n; }, limit);
  }

  SchedulerClientConfig client() {
    SchedulerClientConfig c;
    c.port = lb.port();
    for (int i = 0; i < shape_.nodes; ++i) c.nodes.push_back(node_name(i));
    c.node_milli = shape_.node_milli;
    c.max_pods_per_node = shape_.max_pods_per_node;
    for (int i = 0; i < shape_.pods; ++i) c.pods.push_back(pod_name(i));
    c.pod_milli = shape_.pod_milli;
    if (shape_.pod_object) {
      std::map<std::string, std::string> objects;
      for (int i = 0; i < shape_.pods; ++i) objects[pod_name(i)] = shape_.pod_object(i);
      c.pod_body = [objects = std::move(objects)](const std::string& name) { return objects.at(name); };
    }
    c.bound_in_api = [this](const std::string& name) {
      for (const auto& b : api.bindings()) {
        if (b.name == name) return b.node;
      }
      return std::string();
    };
    return c;
  }
  const ReplicaClusterShape& shape() const { return shape_; }

  FakeApiServer api;
  std::map<std::string, std::unique_ptr<ExtenderProcess>> replicas;
  Balancer lb;  // declared after the replicas: it stops relaying before they are stopped

 private:
  std::string binary_;
  ReplicaClusterShape shape_;
  std::string kubeconfig_;
};

}  // namespace kext::testing

// NodePorts: the cases of kube-scheduler's pkg/scheduler/framework/plugins/nodeports/node_ports_test.go
// (TestNodePorts, TestFits) over this model's PodMeta::host_ports.
#include "algorithms/filters/node_ports.h"

#include <gtest/gtest.h>

#include "tests/support/test_builders.h"

namespace kext {
namespace node_ports_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;

// "PROTOCOL/hostIP/port", as node_ports_test.go's newPod spells a port.
HostPort port(std::string_view spec) {
  const size_t a = spec.find('/'), b = spec.rfind('/');
  return HostPort{std::stoi(std::string(spec.substr(b + 1))), std::string(spec.substr(0, a)),
                  std::string(spec.substr(a + 1, b - a - 1))};
}

Pod pod_with_ports(std::string name, std::initializer_list<std::string_view> ports) {
  Pod p = make_pod(std::move(name), 100, 0);
  for (auto s : ports) p.host_ports.push_back(port(s));
  return p;
}

const std::vector<std::string> kReason{"node(s) didn't have free ports for the requested pod ports"};

TEST(NodePorts, Names) {
  EXPECT_EQ(make_node_ports_filter()->name(), "PodFitsHostPorts");
  EXPECT_EQ(make_node_ports_filter(kNodePortsPlugin)->name(), "NodePorts");
}

struct Case {
  const char* name;
  std::initializer_list<std::string_view> pod;       // the incoming pod's ports
  std::initializer_list<std::string_view> existing;  // one pod already on the node
  bool fits;
};

// TestNodePorts and TestFits, whose cases put one existing pod on the node.
TEST(NodePorts, ConflictsAsKubeSchedulerFindsThem) {
  const Case cases[] = {
      {"other port", {"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/9090"}, true},
      {"same udp port", {"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/8080"}, false},
      {"same tcp port", {"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}, false},
      {"different host ip", {"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.2/8080"}, true},
      {"different protocol", {"UDP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"}, true},
      {"second udp port conflict",
       {"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"},
       {"UDP/127.0.0.1/8080"},
       false},
      {"first tcp port conflict",
       {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"},
       {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"},
       false},
      {"first tcp port conflict due to 0.0.0.0 hostIP", {"TCP/0.0.0.0/8001"}, {"TCP/127.0.0.1/8001"}, false},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       {"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"},
       {"TCP/127.0.0.1/8001"},
       false},
      {"second tcp port conflict to 0.0.0.0 hostIP", {"TCP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"}, false},
      {"second different protocol", {"UDP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"}, true},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP",
       {"UDP/127.0.0.1/8001"},
       {"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"},
       false},
      // TestFits.
      {"non-conflicting ports", {"TCP/127.0.0.1/80"}, {"TCP/127.0.0.1/9090"}, true},
      {"multiple non-conflicting ports",
       {"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"},
       {"TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"},
       true},
      {"same ports on different protocols", {"TCP/127.0.0.1/80"}, {"UDP/127.0.0.1/80"}, true},
      {"conflicting ports", {"TCP/127.0.0.1/80"}, {"TCP/127.0.0.1/80"}, false},
      {"multiple ports, some conflicting",
       {"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"},
       {"TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"},
       false},
      // HostPortInfo.sanitize: an empty host IP is 0.0.0.0, an empty protocol TCP.
      {"empty host ip is the wildcard", {"TCP//8001"}, {"TCP/127.0.0.1/8001"}, false},
      {"existing empty host ip is the wildcard", {"TCP/127.0.0.1/8001"}, {"TCP//8001"}, false},
      {"empty protocol is TCP", {"/127.0.0.1/8001"}, {"TCP/127.0.0.1/8001"}, false},
      {"empty protocol is not UDP", {"/127.0.0.1/8001"}, {"UDP/127.0.0.1/8001"}, true},
      // Only 0.0.0.0 is HostPortInfo's wildcard: "::" is an address like any other there.
      {"IPv6 any is not the wildcard", {"TCP/::/8001"}, {"TCP/127.0.0.1/8001"}, true},
  };
  auto f = make_node_ports_filter();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Pod p = pod_with_ports("p", c.pod);
    const NodeInfo node = node_info(make_node("m1", 1000, 0), {pod_with_ports("existing", c.existing)});
    const FilterStatus s = f->filter(PodContext(p), node);
    if (c.fits) {
      EXPECT_TRUE(s.ok());
      EXPECT_TRUE(s.reasons.empty());
    } else {
      EXPECT_EQ(s.code, FilterCode::kUnschedulable);
      EXPECT_EQ(s.reasons, kReason);
    }
  }
}

// "skip filter", "non-sidecar initContainer using hostPort": a pod without host ports (the decoder
// keeps no ports of a plain init container) is left out of the loop, and would pass anyway.
TEST(NodePorts, APodWithoutHostPortsCannotFail) {
  auto f = make_node_ports_filter();
  const Pod p = make_pod("p", 100, 0);
  EXPECT_FALSE(f->can_fail(PodContext(p)));
  const NodeInfo node =
      node_info(make_node("m1", 1000, 0), {pod_with_ports("existing", {"TCP/0.0.0.0/8001"})});
  EXPECT_TRUE(f->filter(PodContext(p), node).ok());
  EXPECT_TRUE(f->can_fail(PodContext(pod_with_ports("q", {"TCP/0.0.0.0/8001"}))));
}

// Every pod on the node counts, not only the first; an empty node has every port free.
TEST(NodePorts, EveryPodOnTheNodeCounts) {
  auto f = make_node_ports_filter();
  const Pod p = pod_with_ports("p", {"TCP/0.0.0.0/443"});
  EXPECT_TRUE(f->filter(PodContext(p), node_info(make_node("m1", 1000, 0))).ok());
  const NodeInfo node =
      node_info(make_node("m1", 1000, 0), {make_pod("a", 100, 0), pod_with_ports("b", {"TCP/0.0.0.0/80"}),
                                           pod_with_ports("c", {"TCP/10.0.0.1/443"})});
  EXPECT_EQ(f->filter(PodContext(p), node).code, FilterCode::kUnschedulable);
}

}  // namespace
}  // namespace node_ports_test
}  // namespace kext

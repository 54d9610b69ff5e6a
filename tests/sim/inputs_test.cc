// extender-sim's inputs (sim/inputs.h): the cluster snapshot and the workload.
#include "sim/inputs.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "json/json.h"

namespace kext::simtool {
namespace inputs_test {
namespace {

using std::chrono::seconds;

struct Expanded {
  std::string ns_name;
  std::string uid;
  int32_t priority;
  bool controlled;
  std::optional<sim::SimDuration> grace;
  bool operator==(const Expanded&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Expanded& e) {
  return os << e.ns_name << " " << e.uid << " p=" << e.priority << " controlled=" << e.controlled
            << " grace=" << (e.grace ? std::to_string(e.grace->count()) : "default");
}

std::vector<Expanded> expand(std::string_view text) {
  std::vector<Expanded> out;
  for (const auto& p : decode_workload(text).pods) {
    out.push_back({p.pod.namespace_ + "/" + p.pod.name, p.pod.uid, p.pod.effective_priority(),
                   p.traits.controlled, p.traits.grace_period});
  }
  return out;
}

constexpr const char* kTemplate =
    R"("template":{"metadata":{"labels":{"app":"x"}},"spec":{"priority":7,"containers":[{"name":"c"}]}})";

std::string controller(const std::string& kind, const std::string& name, const std::string& count_field) {
  return R"({"kind":")" + kind + R"(","metadata":{"name":")" + name + R"(","namespace":"ns"},"spec":{)" +
         count_field + kTemplate + "}}";
}

TEST(SimWorkload, ControllersExpandIntoTheirPods) {
  struct Case {
    std::string name;
    std::string text;
    std::vector<Expanded> want;
  };
  const std::optional<sim::SimDuration> dflt;
  const std::vector<Case> cases = {
      {"Deployment of 3",
       "[" + controller("Deployment", "web", R"("replicas":3,)") + "]",
       {{"ns/web-0", "ns/web-0", 7, true, dflt},
        {"ns/web-1", "ns/web-1", 7, true, dflt},
        {"ns/web-2", "ns/web-2", 7, true, dflt}}},
      {"ReplicaSet without replicas: 1",
       "[" + controller("ReplicaSet", "rs", "") + "]",
       {{"ns/rs-0", "ns/rs-0", 7, true, dflt}}},
      {"Job of parallelism 2 (replicas is not a Job's)",
       "[" + controller("Job", "batch", R"("parallelism":2,"completions":5,)") + "]",
       {{"ns/batch-0", "ns/batch-0", 7, true, dflt}, {"ns/batch-1", "ns/batch-1", 7, true, dflt}}},
      {"Job without parallelism: 1",
       "[" + controller("Job", "once", "") + "]",
       {{"ns/once-0", "ns/once-0", 7, true, dflt}}},
      {"zero replicas", "[" + controller("Deployment", "off", R"("replicas":0,)") + "]", {}},
      {"a Pod as it is, in a List, in file order",
       R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"solo","uid":"u-1"},
          "spec":{"priority":3,"terminationGracePeriodSeconds":5}},)" +
           controller("ReplicaSet", "rs", R"("replicas":1,)") + "]}",
       {{"default/solo", "u-1", 3, false, seconds(5)}, {"ns/rs-0", "ns/rs-0", 7, true, dflt}}},
      {"a typed PodList",
       R"({"kind":"PodList","items":[{"metadata":{"name":"p"}}]})",
       {{"default/p", "default/p", 0, false, dflt}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(expand(c.text), c.want);
  }
}

TEST(SimWorkload, TemplateLabelsAndRequestsAreEachPods) {
  const auto pods = decode_workload(
                        R"([{"kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,"template":{
          "metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c",
          "resources":{"requests":{"cpu":"250m"}}}]}}}}])")
                        .pods;
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& p : pods) {
    const auto app = p.pod.labels.find("app");
    ASSERT_NE(app, p.pod.labels.get().end());
    EXPECT_EQ(app->second, "web");
    ASSERT_EQ(p.pod.containers.size(), 1u);
    EXPECT_EQ(p.pod.containers[0].requests.milli_cpu, 250);
    EXPECT_TRUE(p.pod.node_name.empty());
  }
}

// Gang scheduling's inputs: PodGroups in the workload and the cluster (in "default" when they name no
// namespace), and a Job whose template carries the group's label on each of its pods.
TEST(SimWorkload, PodGroupsAndAJobOfAGroup) {
  const WorkloadInput w = decode_workload(R"([
      {"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"bert","namespace":"train"},
       "spec":{"minMember":2,"scheduleTimeoutSeconds":30}},
      {"kind":"Job","metadata":{"name":"bert","namespace":"train"},"spec":{"parallelism":2,"template":{
       "metadata":{"labels":{"scheduling.x-k8s.io/pod-group":"bert"}},"spec":{"containers":[{"name":"c"}]}}}}])");
  ASSERT_EQ(w.pod_groups.size(), 1u);
  const gang::PodGroupSpec& g = w.pod_groups.at("train/bert");
  EXPECT_EQ(g.min_member, 2);
  EXPECT_EQ(g.timeout_seconds(), 30);
  ASSERT_EQ(w.pods.size(), 2u);
  for (const auto& p : w.pods) EXPECT_EQ(gang::pod_group_key(p.pod), "train/bert");

  const ClusterInput c = decode_cluster(R"({"kind":"List","items":[
      {"kind":"PodGroup","metadata":{"name":"gpt"},"spec":{"minMember":4}}]})");
  ASSERT_EQ(c.pod_groups.size(), 1u);
  EXPECT_EQ(c.pod_groups.at("default/gpt").min_member, 4);
  EXPECT_THROW(decode_workload(R"([{"kind":"PodGroup","metadata":{"name":"x"},"spec":{"minMember":-1}}])"),
               DecodeError);
}

// Upstream's PodGroup and a Job whose template names it in spec.schedulingGroup: another group than
// scheduler-plugins' of the same name.
TEST(SimWorkload, UpstreamPodGroupsAndAJobOfOne) {
  const WorkloadInput w = decode_workload(R"([
      {"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup","metadata":{"name":"bert","namespace":"train"},
       "spec":{"schedulingPolicy":{"gang":{"minCount":3}}}},
      {"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"bert","namespace":"train"},
       "spec":{"minMember":2}},
      {"kind":"Job","metadata":{"name":"bert","namespace":"train"},"spec":{"parallelism":3,"template":{
       "spec":{"schedulingGroup":{"podGroupName":"bert"},"containers":[{"name":"c"}]}}}}])");
  ASSERT_EQ(w.pod_groups.size(), 2u);
  const gang::PodGroupSpec& g = w.pod_groups.at("train/bert (scheduling.k8s.io)");
  EXPECT_EQ(g.min_member, 3);
  EXPECT_EQ(g.timeout_seconds(), gang::kWorkloadTimeoutSeconds);
  EXPECT_EQ(w.pod_groups.at("train/bert").min_member, 2);
  ASSERT_EQ(w.pods.size(), 3u);
  for (const auto& p : w.pods) EXPECT_EQ(gang::pod_group_key(p.pod), "train/bert (scheduling.k8s.io)");
}

TEST(SimWorkload, PriorityClassesAsTheAdmissionPluginSetsThem) {
  struct Case {
    std::string name;
    std::string classes;  // PriorityClass items, each followed by a comma
    std::string pod_spec;
    int32_t priority;
    std::string preemption_policy;
  };
  const std::string high =
      R"({"kind":"PriorityClass","metadata":{"name":"high"},"value":1000,"preemptionPolicy":"Never"},)";
  const std::string low_default =
      R"({"kind":"PriorityClass","metadata":{"name":"low"},"value":10,"globalDefault":true},)";
  const std::string lower_default =
      R"({"kind":"PriorityClass","metadata":{"name":"lower"},"value":5,"globalDefault":true},)";
  const std::vector<Case> cases = {
      {"by name, with its preemptionPolicy", high, R"("priorityClassName":"high")", 1000, "Never"},
      {"the pod's own preemptionPolicy stays", high,
       R"("priorityClassName":"high","preemptionPolicy":"PreemptLowerPriority")", 1000,
       "PreemptLowerPriority"},
      {"spec.priority wins", high, R"("priorityClassName":"high","priority":3)", 3, ""},
      {"the global default", high + low_default, R"("containers":[])", 10, ""},
      {"the lowest of two global defaults", low_default + lower_default, R"("containers":[])", 5, ""},
      {"no class, no default: 0", high, R"("containers":[])", 0, ""},
      {"a built-in class", "", R"("priorityClassName":"system-node-critical")", 2000001000, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    WorkloadInput in = decode_workload("[" + c.classes + R"({"kind":"Pod","metadata":{"name":"p"},"spec":{)" +
                                       c.pod_spec + "}}]");
    resolve_priorities(in.pods, in.priority_classes);
    ASSERT_EQ(in.pods.size(), 1u);
    EXPECT_EQ(in.pods[0].pod.priority, c.priority);
    EXPECT_EQ(in.pods[0].pod.preemption_policy, c.preemption_policy);
  }
  WorkloadInput unknown =
      decode_workload(R"([{"kind":"Pod","metadata":{"name":"p"},"spec":{"priorityClassName":"x"}}])");
  try {
    resolve_priorities(unknown.pods, {});
    ADD_FAILURE() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "pod default/p: spec.priorityClassName: no PriorityClass \"x\" in the cluster or workload file");
  }
}

TEST(SimWorkload, RuntimeAnnotationOfThePodTemplateOrController) {
  const std::string key = std::string(kRuntimeAnnotation);
  auto annotated = [&](const std::string& value) {
    return R"("annotations":{")" + key + R"(":")" + value + R"("})";
  };
  const WorkloadInput in =
      decode_workload("[" + (R"({"kind":"Pod","metadata":{"name":"p",)" + annotated("90") + "}},") +
                      R"({"kind":"Pod","metadata":{"name":"plain"}},)" +
                      (R"({"kind":"Job","metadata":{"name":"j",)" + annotated("0.5") +
                       R"(},"spec":{"template":{"spec":{}}}},)") +
                      (R"({"kind":"Deployment","metadata":{"name":"d",)" + annotated("7") +
                       R"(},"spec":{"replicas":1,"template":{"metadata":{)" + annotated("60") + "}}}}") +
                      "]");
  ASSERT_EQ(in.pods.size(), 4u);
  EXPECT_EQ(in.pods[0].traits.runtime, seconds(90));
  EXPECT_FALSE(in.pods[1].traits.runtime.has_value()) << "--runtime decides";
  EXPECT_EQ(in.pods[2].traits.runtime, std::chrono::milliseconds(500)) << "the controller's";
  EXPECT_EQ(in.pods[3].traits.runtime, seconds(60)) << "the template's before the controller's";
  for (const std::string bad : {"10m", "-1", "", "2e9", "nan"}) {
    SCOPED_TRACE(bad);
    try {
      decode_workload("[" + (R"({"kind":"Pod","metadata":{"name":"p",)" + annotated(bad) + "}}") + "]");
      ADD_FAILURE() << "no error";
    } catch (const DecodeError& e) {
      EXPECT_EQ(std::string(e.what()), "[0].metadata.annotations." + key + ": \"" + bad +
                                           "\" is not a number of seconds between 0 and 1e9");
    }
  }
}

TEST(SimWorkload, UsageAnnotationOfThePodTemplateOrController) {
  const std::string key = std::string(kUsageAnnotation);
  auto annotated = [&](const std::string& value) {
    return R"("annotations":{")" + key + R"(":")" + value + R"("})";
  };
  const WorkloadInput in = decode_workload(
      "[" + (R"({"kind":"Pod","metadata":{"name":"p",)" + annotated("0.6") + "}},") +
      R"({"kind":"Pod","metadata":{"name":"plain"}},)" +
      (R"({"kind":"Deployment","metadata":{"name":"d",)" + annotated("0.1") +
       R"(},"spec":{"replicas":1,"template":{"metadata":{)" + annotated("0s:0.2,60s:0.8") + "}}}}") +
      "]");
  ASSERT_EQ(in.pods.size(), 3u);
  ASSERT_NE(in.pods[0].traits.usage, nullptr);
  EXPECT_EQ(in.pods[0].traits.usage->at(seconds(0)), 0.6);
  EXPECT_EQ(in.pods[1].traits.usage, nullptr) << "--usage decides";
  ASSERT_NE(in.pods[2].traits.usage, nullptr);
  EXPECT_EQ(in.pods[2].traits.usage->at(seconds(60)), 0.8) << "the template's before the controller's";
  try {
    decode_workload("[" + (R"({"kind":"Pod","metadata":{"name":"p",)" + annotated("60s:x") + "}}") + "]");
    ADD_FAILURE() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_EQ(std::string(e.what()),
              "[0].metadata.annotations." + key + ": \"60s:x\": the fraction is not a non-negative number");
  }
}

TEST(SimCluster, BoundPodsRunPendingPodsArriveTerminalPodsAreGone) {
  const ClusterInput in = decode_cluster(R"({"kind":"List","items":[
    {"kind":"Pod","metadata":{"name":"running","namespace":"a","uid":"u-run",
      "ownerReferences":[{"kind":"ReplicaSet","name":"rs","uid":"x","controller":true}]},
     "spec":{"nodeName":"n1","terminationGracePeriodSeconds":12},
     "status":{"phase":"Running","startTime":"2026-11-24T10:00:00Z"}},
    {"kind":"Pod","metadata":{"name":"waiting","namespace":"a"},"spec":{"priority":5},
     "status":{"phase":"Pending"}},
    {"kind":"Pod","metadata":{"name":"done","uid":"u-done"},"spec":{},"status":{"phase":"Succeeded"}},
    {"kind":"Pod","metadata":{"name":"failed","uid":"u-failed"},"spec":{"nodeName":"n1"},
     "status":{"phase":"Failed","startTime":"2026-11-24T11:00:00Z"}},
    {"kind":"Pod","metadata":{"name":"leaving","uid":"u-leaving","deletionTimestamp":"2026-11-24T10:00:00Z"},
     "spec":{}},
    {"kind":"Pod","metadata":{"name":"stopping","uid":"u-stop","deletionTimestamp":"2026-11-24T11:00:30Z"},
     "spec":{"nodeName":"n1"},"status":{"phase":"Running"}},
    {"kind":"NodeList","items":[{"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"2"}}}]},
    {"kind":"PodDisruptionBudget","metadata":{"name":"pdb","namespace":"a"},
     "spec":{"selector":{"matchLabels":{"app":"x"}}},"status":{"disruptionsAllowed":1}}
  ]})");
  ASSERT_EQ(in.cluster.nodes().size(), 1u) << "nodes first, whatever the order of the items";
  EXPECT_EQ(in.cluster.nodes()[0]->name(), "n1");
  EXPECT_EQ(in.cluster.nodes()[0]->pods.size(), 2u) << "running and stopping";
  ASSERT_NE(in.cluster.pod("u-run"), nullptr);
  EXPECT_EQ(in.cluster.pod("u-run")->node_name, "n1");
  EXPECT_EQ(in.cluster.pdbs().size(), 1u);
  ASSERT_EQ(in.running.size(), 2u);
  EXPECT_EQ(in.running[0].first, "u-run");
  EXPECT_TRUE(in.running[0].second.controlled);
  EXPECT_EQ(in.running[0].second.grace_period, seconds(12));
  EXPECT_FALSE(in.running[0].second.deletion_unix_seconds.has_value());
  EXPECT_EQ(in.running[1].first, "u-stop");
  EXPECT_EQ(in.running[1].second.deletion_unix_seconds, 1795518030);
  EXPECT_TRUE(in.cluster.pod("u-stop")->terminating);
  ASSERT_EQ(in.pending.size(), 1u) << "not the terminal nor the terminating pod";
  EXPECT_EQ(in.pending[0].pod.uid, "a/waiting");
  EXPECT_EQ(in.pending[0].pod.effective_priority(), 5);
  EXPECT_FALSE(in.pending[0].traits.controlled);
  EXPECT_EQ(in.cluster.pod("u-done"), nullptr);
  EXPECT_EQ(in.cluster.pod("u-failed"), nullptr);
  // 2026-11-24T11:00:00Z: the latest startTime, the failed pod's included.
  EXPECT_EQ(in.epoch_unix_seconds, 1795518000);
}

// What PodTopologySpread's default constraints and namespaceSelector read, kept for the engine: the
// namespaces' labels and the objects that select pods, those with an empty selector left out.
TEST(SimInputs, ClusterKeepsNamespacesServicesAndControllers) {
  const ClusterInput in = decode_cluster(R"({"kind":"List","items":[
    {"kind":"Namespace","metadata":{"name":"a","labels":{"team":"x"}}},
    {"kind":"NamespaceList","items":[{"metadata":{"name":"b"}}]},
    {"kind":"Service","metadata":{"name":"web","namespace":"a"},"spec":{"selector":{"app":"web"}}},
    {"kind":"Service","metadata":{"name":"external","namespace":"a"},"spec":{"type":"ExternalName"}},
    {"kind":"ReplicationController","metadata":{"name":"rc","namespace":"a"},"spec":{"selector":{"app":"old"}}},
    {"kind":"ReplicaSet","metadata":{"name":"rs","namespace":"a"},"spec":{"selector":{"matchLabels":{"app":"web"}}}},
    {"kind":"ReplicaSet","metadata":{"name":"empty","namespace":"a"},"spec":{"selector":{}}},
    {"kind":"StatefulSet","metadata":{"name":"db","namespace":"b"},"spec":{"selector":{"matchLabels":{"app":"db"}}}}
  ]})");
  EXPECT_EQ(in.namespace_labels,
            (std::map<std::string, Labels, std::less<>>{{"a", {{"team", "x"}}}, {"b", {}}}));
  ASSERT_EQ(in.services.size(), 1u);
  EXPECT_EQ(in.services[0].name, "web");
  EXPECT_EQ(in.services[0].selector.match_labels, (Labels{{"app", "web"}}));
  ASSERT_EQ(in.replication_controllers.size(), 1u);
  EXPECT_EQ(in.replication_controllers[0].selector.match_labels, (Labels{{"app", "old"}}));
  ASSERT_EQ(in.replica_sets.size(), 1u);
  EXPECT_EQ(in.replica_sets[0].name, "rs");
  ASSERT_EQ(in.stateful_sets.size(), 1u);
  EXPECT_EQ(in.stateful_sets[0].namespace_, "b");
  EXPECT_TRUE(in.cluster.nodes().empty());
}

TEST(SimInputs, BadInputNamesTheField) {
  struct Case {
    std::string name;
    bool workload;
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"not JSON", true, "[{", "invalid JSON at offset"},
      {"another kind", true, R"([{"kind":"CronJob","metadata":{"name":"s"}}])",
       R"([0].kind: "CronJob" is not a Pod, Deployment, ReplicaSet, StatefulSet, Job, Service or PriorityClass)"},
      {"no kind", true, R"([{"metadata":{"name":"s"}}])", "[0].kind: missing"},
      {"negative replicas", true,
       R"({"kind":"List","items":[{"kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":-1}}]})",
       "items[0].spec.replicas: -1 is not between 0 and 1000000"},
      {"replicas not an integer", true,
       R"([{"kind":"ReplicaSet","metadata":{"name":"d"},"spec":{"replicas":"2"}}])",
       "[0].spec.replicas: expected integer, got string"},
      {"no template", true, R"([{"kind":"Job","metadata":{"name":"j"},"spec":{"parallelism":1}}])",
       "[0].spec.template: missing"},
      {"no name", true, R"([{"kind":"Deployment","spec":{"template":{}}}])", "[0].metadata.name: missing"},
      {"a bound workload pod", true, R"([{"kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n1"}}])",
       "[0].spec.nodeName: a workload pod must not be bound"},
      {"a bad template", true,
       R"([{"kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"priority":"high"}}}}])",
       "[0].spec.template.spec.priority: expected integer, got string"},
      {"negative grace period", true,
       R"([{"kind":"Pod","metadata":{"name":"p"},"spec":{"terminationGracePeriodSeconds":-1}}])",
       "[0].spec.terminationGracePeriodSeconds: -1 is not between 0 and a year of seconds"},
      {"a PriorityClass without value", true, R"([{"kind":"PriorityClass","metadata":{"name":"x"}}])",
       "[0].value: missing"},
      {"a bad deletionTimestamp", false,
       R"([{"kind":"Pod","metadata":{"name":"p","deletionTimestamp":"yesterday"},"spec":{}}])",
       "[0].metadata.deletionTimestamp: not an RFC 3339 time"},
      {"a pod with no name", false, R"({"kind":"List","items":[{"kind":"Pod","metadata":{}}]})",
       "items[0].metadata.name: missing"},
      {"a bad quantity", false,
       R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"cpu":"x"}}}]})",
       "items[0].status.allocatable.cpu: invalid quantity"},
      {"a pod on an unknown node", false,
       R"([{"kind":"Pod","metadata":{"name":"p","uid":"u-p"},"spec":{"nodeName":"gone"}}])",
       "pod default/p: spec.nodeName gone is not a node of the cluster"},
      {"a Service selector that is not a map", false,
       R"({"kind":"List","items":[{"kind":"Service","metadata":{"name":"s","namespace":"a"},"spec":{"selector":["x"]}}]})",
       "items[0].spec.selector: expected object, got array"},
      {"a StatefulSet without a name", false,
       R"({"kind":"List","items":[{"kind":"StatefulSet","metadata":{},"spec":{"selector":{"matchLabels":{"a":"b"}}}}]})",
       "items[0].metadata.name: missing"},
      {"Lists nested too deep", false,
       R"({"kind":"List","items":[{"kind":"List","items":[{"kind":"List","items":[{"kind":"List","items":[
          {"kind":"List","items":[{"kind":"List","items":[{"kind":"List","items":[{"kind":"List","items":[
          {"kind":"List","items":[{"kind":"List","items":[]}]}]}]}]}]}]}]}]}]})",
       "Lists nested deeper than 8 levels"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      if (c.workload) {
        decode_workload(c.text);
      } else {
        decode_cluster(c.text);
      }
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace inputs_test
}  // namespace kext::simtool

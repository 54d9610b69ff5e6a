// PodGroup objects decoded for gang scheduling: scheduler-plugins' and upstream's.
#include "kube/codec/pod_group_decode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kubeobjects/model_json.h"

namespace kext {
namespace pod_group_decode_test {
namespace {

rapidjson::Document doc(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(PodGroupDecode, EveryField) {
  const gang::PodGroupSpec g =
      decode_pod_group(doc(R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
              "metadata":{"name":"bert","namespace":"train","creationTimestamp":"2026-11-27T04:00:00Z"},
              "spec":{"minMember":8,"scheduleTimeoutSeconds":120,
                      "minResources":{"cpu":"16","memory":"64Gi","nvidia.com/gpu":"8"}},
              "status":{"phase":"Pending"}})"),
                       "podgroup");
  EXPECT_EQ(g.key(), "train/bert");
  EXPECT_EQ(g.min_member, 8);
  EXPECT_EQ(g.schedule_timeout_seconds, 120);
  EXPECT_EQ(g.timeout_seconds(), 120);
  EXPECT_EQ(g.creation_unix_seconds, 1795752000);
  EXPECT_EQ(g.min_resources.milli_cpu, 16000);
  EXPECT_EQ(g.min_resources.memory, int64_t{64} << 30);
  EXPECT_EQ(g.min_resources.scalar("nvidia.com/gpu"), 8);
}

TEST(PodGroupDecode, DefaultsOfAnEmptySpec) {
  for (const char* spec : {"", R"(,"spec":null)", R"(,"spec":{})"}) {
    const gang::PodGroupSpec g =
        decode_pod_group(doc(std::string(R"({"metadata":{"name":"g","namespace":"n"})") + spec + "}"), "pg");
    EXPECT_EQ(g.min_member, 0) << spec;
    EXPECT_FALSE(g.schedule_timeout_seconds.has_value()) << spec;
    EXPECT_EQ(g.timeout_seconds(), gang::kDefaultScheduleTimeoutSeconds) << spec;
    EXPECT_TRUE(g.min_resources.requests_nothing()) << spec;
  }
}

TEST(PodGroupDecode, UpstreamGangPolicy) {
  const gang::PodGroupSpec g =
      decode_pod_group(doc(R"({"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup",
              "metadata":{"name":"bert","namespace":"train","creationTimestamp":"2026-11-27T04:00:00Z"},
              "spec":{"podGroupTemplateRef":{"workloadName":"bert","podGroupTemplateName":"workers"},
                      "schedulingPolicy":{"gang":{"minCount":8}}}})"),
                       "podgroup");
  EXPECT_EQ(g.api, gang::GroupApi::kWorkload);
  EXPECT_EQ(g.key(), "train/bert (scheduling.k8s.io)");
  EXPECT_TRUE(g.all_or_nothing);
  EXPECT_EQ(g.min_member, 8);
  EXPECT_EQ(g.min_field(), "minCount");
  EXPECT_EQ(g.timeout_seconds(), gang::kWorkloadTimeoutSeconds);
  EXPECT_EQ(g.creation_unix_seconds, 1795752000);
}

TEST(PodGroupDecode, UpstreamBasicPolicyIsNotAllOrNothing) {
  const gang::PodGroupSpec g = decode_pod_group(
      doc(R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"web","namespace":"n"},
              "spec":{"schedulingPolicy":{"basic":{}}}})"),
      "podgroup");
  EXPECT_EQ(g.api, gang::GroupApi::kWorkload);
  EXPECT_FALSE(g.all_or_nothing);
}

TEST(PodGroupDecode, TheApiOfATypedListsItemsComesFromTheirShapeOrTheResource) {
  // The API server's lists of built-in types omit apiVersion on their items.
  const auto upstream =
      doc(R"({"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"gang":{"minCount":2}}}})");
  EXPECT_EQ(decode_pod_group(upstream, "pg").api, gang::GroupApi::kWorkload);
  const auto bare = doc(R"({"metadata":{"name":"g"}})");
  EXPECT_EQ(decode_pod_group(bare, "pg").api, gang::GroupApi::kCoscheduling);
  EXPECT_THROW(decode_pod_group(bare, "pg", gang::GroupApi::kWorkload), DecodeError)
      << "upstream's schedulingPolicy is required";
}

// Where a group must or should run together: the annotations in either API, upstream's own field.
TEST(PodGroupDecode, TopologyConstraints) {
  struct Case {
    std::string name;
    std::string json;
    gang::TopologyConstraint want;
  };
  const std::string cosched = R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
      "metadata":{"name":"g","namespace":"n")";
  const std::string upstream = R"({"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup",
      "metadata":{"name":"g","namespace":"n")";
  const std::string gang = R"("schedulingPolicy":{"gang":{"minCount":8}})";
  const std::vector<Case> cases = {
      {"None", cosched + "}}", {}},
      {"AnnotationsOfCoscheduling",
       cosched + R"(,"annotations":{"kube-extender.io/required-topology":"example.com/rack",
           "kube-extender.io/preferred-topology":"example.com/block","other":"x"}}})",
       {"example.com/rack", "example.com/block", ""}},
      // A bad annotation value keeps the group, with the reason its members are given.
      {"RequiredAnnotationNotALabelKey",
       cosched + R"(,"annotations":{"kube-extender.io/required-topology":"a/b/c"}}})",
       {"", "",
        "pg.metadata.annotations.kube-extender.io/required-topology: \"a/b/c\" is not a node label "
        "key: a qualified name must consist of an optional DNS subdomain prefix and '/', then a name "
        "(e.g. 'example.com/MyName')"}},
      {"PreferredOnly",
       cosched + R"(,"annotations":{"kube-extender.io/preferred-topology":"rack"}}})",
       {"", "rack", ""}},
      {"EmptyValueIsNoConstraint",
       cosched + R"(,"annotations":{"kube-extender.io/required-topology":"",
           "kube-extender.io/preferred-topology":""}}})",
       {}},
      {"UpstreamField",
       upstream + R"(},"spec":{)" + gang +
           R"(,"schedulingConstraints":{"topology":[{"key":"example.com/rack"}]}}})",
       {"example.com/rack", "", ""}},
      {"UpstreamFieldWinsOverTheRequiredAnnotation",
       upstream + R"(,"annotations":{"kube-extender.io/required-topology":"example.com/block",
           "kube-extender.io/preferred-topology":"example.com/zone"}},
           "spec":{)" +
           gang + R"(,"schedulingConstraints":{"topology":[{"key":"example.com/rack"}]}}})",
       {"example.com/rack", "example.com/zone", ""}},
      {"UpstreamAnnotationsWithoutTheField",
       upstream + R"(,"annotations":{"kube-extender.io/required-topology":"example.com/block"}},
           "spec":{)" +
           gang + R"(,"schedulingConstraints":{"topology":[]}}})",
       {"example.com/block", "", ""}},
      {"UpstreamEmptyConstraints",
       upstream + R"(},"spec":{)" + gang + R"(,"schedulingConstraints":{}}})",
       {}},
      // scheduler-plugins' PodGroup has no such field: only its annotations count.
      {"CoschedulingIgnoresUpstreamsField",
       cosched + R"(},"spec":{"minMember":2,"schedulingConstraints":{"topology":[{"key":"rack"}]}}})",
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(decode_pod_group(doc(c.json), "pg").topology, c.want);
  }
}

struct BadCase {
  std::string name;
  std::string json;
  std::string error;
};

class PodGroupDecodeErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(PodGroupDecodeErrors, NameTheField) {
  try {
    decode_pod_group(doc(GetParam().json), "podgroup");
    ADD_FAILURE() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().error), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PodGroupDecodeErrors,
    ::testing::Values(
        BadCase{"NoName", R"({"metadata":{"namespace":"n"}})", "podgroup.metadata.name: missing"},
        BadCase{"NotAnObject", R"([1])", "podgroup"},
        BadCase{"NegativeMinMember", R"({"metadata":{"name":"g"},"spec":{"minMember":-1}})",
                "podgroup.spec.minMember: -1 is not a count"},
        BadCase{"MinMemberTooLarge", R"({"metadata":{"name":"g"},"spec":{"minMember":4294967296}})",
                "podgroup.spec.minMember: 4294967296 is not a count"},
        BadCase{"MinMemberAString", R"({"metadata":{"name":"g"},"spec":{"minMember":"8"}})",
                "podgroup.spec.minMember"},
        BadCase{"BadTimeout", R"({"metadata":{"name":"g"},"spec":{"scheduleTimeoutSeconds":1.5}})",
                "podgroup.spec.scheduleTimeoutSeconds"},
        BadCase{"BadQuantity", R"({"metadata":{"name":"g"},"spec":{"minResources":{"cpu":"lots"}}})",
                "podgroup.spec.minResources.cpu"},
        BadCase{"BadCreationTimestamp", R"({"metadata":{"name":"g","creationTimestamp":"yesterday"}})",
                "podgroup.metadata.creationTimestamp: not an RFC 3339 time"},
        BadCase{"UpstreamWithoutPolicy",
                R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},"spec":{}})",
                "podgroup.spec.schedulingPolicy: missing (gang or basic)"},
        BadCase{
            "UpstreamEmptyPolicy",
            R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},"spec":{"schedulingPolicy":{}}})",
            "podgroup.spec.schedulingPolicy: neither gang nor basic"},
        BadCase{"UpstreamNegativeMinCount",
                R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},
                    "spec":{"schedulingPolicy":{"gang":{"minCount":-2}}}})",
                "podgroup.spec.schedulingPolicy.gang.minCount: -2 is not a count"},
        BadCase{"UpstreamGangNotAnObject",
                R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},
                    "spec":{"schedulingPolicy":{"gang":3}}})",
                "podgroup.spec.schedulingPolicy.gang"},
        BadCase{"UpstreamTwoTopologies",
                R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},
                    "spec":{"schedulingPolicy":{"gang":{"minCount":2}},
                            "schedulingConstraints":{"topology":[{"key":"rack"},{"key":"block"}]}}})",
                "podgroup.spec.schedulingConstraints.topology: at most one entry, got 2"},
        BadCase{"UpstreamTopologyWithoutKey",
                R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},
                    "spec":{"schedulingPolicy":{"gang":{"minCount":2}},
                            "schedulingConstraints":{"topology":[{}]}}})",
                "podgroup.spec.schedulingConstraints.topology[0].key: required"},
        BadCase{"UpstreamTopologyNotAList",
                R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},
                    "spec":{"schedulingPolicy":{"gang":{"minCount":2}},
                            "schedulingConstraints":{"topology":{"key":"rack"}}}})",
                "podgroup.spec.schedulingConstraints.topology: expected array, got object"},
        BadCase{"UpstreamTopologyKeyNotALabelKey",
                R"({"apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"g"},
                    "spec":{"schedulingPolicy":{"gang":{"minCount":2}},
                            "schedulingConstraints":{"topology":[{"key":"-rack"}]}}})",
                "podgroup.spec.schedulingConstraints.topology[0].key: \"-rack\" is not a node label key: "
                "name part must consist of"},
        BadCase{"AnnotationNotAString",
                R"({"metadata":{"name":"g","annotations":{"kube-extender.io/preferred-topology":3}}})",
                "podgroup.metadata.annotations.kube-extender.io/preferred-topology"},
        BadCase{"AnnotationsNotAnObject", R"({"metadata":{"name":"g","annotations":["x"]}})",
                "podgroup.metadata.annotations"}),
    [](const auto& info) { return info.param.name; });

// What extender-sim --extender serves (kubeobjects/model_json.h) decodes back to the same group, in
// both APIs.
TEST(PodGroupDecode, RoundTripThroughModelJson) {
  gang::PodGroupSpec every;
  every.namespace_ = "train";
  every.name = "bert";
  every.min_member = 8;
  every.schedule_timeout_seconds = 120;
  every.creation_unix_seconds = 1795752000;
  every.min_resources.milli_cpu = 16000;
  every.min_resources.memory = int64_t{64} << 30;
  every.min_resources.set_scalar("nvidia.com/gpu", 8);
  gang::PodGroupSpec bare;
  bare.namespace_ = "n";
  bare.name = "g";
  bare.min_member = 2;
  gang::PodGroupSpec upstream = bare;
  upstream.api = gang::GroupApi::kWorkload;
  gang::PodGroupSpec basic = upstream;
  basic.all_or_nothing = false;
  basic.min_member = 1;
  // Topology: the required key in upstream's field or the annotation, the preferred one annotated.
  gang::PodGroupSpec in_rack = every;
  in_rack.topology = {"example.com/rack", "example.com/block", ""};
  gang::PodGroupSpec upstream_in_rack = upstream;
  upstream_in_rack.topology = {"example.com/rack", "example.com/block", ""};
  gang::PodGroupSpec preferred_only = upstream;
  preferred_only.topology.preferred = "kubernetes.io/hostname";
  for (const gang::PodGroupSpec& g :
       {every, bare, upstream, basic, in_rack, upstream_in_rack, preferred_only}) {
    const std::string text = model_json::pod_group_json(g);
    EXPECT_EQ(decode_pod_group(doc(text), "pg"), g) << text;
  }
  // Upstream's required key goes in its own field, as a user of that API writes it.
  const std::string text = model_json::pod_group_json(upstream_in_rack);
  EXPECT_NE(text.find(R"("schedulingConstraints":{"topology":[{"key":"example.com/rack"}]})"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("required-topology"), std::string::npos) << text;
}

}  // namespace
}  // namespace pod_group_decode_test
}  // namespace kext

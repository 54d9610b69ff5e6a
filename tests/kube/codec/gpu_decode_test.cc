// HAMi's annotations (pkg/device/devices.go, pkg/util/device_scoring_weights.go, pkg/device/
// initContainer.go) into algorithms/gpu's model.
#include "kube/codec/gpu_decode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/gpu/device_fit.h"
#include "kube/codec/k8s_decode.h"

namespace kext {
namespace gpu_decode_test {
namespace {

TEST(GpuDecode, RegisterAnnotationInBothForms) {
  struct Case {
    std::string name;
    std::string value;
    std::vector<gpu::Device> want;
    std::string want_error;  // a substring
  };
  const gpu::Device a{"GPU-a", 0, 10, 16384, 100, "NVIDIA-Tesla T4", 0, true, "hami-core", {}};
  const gpu::Device b{"GPU-b", 1, 4, 8192, 50, "NVIDIA-A10", 1, false, "mps", {}};
  const std::vector<Case> cases = {
      {"JSON",
       R"([{"id":"GPU-a","count":10,"devmem":16384,"devcore":100,"type":"NVIDIA-Tesla T4","health":true,"mode":"hami-core"},)"
       R"({"id":"GPU-b","index":1,"count":4,"devmem":8192,"devcore":50,"type":"NVIDIA-A10","numa":1,"mode":"mps"}])",
       {a, b},
       ""},
      {"legacy, 7 and 9 fields",
       "GPU-a,10,16384,100,NVIDIA-Tesla T4,0,true:GPU-b,4,8192,50,NVIDIA-A10,1,false,1,mps:",
       {a, b},
       ""},
      {"JSON of the wrong type", R"([{"id":"GPU-a","count":"10"}])", {}, "[0].count: expected integer"},
      {"legacy with a bad field", "GPU-a,ten,16384,100,T4,0,true:", {}, "invalid count field"},
      {"legacy with 8 fields", "GPU-a,10,16384,100,T4,0,true,1:", {}, "unexpected field count 8"},
      {"neither", "GPU-a", {}, "neither a JSON list"},
  };
  for (const Case& c : cases) {
    if (c.want_error.empty()) {
      EXPECT_EQ(parse_gpu_register(c.value).devices, c.want) << c.name;
      continue;
    }
    try {
      parse_gpu_register(c.value);
      ADD_FAILURE() << c.name << ": no error";
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find(c.want_error), std::string::npos) << c.name << ": " << e.what();
    }
  }
}

json::Value* parse(rapidjson::Document& doc, const std::string& text) {
  doc.Parse(text.c_str());
  return &doc;
}

TEST(GpuDecode, NodeAnnotationsScoresAndCordon) {
  rapidjson::Document doc;
  const auto* ann = parse(
      doc, R"({"hami.io/node-nvidia-register":"GPU-a,10,16384,100,T4,0,true:GPU-b,10,16384,100,T4,0,true:",)"
           R"("hami.io/node-nvidia-score":"[{\"uuid\":\"GPU-a\",\"score\":{\"GPU-b\":80}}]",)"
           R"("hami.io/device-cordon":" GPU-b ,,"})");
  const auto n = decode_node_gpus(ann);
  ASSERT_TRUE(n);
  ASSERT_EQ(n->devices.size(), 2u);
  EXPECT_EQ(n->devices[0].pair_score("GPU-b"), 80);
  EXPECT_EQ(n->devices[1].pair_score("GPU-a"), 0);
  EXPECT_EQ(n->cordoned, std::vector<std::string>{"GPU-b"});
  EXPECT_EQ(n->error, "");

  rapidjson::Document bad;
  const auto broken =
      decode_node_gpus(parse(bad, R"({"hami.io/node-nvidia-register":"[{\"count\":true}]"})"));
  ASSERT_TRUE(broken);
  EXPECT_TRUE(broken->devices.empty());
  EXPECT_NE(broken->error.find("hami.io/node-nvidia-register: [0].count"), std::string::npos)
      << broken->error;

  rapidjson::Document none;
  EXPECT_EQ(decode_node_gpus(parse(none, R"({"other":"x"})")), nullptr);
  EXPECT_EQ(decode_node_gpus(nullptr), nullptr);
}

TEST(GpuDecode, PodPreferencesAndWeights) {
  rapidjson::Document doc;
  const auto p = decode_gpu_preferences(parse(
      doc,
      R"({"nvidia.com/use-gputype":"A100,H100","nvidia.com/numa-bind":"true",)"
      R"("hami.io/gpu-scheduler-policy":"binpack,numa","hami.io/device-scoring-weights":"slot=0, core=2,memory=1"})"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->use_types, "A100,H100");
  EXPECT_TRUE(p->numa_bind);
  EXPECT_EQ(p->gpu_policy, "binpack,numa");
  EXPECT_EQ(p->node_policy, std::nullopt);
  EXPECT_EQ(p->weights, (gpu::Weights{0, 2, 1}));
  EXPECT_EQ(p->error, "");

  struct Case {
    std::string weights;
    std::string want_error;
  };
  for (const Case& c : std::vector<Case>{{"slot=1,core=1", "expected slot, core, and memory weights"},
                                         {"slot=1,slot=1,memory=1", "duplicate \"slot\" weight"},
                                         {"slot=-1,core=1,memory=1", "invalid slot field"},
                                         {"slot=0,core=0,memory=0", "at least one weight must be positive"},
                                         {"slot=1,core=1,disk=1", "unknown weight \"disk\""}}) {
    rapidjson::Document d;
    const std::string text = R"({"hami.io/device-scoring-weights":")" + c.weights + R"("})";
    const auto got = decode_gpu_preferences(parse(d, text));
    ASSERT_TRUE(got);
    EXPECT_NE(got->error.find(c.want_error), std::string::npos) << c.weights << ": " << got->error;
  }
  rapidjson::Document none;
  EXPECT_EQ(decode_gpu_preferences(parse(none, R"({"app":"x"})")), nullptr);
}

TEST(GpuDecode, SharesCollapseInitContainersAsHAMi) {
  struct Case {
    std::string name;
    std::string allocated;
    size_t init_containers;
    std::vector<gpu::DeviceShare> want;
  };
  const std::vector<Case> cases = {
      {"one container, two cards",
       "GPU-b,NVIDIA,1000,30:GPU-a,NVIDIA,1000,30:;",
       0,
       {{"GPU-a", 1, 1000, 30}, {"GPU-b", 1, 1000, 30}}},
      {"two containers share a card",
       "GPU-a,NVIDIA,1000,30:;GPU-a,NVIDIA,2000,10:;",
       0,
       {{"GPU-a", 2, 3000, 40}}},
      {"init peak against the containers' sum",
       "GPU-a,NVIDIA,8000,100:;GPU-a,NVIDIA,2000,10:;",
       1,
       {{"GPU-a", 1, 8000, 100}}},
      {"an empty container keeps its place", ";GPU-a,NVIDIA,2000,10:;", 1, {{"GPU-a", 1, 2000, 10}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(gpu::collapse_allocation(parse_gpu_allocation(c.allocated), c.init_containers).shares, c.want)
        << c.name;
  }
  EXPECT_THROW(parse_gpu_allocation("GPU-a,NVIDIA,1000:;"), DecodeError);
}

TEST(GpuDecode, PodAndNodeObjectsCarryThem) {
  rapidjson::Document doc;
  doc.Parse(R"({"metadata":{"name":"p","namespace":"d","uid":"u","annotations":{)"
            R"("hami.io/vgpu-devices-allocated":"GPU-a,NVIDIA,1000,30:;","nvidia.com/use-gpuuuid":"GPU-a"}},)"
            R"("spec":{"containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":"1"}}}]}})");
  const Pod pod = decode_pod(doc, "pod");
  ASSERT_TRUE(pod.gpu_shares);
  EXPECT_EQ(pod.gpu_shares->shares, (std::vector<gpu::DeviceShare>{{"GPU-a", 1, 1000, 30}}));
  ASSERT_TRUE(pod.gpu_preferences);
  EXPECT_EQ(pod.gpu_preferences->use_uuids, "GPU-a");

  // An allocation that does not decode is kept as such: its node's card use is unknown, not free.
  rapidjson::Document bad;
  bad.Parse(
      R"({"metadata":{"name":"p","namespace":"d","uid":"u","annotations":{)"
      R"("hami.io/vgpu-devices-allocated":"GPU-a,NVIDIA,1000:;"}},"spec":{"containers":[{"name":"c"}]}})");
  const Pod undecoded = decode_pod(bad, "pod");
  ASSERT_TRUE(undecoded.gpu_shares);
  EXPECT_TRUE(undecoded.gpu_shares->shares.empty());
  EXPECT_EQ(undecoded.gpu_shares->error.rfind("hami.io/vgpu-devices-allocated \"GPU-a,NVIDIA,1000:;\": ", 0),
            0u)
      << undecoded.gpu_shares->error;

  rapidjson::Document node_doc;
  node_doc.Parse(
      R"({"metadata":{"name":"n","annotations":{"hami.io/node-nvidia-register":"GPU-a,10,16384,100,T4,0,true:"}}})");
  const Node node = decode_node(node_doc, "node");
  ASSERT_TRUE(node.gpus);
  EXPECT_EQ(node.gpus->devices.size(), 1u);
}

}  // namespace
}  // namespace gpu_decode_test
}  // namespace kext

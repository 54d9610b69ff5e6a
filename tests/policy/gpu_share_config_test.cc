// policy/config.cc: GPUShare's args (HAMi's scheduler settings), strictly decoded, written back, and in
// no default profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/gpu/gpu_share.h"
#include "policy/config.h"

namespace kext {
namespace gpu_share_config_test {
namespace {

std::string cfg(const std::string& rest) {
  return R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",)" + rest + "}";
}

std::string gpu_config(const std::string& args) {
  return cfg(
      R"("plugins":{"filter":{"enabled":[{"name":"GPUShare"}]},"score":{"enabled":[{"name":"GPUShare","weight":2}]}},)"
      R"("pluginConfig":[{"name":"GPUShare","args":)" +
      args + "}]");
}

TEST(GpuShareConfig, OffByDefaultAndEnabledByName) {
  const Config d = parse_config(std::string(default_config_json()));
  EXPECT_FALSE(
      std::ranges::any_of(d.filters, [](const PluginEntry& e) { return e.name == kGpuSharePlugin; }));
  EXPECT_EQ(d.args.gpu_share, gpu::SharingConfig{});

  const Config c =
      parse_config(gpu_config(R"({"nodeSchedulerPolicy":"spread","gpuSchedulerPolicy":"binpack,numa",
      "defaultMemory":2048,"defaultCores":10,"resourceCountName":"example.com/vgpu"})"));
  EXPECT_TRUE(std::ranges::any_of(c.filters, [](const PluginEntry& e) { return e.name == kGpuSharePlugin; }));
  EXPECT_TRUE(std::ranges::any_of(
      c.scores, [](const PluginEntry& e) { return e.name == kGpuSharePlugin && e.weight == 2; }));
  EXPECT_EQ(c.args.gpu_share.node_policy, "spread");
  EXPECT_EQ(c.args.gpu_share.gpu_policy, "binpack,numa");
  EXPECT_EQ(c.args.gpu_share.default_memory, 2048);
  EXPECT_EQ(c.args.gpu_share.default_cores, 10);
  EXPECT_EQ(c.args.gpu_share.count_resource, "example.com/vgpu");
  EXPECT_EQ(c.args.gpu_share.memory_resource, "nvidia.com/gpumem");
  EXPECT_EQ(parse_config(config_to_json(c)), c);
}

TEST(GpuShareConfig, StrictDecodingNamesTheField) {
  struct Case {
    std::string args;
    std::string want;
  };
  const std::vector<Case> cases = {
      {R"({"nodeSchedulerPolicy":"pack"})",
       "pluginConfig[0].args.nodeSchedulerPolicy: \"pack\" is not binpack or spread"},
      {R"({"gpuSchedulerPolicy":"binpack,nvlink"})",
       "pluginConfig[0].args.gpuSchedulerPolicy: \"nvlink\" is not binpack, spread, topology-aware, mutex or "
       "numa"},
      {R"({"defaultCores":101})", "pluginConfig[0].args.defaultCores: must be in 0..100, got 101"},
      {R"({"resourceCoreName":""})", "pluginConfig[0].args.resourceCoreName: must not be empty"},
      {R"({"deviceSplitCount":10})", "pluginConfig[0].args.deviceSplitCount: unknown field"},
  };
  for (const Case& c : cases) {
    std::string got;
    try {
      parse_config(gpu_config(c.args));
    } catch (const PolicyError& e) {
      got = e.what();
    }
    EXPECT_EQ(got.substr(0, c.want.size()), c.want) << c.args;
  }
}

}  // namespace
}  // namespace gpu_share_config_test
}  // namespace kext

// manifests/overlays/gpu-sharing: the extender's policy enables GPUShare and loads; the scheduler's
// configuration is the base's with NodeResourcesFit ignoring HAMi's per-card resources, nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "algorithms/gpu/gpu_share.h"
#include "policy/config.h"
#include "yaml/yaml.h"

namespace kext {
namespace gpu_overlay_test {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = fs::path(KEXT_SOURCE_DIR) / "manifests";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The one key of a ConfigMap's data, parsed.
rapidjson::Document config_map_data(const fs::path& p, const char* key) {
  rapidjson::Document cm = yaml::to_json(read(p));
  return yaml::to_json(cm["data"][key].GetString());
}

TEST(GpuSharingOverlay, ThePolicyEnablesGpuShareAndLoads) {
  const std::string policy = read(kRoot / "overlays/gpu-sharing/policy-patch.yaml");
  rapidjson::Document cm = yaml::to_json(policy);
  const LoadedFile loaded = load_scheduling_file(cm["data"]["config.yaml"].GetString());
  ASSERT_TRUE(loaded.profile.gpu_sharing.has_value());
  EXPECT_EQ(loaded.profile.gpu_sharing->node_policy, "binpack");
  bool filters = false, scores = false;
  for (const auto& f : loaded.profile.engine.filters()) filters |= f->name() == kGpuSharePlugin;
  for (const auto& s : loaded.profile.engine.scores()) scores |= s.plugin->name() == kGpuSharePlugin;
  EXPECT_TRUE(filters);
  EXPECT_TRUE(scores);
}

TEST(GpuSharingOverlay, TheSchedulerIgnoresHAMisPerCardResourcesAndNothingElseChanges) {
  rapidjson::Document base = config_map_data(kRoot / "base/scheduler-config.yaml", "scheduler-config.yaml");
  rapidjson::Document gpu =
      config_map_data(kRoot / "overlays/gpu-sharing/scheduler-config-patch.yaml", "scheduler-config.yaml");
  auto& profile = gpu["profiles"][0];
  ASSERT_TRUE(profile.HasMember("pluginConfig"));
  const auto& fit = profile["pluginConfig"][0];
  EXPECT_STREQ(fit["name"].GetString(), "NodeResourcesFit");
  std::vector<std::string> ignored;
  for (const auto& r : fit["args"]["ignoredResources"].GetArray()) ignored.emplace_back(r.GetString());
  EXPECT_EQ(ignored, (std::vector<std::string>{"nvidia.com/gpumem", "nvidia.com/gpumem-percentage",
                                               "nvidia.com/gpucores"}));
  profile.RemoveMember("pluginConfig");
  EXPECT_TRUE(gpu == base) << "the overlay's scheduler configuration drifted from the base's";
  const std::string kustomization = read(kRoot / "overlays/gpu-sharing/kustomization.yaml");
  EXPECT_NE(kustomization.find("../../base"), std::string::npos);
}

}  // namespace
}  // namespace gpu_overlay_test
}  // namespace kext

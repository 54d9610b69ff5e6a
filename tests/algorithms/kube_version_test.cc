#include "algorithms/kube_version.h"

#include <gtest/gtest.h>

namespace kext {
namespace kube_version_test {
namespace {

TEST(KubeVersion, ParsesWhatConfigurationsAndServersSay) {
  struct Case {
    std::string_view text;
    std::optional<int> minor;
  };
  const Case cases[] = {
      {"1.34", 34},
      {"v1.34", 34},
      {"1.34.2", 34},
      {"v1.36.3", 36},
      {"v1.31.4-gke.100", 31},
      {"v1.30.2+k3s1", 30},
      {"1.26", 26},
      {"1.40", 40},
      {"", std::nullopt},
      {"2.1", std::nullopt},
      {"1", std::nullopt},
      {"1.", std::nullopt},
      {"1.x", std::nullopt},
      {"1.34x", std::nullopt},
      {"1.34.", std::nullopt},
      {"v", std::nullopt},
  };
  for (const Case& c : cases) {
    const std::optional<KubeVersion> v = parse_kube_version(c.text);
    ASSERT_EQ(v.has_value(), c.minor.has_value()) << c.text;
    if (v) {
      EXPECT_EQ(v->minor, *c.minor) << c.text;
    }
  }
}

TEST(KubeVersion, ClampsToTheSupportedRangeAndSaysSo) {
  std::string note;
  EXPECT_EQ(clamp_supported(KubeVersion{25}, &note), KubeVersion::oldest());
  EXPECT_NE(note.find("1.25 is not reproduced"), std::string::npos) << note;
  EXPECT_EQ(clamp_supported(KubeVersion{38}, &note), KubeVersion::newest());
  EXPECT_NE(note.find("1.36's semantics run"), std::string::npos) << note;
  EXPECT_EQ(clamp_supported(KubeVersion{31}, &note), KubeVersion{31});
  EXPECT_TRUE(note.empty());
  EXPECT_TRUE(supported(KubeVersion{26}));
  EXPECT_FALSE(supported(KubeVersion{37}));
}

TEST(KubeVersion, EachChangeStartsAtItsMinor) {
  struct Row {
    const char* name;
    bool (*since)(KubeVersion);
    int minor;
  };
  const Row rows[] = {
      {"spread_empty_selector_counts_none", since::spread_empty_selector_counts_none, 27},
      {"spread_match_label_keys", since::spread_match_label_keys, 27},
      {"spread_min_domains", since::spread_min_domains, 27},
      {"retry_waits_only_for_preemption_victims", since::retry_waits_only_for_preemption_victims, 27},
      {"fit_skips_unrequested_resources", since::fit_skips_unrequested_resources, 28},
      {"restartable_init_containers", since::restartable_init_containers, 28},
      {"sidecar_requests", since::sidecar_requests, 29},
      {"image_locality_init_containers", since::image_locality_init_containers, 30},
      {"victims_resorted_by_priority", since::victims_resorted_by_priority, 29},
      {"affinity_match_label_keys", since::affinity_match_label_keys, 31},
      {"balanced_skips_best_effort", since::balanced_skips_best_effort, 33},
      {"allocated_resources", since::allocated_resources, 33},
      {"pod_level_resources", since::pod_level_resources, 34},
      {"fit_unresolvable_above_allocatable", since::fit_unresolvable_above_allocatable, 34},
      {"balanced_allocation_delta_formula", since::balanced_allocation_delta_formula, 36},
      {"dra_extended_resources", since::dra_extended_resources, 36},
      {"extender_filtered_nodes_score_idle", since::extender_filtered_nodes_score_idle, 33},
  };
  for (const Row& r : rows) {
    EXPECT_TRUE(r.since(KubeVersion{r.minor})) << r.name;
    EXPECT_FALSE(r.since(KubeVersion{r.minor - 1})) << r.name;
  }
}

}  // namespace
}  // namespace kube_version_test
}  // namespace kext

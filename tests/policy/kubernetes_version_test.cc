// Which kube-scheduler minor runs (policy/version_choice.h): the configuration's kubernetesVersion,
// decoded strictly and written back; the precedence of the flag, the file, the API server's /version and
// the newest; what load_scheduling_file compiles with it for each kind of file; and the operator warning
// for kubernetes issue #141781.
#include <gtest/gtest.h>

#include "policy/config.h"
#include "policy/version_choice.h"

namespace kext {
namespace policy_kubernetes_version_test {
namespace {

const std::string kHead = "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\n";
const std::string kSchedulerHead =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

std::string error_of(const std::string& yaml) {
  try {
    load_scheduling_file(yaml);
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(KubernetesVersionField, TakesTheFormsKubectlPrints) {
  for (const char* text : {"1.31", "v1.31", "1.31.4"}) {
    const Config c = parse_config(std::string(R"({"apiVersion":"kube-extender.io/v1alpha1",)") +
                                  R"("kind":"ExtenderConfiguration","kubernetesVersion":")" + text + "\"}");
    ASSERT_TRUE(c.kubernetes_version) << text;
    EXPECT_EQ(c.kubernetes_version->minor, 31) << text;
    EXPECT_EQ(c.args.version, KubeVersion{31}) << text;
  }
  const Config none =
      parse_config(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})");
  EXPECT_FALSE(none.kubernetes_version);
  EXPECT_EQ(none.args.version, KubeVersion::newest());
}

TEST(KubernetesVersionField, IsStrictAndNamesTheSupportedRange) {
  struct Case {
    std::string value;
    std::string want;
  };
  const Case cases[] = {
      {"\"1.40\"",
       "kubernetesVersion: \"1.40\": 1.40 is not reproduced by this extender (supported: 1.26 to 1.36)"},
      {"\"1.25.3\"",
       "kubernetesVersion: \"1.25.3\": 1.25 is not reproduced by this extender (supported: 1.26 to 1.36)"},
      {"\"latest\"",
       "kubernetesVersion: \"latest\" is not a Kubernetes version such as \"1.34\", \"v1.34\" or \"1.34.2\" "
       "(supported: 1.26 to 1.36)"},
      {"\"\"", "kubernetesVersion: \"\" is not a Kubernetes version"},
      // YAML's plain 1.30 is the number 1.3: refused, never read as 1.3.
      {"1.30",
       "kubernetesVersion: must be a string such as \"1.34\", got a number (quote it: YAML reads 1.30 as "
       "1.3)"},
      {"[1.30]", "kubernetesVersion: must be a string such as \"1.34\", got array"},
  };
  for (const Case& c : cases) {
    const std::string error = error_of(kHead + "kubernetesVersion: " + c.value + "\n");
    EXPECT_EQ(error.rfind(c.want, 0), 0u) << c.value << ": " << error;
  }
  // kube-scheduler's own file and the legacy Policy have no such field: the flag is theirs.
  EXPECT_EQ(error_of(kSchedulerHead + "kubernetesVersion: \"1.30\"\n"), "kubernetesVersion: unknown field");
  EXPECT_NE(
      error_of(R"({"kind":"Policy","kubernetesVersion":"1.30"})").find("kubernetesVersion: unknown field"),
      std::string::npos);
}

TEST(KubernetesVersionField, IsWrittenBackAndReadsBackTheSame) {
  Config c = parse_config(
      R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration","kubernetesVersion":"v1.29.1"})");
  const std::string json = config_to_json(c);
  EXPECT_NE(json.find(R"("kubernetesVersion":"1.29")"), std::string::npos) << json;
  EXPECT_EQ(parse_config(json), c);
  c.kubernetes_version.reset();
  c.args.version = KubeVersion::newest();
  EXPECT_EQ(config_to_json(c).find("kubernetesVersion"), std::string::npos);
  EXPECT_EQ(parse_config(config_to_json(c)), c);
}

TEST(VersionChoice, FlagThenFileThenServerThenNewest) {
  const ServerVersion server{"v1.31.0", ""};
  struct Case {
    const char* name;
    VersionChoice choice;
    std::optional<KubeVersion> file;
    int minor;
    VersionSource source;
  };
  const Case cases[] = {
      {"flag over all", {KubeVersion{29}, server}, KubeVersion{30}, 29, VersionSource::kFlag},
      {"file over the server", {std::nullopt, server}, KubeVersion{30}, 30, VersionSource::kConfiguration},
      {"the server", {std::nullopt, server}, std::nullopt, 31, VersionSource::kApiServer},
      {"no server", {}, std::nullopt, 36, VersionSource::kNewest},
  };
  for (const Case& c : cases) {
    const VersionInForce v = resolve_version(c.choice, c.file);
    EXPECT_EQ(v.version.minor, c.minor) << c.name;
    EXPECT_EQ(v.source, c.source) << c.name;
    EXPECT_TRUE(v.warning.empty()) << c.name << ": " << v.warning;
  }
}

TEST(VersionChoice, AServerOutsideTheRangeIsClampedAndAFailureFallsBackToTheNewest) {
  const VersionInForce newer = resolve_version({std::nullopt, ServerVersion{"v1.40.1", ""}}, std::nullopt);
  EXPECT_EQ(newer.version, KubeVersion::newest());
  EXPECT_EQ(newer.source, VersionSource::kApiServer);
  EXPECT_EQ(newer.warning, "1.40 is not reproduced by this extender (1.26 to 1.36): 1.36's semantics run");
  EXPECT_EQ(describe(newer), "kube-scheduler 1.36 semantics (from the API server's /version v1.40.1)");

  const VersionInForce older =
      resolve_version({std::nullopt, ServerVersion{"v1.24.17-eks-1", ""}}, std::nullopt);
  EXPECT_EQ(older.version, KubeVersion::oldest());
  EXPECT_FALSE(older.warning.empty());

  const VersionInForce failed =
      resolve_version({std::nullopt, ServerVersion{"", "HTTP 403: forbidden"}}, std::nullopt);
  EXPECT_EQ(failed.version, KubeVersion::newest());
  EXPECT_EQ(failed.source, VersionSource::kNewest);
  EXPECT_EQ(failed.warning, "the API server's /version failed (HTTP 403: forbidden): 1.36's semantics run");
  EXPECT_EQ(describe(failed),
            "kube-scheduler 1.36 semantics (the newest supported: no version from the API server)");

  const VersionInForce garbled = resolve_version({std::nullopt, ServerVersion{"devel", ""}}, std::nullopt);
  EXPECT_EQ(garbled.source, VersionSource::kNewest);
  EXPECT_NE(garbled.warning.find("gitVersion \"devel\" is not a Kubernetes version"), std::string::npos);

  // The file or the flag decide: the server is not consulted, nothing to warn about.
  EXPECT_TRUE(resolve_version({KubeVersion{30}, ServerVersion{"", "refused"}}, std::nullopt).warning.empty());
}

TEST(VersionChoice, SaysWhereTheVersionCameFrom) {
  EXPECT_EQ(describe(resolve_version({KubeVersion{29}, std::nullopt}, std::nullopt)),
            "kube-scheduler 1.29 semantics (--kubernetes-version)");
  EXPECT_EQ(describe(resolve_version({}, KubeVersion{30})),
            "kube-scheduler 1.30 semantics (the configuration's kubernetesVersion)");
  EXPECT_EQ(describe(resolve_version({std::nullopt, ServerVersion{"v1.36.3", ""}}, std::nullopt)),
            "kube-scheduler 1.36 semantics (from the API server's /version v1.36.3)");
  EXPECT_EQ(describe(resolve_version({}, std::nullopt)),
            "kube-scheduler 1.36 semantics (the newest supported: no API server)");
  EXPECT_EQ(source_label(VersionSource::kFlag), "flag");
  EXPECT_EQ(source_label(VersionSource::kConfiguration), "config");
  EXPECT_EQ(source_label(VersionSource::kApiServer), "apiserver");
  EXPECT_EQ(source_label(VersionSource::kNewest), "default");
}

TEST(VersionChoice, TheFlagIsCheckedAsTheFieldIs) {
  EXPECT_EQ(parse_version_flag("v1.29"), KubeVersion{29});
  EXPECT_THROW(parse_version_flag("1.37"), std::invalid_argument);
  try {
    parse_version_flag("one.thirty");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(supported: 1.26 to 1.36)"), std::string::npos) << e.what();
  }
  EXPECT_NE(version_flag_help().find("1.26 to 1.36"), std::string::npos);
}

// What every kind of file compiles with: the plugins' args, the profile and preemption all carry the
// minor in force, and the effective configuration says it when the flag or the file chose it.
TEST(LoadSchedulingFile, CompilesTheVersionInForce) {
  const ServerVersion server{"v1.31.0", ""};
  auto expect_runs = [](const LoadedFile& f, int minor, VersionSource source, const char* what) {
    EXPECT_EQ(f.version.version.minor, minor) << what;
    EXPECT_EQ(f.version.source, source) << what;
    EXPECT_EQ(f.profile.version.minor, minor) << what;
    EXPECT_EQ(f.profile.preemption.select.version.minor, minor) << what;
  };
  const std::string pinned = kHead + "kubernetesVersion: \"1.30\"\n";
  expect_runs(load_scheduling_file(pinned, {}, {std::nullopt, server}), 30, VersionSource::kConfiguration,
              "the file over the server");
  const LoadedFile flagged = load_scheduling_file(pinned, {}, {KubeVersion{29}, server});
  expect_runs(flagged, 29, VersionSource::kFlag, "the flag over the file");
  EXPECT_EQ(parse_config(flagged.effective_config).kubernetes_version, KubeVersion{29});
  const LoadedFile from_server = load_scheduling_file(kHead, {}, {std::nullopt, server});
  expect_runs(from_server, 31, VersionSource::kApiServer, "ExtenderConfiguration, the server");
  // The printed configuration follows its cluster: the server's minor is not written into it.
  EXPECT_FALSE(parse_config(from_server.effective_config).kubernetes_version);

  expect_runs(load_scheduling_file(std::string(default_scheduler_config_json()), {}, {std::nullopt, server}),
              31, VersionSource::kApiServer, "KubeSchedulerConfiguration");
  const LoadedFile legacy =
      load_scheduling_file(std::string(default_policy_json()), {}, {KubeVersion{27}, server});
  expect_runs(legacy, 27, VersionSource::kFlag, "legacy Policy");
  EXPECT_EQ(parse_config(legacy.effective_config).kubernetes_version, KubeVersion{27});
  expect_runs(load_scheduling_file(std::string(default_config_json())), 36, VersionSource::kNewest,
              "embedded");
}

// kubernetes issue #141781: from 1.33 a scheduler whose extender entry has nodeCacheCapable: false and a
// filterVerb scores NodeResourcesFit and NodeResourcesBalancedAllocation as if the nodes were idle.
TEST(SchedulerConfig, WarnsAboutIdleScoresBehindAFullNodesFilterFrom133) {
  SchedulerExtender e;
  e.url_prefix = "http://127.0.0.1:8888";
  e.filter_verb = "filter";
  e.prioritize_verb = "prioritize";
  auto warnings = [](const SchedulerExtender& entry, int minor, bool cluster_state = true) {
    return extender_entry_warnings({entry},
                                   ExtenderSettings{cluster_state, false, false, "", KubeVersion{minor}});
  };
  const std::vector<std::string> at_33 = warnings(e, 33);
  ASSERT_EQ(at_33.size(), 1u);
  EXPECT_EQ(
      at_33[0],
      "extenders[0].nodeCacheCapable: false with a filterVerb: kube-scheduler 1.33 scores NodeResourcesFit "
      "and NodeResourcesBalancedAllocation as if every node the extender returns were idle (kubernetes "
      "issue #141781); set nodeCacheCapable: true");
  EXPECT_TRUE(warnings(e, 32).empty());  // before PR #130537 Score looked the node up by name
  EXPECT_EQ(warnings(e, 36).size(), 1u);
  // Without cluster state, nodeCacheCapable: true needs it too.
  ASSERT_EQ(warnings(e, 36, false).size(), 1u);
  EXPECT_TRUE(
      warnings(e, 36, false)[0].ends_with("set nodeCacheCapable: true and give this extender cluster state"));
  SchedulerExtender names = e;
  names.node_cache_capable = true;
  EXPECT_TRUE(warnings(names, 36).empty());
  SchedulerExtender prioritize_only = e;
  prioritize_only.filter_verb.clear();
  EXPECT_TRUE(warnings(prioritize_only, 36).empty());  // no filter: the scheduler's own NodeInfos are scored
}

}  // namespace
}  // namespace policy_kubernetes_version_test
}  // namespace kext

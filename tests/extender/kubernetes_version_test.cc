// The real kube-extender choosing the kube-scheduler minor it reproduces (policy/version_choice.h):
// against the in-repo API server's /version, under --kubernetes-version and a configuration's
// kubernetesVersion, and refusing bad values. The log says which minor runs and why; /metrics says the
// same in kube_extender_kubernetes_semantics_info.
#include <gtest/gtest.h>
#include <httplib.h>

#include <string>
#include <vector>

#include "tests/support/extender_process.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/live_cluster.h"
#include "tests/support/temp_dir.h"

namespace kext {
namespace extender_kubernetes_version_test {
namespace {

using testing::ExtenderProcess;
using testing::FakeApiServer;

struct Started {
  std::string log;
  std::string metrics;
};

// Starts the extender with `args`, reads its start-up log and one /metrics, and stops it.
Started start(const std::vector<std::string>& args) {
  ExtenderProcess p(KEXT_BINARY, args);
  EXPECT_GT(p.port(), 0) << p.log();
  if (p.port() <= 0) return {p.log(), ""};
  httplib::Client client("127.0.0.1", p.port());
  const httplib::Result r = client.Get("/metrics");
  return {p.log(), r && r->status == 200 ? r->body : std::string()};
}

std::string series(const std::string& version, const std::string& source) {
  return "kube_extender_kubernetes_semantics_info{version=\"" + version + "\",source=\"" + source + "\"} 1\n";
}

std::vector<std::string> with_server(const FakeApiServer& api, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"--kubeconfig",
                                   testing::write_temp("version-kubeconfig", api.kubeconfig())};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(KubernetesVersion, TheApiServersVersionDecides) {
  FakeApiServer api;  // v1.36.3
  const Started latest = start(with_server(api));
  EXPECT_NE(latest.log.find("kube-scheduler 1.36 semantics (from the API server's /version v1.36.3)\n"),
            std::string::npos)
      << latest.log;
  EXPECT_NE(latest.metrics.find(series("1.36", "apiserver")), std::string::npos) << latest.metrics;

  api.set_git_version("v1.31.0");
  const Started older = start(with_server(api));
  EXPECT_NE(older.log.find("kube-scheduler 1.31 semantics (from the API server's /version v1.31.0)\n"),
            std::string::npos)
      << older.log;
  EXPECT_NE(older.metrics.find(series("1.31", "apiserver")), std::string::npos) << older.metrics;
  EXPECT_EQ(older.log.find("WARNING"), std::string::npos) << older.log;
}

TEST(KubernetesVersion, ANewerServerIsClampedWithAWarning) {
  FakeApiServer api;
  api.set_git_version("v1.40.1");
  const Started s = start(with_server(api));
  EXPECT_NE(
      s.log.find("WARNING: 1.40 is not reproduced by this extender (1.26 to 1.36): 1.36's semantics run\n"),
      std::string::npos)
      << s.log;
  EXPECT_NE(s.log.find("kube-scheduler 1.36 semantics (from the API server's /version v1.40.1)\n"),
            std::string::npos)
      << s.log;
  EXPECT_NE(s.metrics.find(series("1.36", "apiserver")), std::string::npos) << s.metrics;
}

TEST(KubernetesVersion, AFailedVersionRequestIsLoggedAndTheNewestRuns) {
  FakeApiServer api;
  api.fail_version(500);
  const Started s = start(with_server(api));
  EXPECT_NE(s.log.find("WARNING: the API server's /version failed (GET /version from " + api.url() +
                       ": HTTP 500: injected /version failure): 1.36's semantics run\n"),
            std::string::npos)
      << s.log;
  EXPECT_NE(
      s.log.find("kube-scheduler 1.36 semantics (the newest supported: no version from the API server)"),
      std::string::npos)
      << s.log;
  EXPECT_NE(s.metrics.find(series("1.36", "default")), std::string::npos) << s.metrics;
}

TEST(KubernetesVersion, TheFlagWinsOverTheFileWhichWinsOverTheServer) {
  FakeApiServer api;
  api.set_git_version("v1.31.0");
  const Started flag = start(with_server(api, {"--kubernetes-version", "1.29"}));
  EXPECT_NE(flag.log.find("kube-scheduler 1.29 semantics (--kubernetes-version)\n"), std::string::npos)
      << flag.log;
  EXPECT_NE(flag.metrics.find(series("1.29", "flag")), std::string::npos) << flag.metrics;

  testing::TempDir dir("kubernetes-version");
  const std::string config = (dir.path() / "config.yaml").string();
  testing::spit(
      config,
      "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nkubernetesVersion: \"v1.30\"\n");
  const Started file = start(with_server(api, {"--config", config}));
  EXPECT_NE(file.log.find("kube-scheduler 1.30 semantics (the configuration's kubernetesVersion)\n"),
            std::string::npos)
      << file.log;
  EXPECT_NE(file.metrics.find(series("1.30", "config")), std::string::npos) << file.metrics;
  const Started both = start(with_server(api, {"--config", config, "--kubernetes-version=v1.27.4"}));
  EXPECT_NE(both.metrics.find(series("1.27", "flag")), std::string::npos) << both.metrics;

  // Without an API server, the newest.
  const Started alone = start({});
  EXPECT_NE(alone.log.find("kube-scheduler 1.36 semantics (the newest supported: no API server)\n"),
            std::string::npos)
      << alone.log;
  EXPECT_NE(alone.metrics.find(series("1.36", "default")), std::string::npos) << alone.metrics;
}

// A bad flag is a usage error (exit 2), a bad field a configuration error (exit 1); both name what is
// wrong and the supported range.
TEST(KubernetesVersion, BadValuesAreRefused) {
  for (const char* value : {"1.40", "1.25", "latest", "1.3x"}) {
    ExtenderProcess p(KEXT_BINARY, {"--kubernetes-version", value});
    EXPECT_EQ(p.wait_exit(std::chrono::seconds(10)), 2) << value;
    EXPECT_NE(p.log().find("kube-extender: --kubernetes-version: \"" + std::string(value) + "\""),
              std::string::npos)
        << p.log();
    EXPECT_NE(p.log().find("(supported: 1.26 to 1.36)"), std::string::npos) << p.log();
  }
  testing::TempDir dir("kubernetes-version-bad");
  const std::string config = (dir.path() / "config.yaml").string();
  testing::spit(
      config,
      "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nkubernetesVersion: \"1.37\"\n");
  ExtenderProcess p(KEXT_BINARY, {"--config", config});
  EXPECT_EQ(p.wait_exit(std::chrono::seconds(10)), 1);
  EXPECT_NE(p.log().find(
                "--config " + config +
                ": kubernetesVersion: \"1.37\": 1.37 is not reproduced by this extender (supported: 1.26 to "
                "1.36)"),
            std::string::npos)
      << p.log();
}

// kubernetes issue #141781 at start-up: a scheduler entry with nodeCacheCapable: false and a filterVerb
// is warned about from 1.33 on, the minor in force deciding.
TEST(KubernetesVersion, TheIdleScoresWarningFollowsTheVersionInForce) {
  testing::TempDir dir("kubernetes-version-141781");
  const std::string config = (dir.path() / "scheduler.yaml").string();
  testing::spit(config,
                "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n"
                "- urlPrefix: http://127.0.0.1:8888\n  filterVerb: filter\n  prioritizeVerb: prioritize\n"
                "  weight: 1\n  nodeCacheCapable: false\n");
  const std::string warning =
      "extenders[0].nodeCacheCapable: false with a filterVerb: kube-scheduler 1.33 scores";
  const Started at_33 = start({"--config", config, "--kubernetes-version", "1.33"});
  EXPECT_NE(at_33.log.find("WARNING: --config " + config + ": " + warning), std::string::npos) << at_33.log;
  EXPECT_NE(at_33.log.find("kubernetes issue #141781); set nodeCacheCapable: true"), std::string::npos)
      << at_33.log;
  const Started at_32 = start({"--config", config, "--kubernetes-version", "1.32"});
  EXPECT_EQ(at_32.log.find("#141781"), std::string::npos) << at_32.log;
}

}  // namespace
}  // namespace extender_kubernetes_version_test
}  // namespace kext

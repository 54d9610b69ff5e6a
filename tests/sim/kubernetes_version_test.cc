// Which kube-scheduler minor extender-sim reproduces (sim/run.h load_sim_config, policy/version_choice.h):
// --kubernetes-version, else the configuration's kubernetesVersion (which the scheduler profile an
// extender's configuration joins follows too), else the live cluster's /version with --kubeconfig, else
// the newest; the summary says which, and --extender's served API says the same to the extender.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "sim/remote_extender.h"
#include "sim/run.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/temp_dir.h"

namespace kext::simtool {
namespace sim_kubernetes_version_test {
namespace {

using kext::testing::FakeApiServer;
using kext::testing::TempDir;

const std::string kCluster = R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"n1"},)"
                             R"("status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"}}}]})";

struct Files {
  TempDir dir{"sim-kubernetes-version"};
  std::string cluster = (dir.path() / "cluster.json").string();
  std::string pinned = (dir.path() / "pinned.yaml").string();  // an ExtenderConfiguration at 1.30
  Files() {
    kext::testing::spit(cluster, kCluster);
    kext::testing::spit(pinned,
                        "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\n"
                        "kubernetesVersion: \"1.30\"\n");
  }
  SimCommand live(const FakeApiServer& api) const {
    SimCommand c;
    c.kubeconfig = (dir.path() / "kubeconfig").string();
    kext::testing::spit(c.kubeconfig, api.kubeconfig());
    return c;
  }
};

TEST(SimKubernetesVersion, TheLiveClustersVersionUnlessTheFlagOrTheFileSays) {
  Files f;
  FakeApiServer api;
  api.set_git_version("v1.31.0");
  SimCommand live = f.live(api);
  const SimConfig from_server = load_sim_config(live, "");
  EXPECT_EQ(from_server.version, KubeVersion{31});
  EXPECT_EQ(from_server.version_source, "apiserver");
  EXPECT_EQ(from_server.preemption.version, KubeVersion{31});
  EXPECT_TRUE(from_server.version_warning.empty());

  // The extender's configuration pins 1.30: its profile and the scheduler's beside it run 1.30.
  const SimConfig pinned = load_sim_config(live, f.pinned);
  EXPECT_EQ(pinned.version, KubeVersion{30});
  EXPECT_EQ(pinned.version_source, "config");
  EXPECT_EQ(pinned.preemption.version, KubeVersion{30});

  live.kubernetes_version = KubeVersion{29};
  const SimConfig flagged = load_sim_config(live, f.pinned);
  EXPECT_EQ(flagged.version, KubeVersion{29});
  EXPECT_EQ(flagged.version_source, "flag");
  EXPECT_EQ(flagged.preemption.version, KubeVersion{29});

  SimCommand offline;
  offline.cluster_file = f.cluster;
  const SimConfig newest = load_sim_config(offline, "");
  EXPECT_EQ(newest.version, KubeVersion::newest());
  EXPECT_EQ(newest.version_source, "default");
}

TEST(SimKubernetesVersion, AServerOutsideTheRangeIsClampedWithAWarning) {
  Files f;
  FakeApiServer api;
  api.set_git_version("v1.40.1");
  const SimConfig c = load_sim_config(f.live(api), "");
  EXPECT_EQ(c.version, KubeVersion::newest());
  EXPECT_EQ(c.version_source, "apiserver");
  EXPECT_NE(c.version_warning.find("1.40 is not reproduced"), std::string::npos) << c.version_warning;
  api.fail_version(500);
  const SimConfig failed = load_sim_config(f.live(api), "");
  EXPECT_EQ(failed.version_source, "default");
  EXPECT_NE(failed.version_warning.find("HTTP 500"), std::string::npos) << failed.version_warning;
}

// The summary's first row, and the HTML report's, which reads the same rows; stderr says why.
TEST(SimKubernetesVersion, TheSummarySaysWhichMinorRan) {
  Files f;
  const std::string out = (f.dir.path() / "out.txt").string();
  const std::string err = (f.dir.path() / "err.txt").string();
  const std::string html = (f.dir.path() / "report.html").string();
  const std::string cmd = std::string(KEXT_SIM_BINARY) + " --cluster " + f.cluster + " --config " + f.pinned +
                          " --compare " + f.pinned + " --kubernetes-version 1.29 --html " + html + " >" +
                          out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
  const std::string text = kext::testing::slurp(out);
  EXPECT_EQ(text.find("\nkube-scheduler "), text.find('\n')) << "the first row: " << text;
  const size_t row = text.find('\n') + 1;
  const std::string first_row = text.substr(row, text.find('\n', row) - row);
  EXPECT_TRUE(first_row.ends_with(" 1.29") && first_row.find(" 1.29 ") != std::string::npos) << first_row;
  EXPECT_NE(kext::testing::slurp(html).find("<td>kube-scheduler</td><td class=\"n\">1.29</td>"),
            std::string::npos);
  EXPECT_EQ(kext::testing::slurp(err),
            "extender-sim: kube-scheduler 1.29 semantics (--kubernetes-version)\n"
            "extender-sim: --compare: kube-scheduler 1.29 semantics (--kubernetes-version)\n");

  SimCommand pinned;
  pinned.cluster_file = f.cluster;
  pinned.config_file = f.pinned;
  EXPECT_EQ(run_sim(pinned, nullptr).kubernetes_version, "1.30");
}

// With --extender the simulated cluster's API says the run's minor, so that a kube-extender that reads
// /version there runs the same.
TEST(SimKubernetesVersion, TheServedApiSaysTheRunsVersion) {
  SimCommand c;
  c.extender_url = "http://127.0.0.1:1";
  c.api_listen = "127.0.0.1:0";
  const std::unique_ptr<ExtenderLink> link = make_extender_link(c, 0, nullptr, {}, "v1.30.0");
  ASSERT_NE(link, nullptr);
  httplib::Client client("127.0.0.1", link->api->port());
  const httplib::Result r = client.Get("/version");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find(R"("gitVersion":"v1.30.0")"), std::string::npos) << r->body;
}

}  // namespace
}  // namespace sim_kubernetes_version_test
}  // namespace kext::simtool

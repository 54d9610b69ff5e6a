// kubeconfig (the YAML kubectl, kind and the cloud CLIs write, YAML written by hand, and JSON), in-cluster
// configuration, server URLs.
#include "kube/client/api_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

namespace kext::kube {
namespace api_config_test {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("kext-cfg-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

const char* kKubeconfig = R"(apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    server: https://api.example.com:6443/prefix/
  name: prod
- cluster:
    server: https://[fd00::1]
    insecure-skip-tls-verify: true
  name: lab
contexts:
- context:
    cluster: prod
    user: admin
  name: prod-admin
- context:
    cluster: lab
    user: robot
  name: lab-robot
current-context: prod-admin
users:
- name: admin
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
- name: robot
  user:
    tokenFile: token.txt
)";

TEST(Kubeconfig, CurrentContextWithInlineCredentials) {
  auto path = temp_file("config", kKubeconfig);
  temp_file("token.txt", "t0k3n\n");
  ApiConfig c = kubeconfig_config(path);
  EXPECT_EQ(c.host, "api.example.com");
  EXPECT_EQ(c.port, 6443);
  EXPECT_EQ(c.base_path, "/prefix");
  EXPECT_EQ(c.ca_pem, "-----BEGIN CERTIFICATE-----");
  EXPECT_EQ(c.client_cert_pem, "cert");
  EXPECT_EQ(c.client_key_pem, "key");
  EXPECT_FALSE(c.insecure_skip_tls_verify);

  ApiConfig lab = kubeconfig_config(path, "lab-robot");
  EXPECT_EQ(lab.host, "fd00::1");
  EXPECT_EQ(lab.port, 443);
  EXPECT_TRUE(lab.insecure_skip_tls_verify);
  EXPECT_EQ(lab.token_file,
            (std::filesystem::path(path).parent_path() / "token.txt").string());  // relative to the file
}

TEST(Kubeconfig, ErrorsNameFileContextAndField) {
  auto path = temp_file("config2", kKubeconfig);
  auto message = [](auto fn) {
    try {
      fn();
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { kubeconfig_config(path, "missing"); }).find("context \"missing\" not found"),
            std::string::npos);
  EXPECT_NE(message([] {
              kubeconfig_config("/no/such/kubeconfig");
            }).find("--kubeconfig /no/such/kubeconfig: No such file"),
            std::string::npos);
  auto bad = temp_file("config3",
                       "current-context: x\ncontexts:\n- name: x\n  context:\n    cluster: c\nclusters:\n- "
                       "name: c\n  cluster:\n    server: ftp://x\n");
  EXPECT_NE(message([&] { kubeconfig_config(bad); }).find("scheme must be https or http"), std::string::npos);
  auto exec = temp_file("config4",
                        "current-context: x\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                        "clusters:\n- name: c\n  cluster:\n    server: https://x\nusers:\n- name: u\n  "
                        "user:\n    exec:\n      command: aws\n");
  EXPECT_NE(message([&] {
              kubeconfig_config(exec);
            }).find("user \"u\" (users[0].user.exec): exec credential plugins are not supported"),
            std::string::npos);
  auto json =
      temp_file("config.json", R"({"current-context":"x","contexts":[{"name":"x","context":{"cluster":"c"}}],
      "clusters":[{"name":"c","cluster":{"server":"http://127.0.0.1:8001"}}]})");
  ApiConfig j = kubeconfig_config(json);
  EXPECT_EQ(j.scheme, "http");
  EXPECT_EQ(j.port, 8001);
}

// Credentials as base64, the way every tool writes them: "CA", "CERT", "KEY".
#define CA_DATA "Q0E="
#define CERT_DATA "Q0VSVA=="
#define KEY_DATA "S0VZ"

struct Want {
  std::string server_url;
  std::string token;
  bool insecure = false;
  bool client_cert = false;  // CERT/KEY read
  bool ca = true;            // CA read
};

struct KubeconfigCase {
  const char* name;
  const char* text;
  std::string context;
  std::optional<Want> want;  // or the error:
  std::string error;
};

// Kubeconfigs as the tools that write them lay them out.
TEST(Kubeconfig, AsToolsWriteThem) {
  const KubeconfigCase cases[] = {
      {"kubeadm's admin.conf / kubectl config set-*",
       "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: " CA_DATA "\n"
       "    server: https://10.0.0.1:6443\n  name: kubernetes\ncontexts:\n- context:\n    cluster: "
       "kubernetes\n"
       "    user: kubernetes-admin\n  name: kubernetes-admin@kubernetes\ncurrent-context: "
       "kubernetes-admin@kubernetes\n"
       "kind: Config\npreferences: {}\nusers:\n- name: kubernetes-admin\n  user:\n"
       "    client-certificate-data: " CERT_DATA "\n    client-key-data: " KEY_DATA "\n",
       "", Want{"https://10.0.0.1:6443", "", false, true}, ""},
      {"minikube: a namespace and extensions on the context, a token user",
       "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: " CA_DATA "\n"
       "    extensions:\n    - extension:\n        last-update: Mon, 01 Jan 2024 10:00:00 UTC\n"
       "        provider: minikube.sigs.k8s.io\n        version: v1.32.0\n      name: cluster_info\n"
       "    server: https://192.168.49.2:8443\n  name: minikube\ncontexts:\n- context:\n    cluster: "
       "minikube\n"
       "    extensions:\n    - extension:\n        provider: minikube.sigs.k8s.io\n      name: context_info\n"
       "    namespace: default\n    user: robot\n  name: minikube\ncurrent-context: minikube\nkind: Config\n"
       "preferences: {}\nusers:\n- name: robot\n  user:\n    token: abc.def-ghi\n",
       "", Want{"https://192.168.49.2:8443", "abc.def-ghi"}, ""},
      {"kind",
       "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: " CA_DATA "\n"
       "    server: https://127.0.0.1:36789\n  name: kind-kind\ncontexts:\n- context:\n    cluster: "
       "kind-kind\n"
       "    user: kind-kind\n  name: kind-kind\ncurrent-context: kind-kind\nkind: Config\npreferences: {}\n"
       "users:\n- name: kind-kind\n  user:\n    client-certificate-data: " CERT_DATA "\n"
       "    client-key-data: " KEY_DATA "\n",
       "", Want{"https://127.0.0.1:36789", "", false, true}, ""},
      {"AKS (az aks get-credentials --admin): certificate and token",
       "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: " CA_DATA "\n"
       "    server: https://myaks-dns-1a2b3c4d.hcp.westeurope.azmk8s.io:443\n  name: myaks\ncontexts:\n"
       "- context:\n    cluster: myaks\n    user: clusterAdmin_myrg_myaks\n  name: myaks-admin\n"
       "current-context: myaks-admin\nkind: Config\npreferences: {}\nusers:\n- name: "
       "clusterAdmin_myrg_myaks\n"
       "  user:\n    client-certificate-data: " CERT_DATA "\n    client-key-data: " KEY_DATA "\n"
       "    token: 0123456789abcdef\n",
       "", Want{"https://myaks-dns-1a2b3c4d.hcp.westeurope.azmk8s.io:443", "0123456789abcdef", false, true},
       ""},
      {"GKE (gcloud): an exec plugin, with a multi-line plain installHint",
       "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: " CA_DATA "\n"
       "    server: https://34.120.1.2\n  name: gke_proj_us-central1-a_prod\ncontexts:\n- context:\n"
       "    cluster: gke_proj_us-central1-a_prod\n    user: gke_proj_us-central1-a_prod\n"
       "  name: gke_proj_us-central1-a_prod\ncurrent-context: gke_proj_us-central1-a_prod\nkind: Config\n"
       "preferences: {}\nusers:\n- name: gke_proj_us-central1-a_prod\n  user:\n    exec:\n"
       "      apiVersion: client.authentication.k8s.io/v1beta1\n      command: gke-gcloud-auth-plugin\n"
       "      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following\n"
       "        https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke\n"
       "      provideClusterInfo: true\n",
       "", std::nullopt,
       ": user \"gke_proj_us-central1-a_prod\" (users[0].user.exec): exec credential plugins are not "
       "supported; use a client certificate or a token"},
      {"EKS (aws eks update-kubeconfig): ARN names, an exec plugin with args and env",
       "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: " CA_DATA "\n"
       "    server: https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com\n"
       "  name: arn:aws:eks:us-west-2:123456789012:cluster/demo\ncontexts:\n- context:\n"
       "    cluster: arn:aws:eks:us-west-2:123456789012:cluster/demo\n"
       "    user: arn:aws:eks:us-west-2:123456789012:cluster/demo\n"
       "  name: arn:aws:eks:us-west-2:123456789012:cluster/demo\n"
       "current-context: arn:aws:eks:us-west-2:123456789012:cluster/demo\nkind: Config\npreferences: {}\n"
       "users:\n- name: arn:aws:eks:us-west-2:123456789012:cluster/demo\n  user:\n    exec:\n"
       "      apiVersion: client.authentication.k8s.io/v1beta1\n      args:\n      - --region\n      - "
       "us-west-2\n"
       "      - eks\n      - get-token\n      - --cluster-name\n      - demo\n      command: aws\n      "
       "env:\n"
       "      - name: AWS_PROFILE\n        value: prod\n      interactiveMode: IfAvailable\n"
       "      provideClusterInfo: false\n",
       "", std::nullopt,
       ": user \"arn:aws:eks:us-west-2:123456789012:cluster/demo\" (users[0].user.exec): exec credential "
       "plugins are not supported"},
      {"an exec user another context names is not read",
       "current-context: ok\ncontexts:\n- {name: ok, context: {cluster: c, user: t}}\n"
       "- {name: eks, context: {cluster: c, user: e}}\nclusters:\n- {name: c, cluster: {server: "
       "'https://c'}}\n"
       "users:\n- {name: e, user: {exec: {command: aws}}}\n- {name: t, user: {token: tok}}\n",
       "", Want{"https://c:443", "tok", false, false, false}, ""},
      {"an auth-provider user",
       "current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://c'}}]\n"
       "users: [{name: u, user: {auth-provider: {name: oidc}}}]\n",
       "", std::nullopt,
       ": user \"u\" (users[0].user.auth-provider): auth-provider plugins are not supported"},
      {"hand-written: anchors, a folded CA, a \\u escape, True, a multi-line plain token",
       "defaults: &cluster\n  insecure-skip-tls-verify: True\n  certificate-authority-data: >-\n    Q0\n    "
       "E=\n"
       "clusters:\n- name: lab\n  cluster:\n    <<: *cluster\n    server: "
       "\"https://lab.\\u0065xample.com:8443\"\n"
       "contexts:\n- name: lab\n  context: {cluster: lab, user: me}\ncurrent-context: lab\n"
       "users:\n- name: me\n  user:\n    token: part-one\n      part-two\n",
       "", Want{"https://lab.example.com:8443", "part-one part-two", true}, ""},
      {"insecure-skip-tls-verify: TRUE, in another context",
       "current-context: a\ncontexts: [{name: a, context: {cluster: c}}, {name: b, context: {cluster: d}}]\n"
       "clusters:\n- name: c\n  cluster: {server: 'https://c'}\n- name: d\n  cluster:\n    server: "
       "https://d\n"
       "    insecure-skip-tls-verify: TRUE\n",
       "b", Want{"https://d:443", "", true, false, false}, ""},
      {"JSON",
       R"({"apiVersion":"v1","kind":"Config","current-context":"x",
        "contexts":[{"name":"x","context":{"cluster":"c","user":"u"}}],
        "clusters":[{"name":"c","cluster":{"server":"https://c:6443","certificate-authority-data":")" CA_DATA
       R"("}}],
        "users":[{"name":"u","user":{"token":"t\u00f6k"}}]})",
       "", Want{"https://c:6443", "t\xc3\xb6k"}, ""},
      {"keys match case-insensitively, as encoding/json does",
       "Current-Context: x\nContexts: [{Name: x, Context: {Cluster: c}}]\nClusters: [{Name: c, Cluster: "
       "{Server: 'https://c'}}]\n",
       "", Want{"https://c:443", "", false, false, false}, ""},
      {"a quoted boolean is a string",
       "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://c', insecure-skip-tls-verify: \"true\"}}]\n",
       "", std::nullopt, ": clusters[0].cluster.insecure-skip-tls-verify: expected boolean, got string"},
      {"yes is a string (YAML 1.2)",
       "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://c', insecure-skip-tls-verify: yes}}]\n",
       "", std::nullopt, ": clusters[0].cluster.insecure-skip-tls-verify: expected boolean, got string"},
      {"a numeric server",
       "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {server: 6443}}]\n",
       "", std::nullopt, ": clusters[0].cluster.server: expected string, got number"},
      {"users as a mapping",
       "current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://c'}}]\nusers: {u: {token: t}}\n",
       "", std::nullopt, ": users: expected array, got object"},
      {"a context entry that is a string", "current-context: x\ncontexts: [x]\n", "", std::nullopt,
       ": contexts[0]: expected object, got string"},
      {"a token that is a list",
       "current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://c'}}]\nusers: [{name: u, user: {token: [t]}}]\n",
       "", std::nullopt, ": users[0].user.token: expected string, got array"},
      {"not a mapping", "just text\n", "", std::nullopt, ": kubeconfig: expected object, got string"},
      {"bad YAML names its line", "current-context: x\ncontexts:\n- name: x\n   context: {}\n", "",
       std::nullopt, ": line 4, column 11: illegal map value"},
      {"duplicate keys", "current-context: x\ncurrent-context: y\n", "", std::nullopt,
       ": line 2, column 1: duplicate key \"current-context\""},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = temp_file("tools/config" + std::to_string(n++), c.text);
    try {
      ApiConfig cfg = kubeconfig_config(path, c.context);
      ASSERT_TRUE(c.want) << "expected the error " << c.error;
      EXPECT_EQ(cfg.server_url(), c.want->server_url);
      EXPECT_EQ(cfg.token, c.want->token);
      EXPECT_EQ(cfg.insecure_skip_tls_verify, c.want->insecure);
      EXPECT_EQ(cfg.ca_pem, c.want->ca ? "CA" : "");
      EXPECT_EQ(cfg.client_cert_pem, c.want->client_cert ? "CERT" : "");
      EXPECT_EQ(cfg.client_key_pem, c.want->client_cert ? "KEY" : "");
    } catch (const ConfigError& e) {
      EXPECT_FALSE(c.want) << e.what();
      EXPECT_EQ(std::string(e.what()).find("--kubeconfig " + path + c.error), 0u) << e.what();
    }
  }
}

// mini_yaml, the reader before yaml-cpp, read `True` as false: the server's certificate was then
// verified against a kubeconfig that said not to.
TEST(Kubeconfig, InsecureSkipTlsVerifyTrueInEverySpelling) {
  for (const char* spelling : {"true", "True", "TRUE"}) {
    auto path = temp_file("insecure-" + std::string(spelling),
                          "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters:\n"
                          "- name: c\n  cluster:\n    server: https://c\n    insecure-skip-tls-verify: " +
                              std::string(spelling) + "\n");
    EXPECT_TRUE(kubeconfig_config(path).insecure_skip_tls_verify) << spelling;
  }
}

TEST(InCluster, ReadsTheServiceAccount) {
  temp_file("sa/token", "abc");
  auto ca = temp_file("sa/ca.crt", "PEM");
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  ApiConfig c = in_cluster_config(std::filesystem::path(ca).parent_path().string());
  EXPECT_EQ(c.server_url(), "https://10.96.0.1:443");
  EXPECT_EQ(c.ca_pem, "PEM");
  EXPECT_EQ(c.token_file, std::filesystem::path(ca).parent_path().string() + "/token");
  EXPECT_THROW(in_cluster_config("/no/such/dir"), ConfigError);
  unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_THROW(in_cluster_config(std::filesystem::path(ca).parent_path().string()), ConfigError);
}

}  // namespace
}  // namespace api_config_test
}  // namespace kext::kube

// kubeconfig (the YAML kubectl writes, and JSON), in-cluster configuration, server URLs.
#include "extender/kube/api_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "extender/kube/mini_yaml.h"

namespace kext::kube {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("kext-cfg-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

TEST(MiniYaml, ReadsKubectlStyle) {
  auto root = yaml::parse(R"(apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: QUJD  # a comment
    server: "https://10.0.0.1:6443"
  name: prod
- name: 'it''s'
  cluster: {}
preferences: {}
list:
  - a
  - "b # not a comment"
)");
  const auto* clusters = root.get("clusters");
  ASSERT_NE(clusters, nullptr);
  ASSERT_EQ(clusters->seq.size(), 2u);
  EXPECT_EQ(clusters->seq[0].get("cluster")->str("server"), "https://10.0.0.1:6443");
  EXPECT_EQ(clusters->seq[0].get("cluster")->str("certificate-authority-data"), "QUJD");
  EXPECT_EQ(clusters->seq[0].str("name"), "prod");
  EXPECT_EQ(clusters->seq[1].str("name"), "it's");
  EXPECT_EQ(root.get("list")->seq[1].scalar, "b # not a comment");
  EXPECT_EQ(root.get("preferences")->kind, yaml::Node::Kind::Map);
}

TEST(MiniYaml, RejectsWhatItCannotRead) {
  EXPECT_THROW(yaml::parse("a: >\n  folded\n"), yaml::YamlError);
  EXPECT_THROW(yaml::parse("a: &anchor x\n"), yaml::YamlError);
  EXPECT_THROW(yaml::parse("a: 1\n   b: 2\n"), yaml::YamlError);
  EXPECT_THROW(yaml::parse("a:\n\tb: 1\n"), yaml::YamlError);
  try {
    yaml::parse("a: 1\nnot a mapping line\n");
    FAIL();
  } catch (const yaml::YamlError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos);
  }
}

// The JSON reader and Node's destructor recursed once per level: {"a":[[[…]]]} 20000 levels deep
// overflowed the stack (ASan in the kubeconfig fuzz harness; tests/fuzz/regressions/kubeconfig/).
TEST(MiniYaml, DeepNestingIsAnErrorNotAStackOverflow) {
  const size_t levels = 1000000;
  const std::string json = "{\"a\":" + std::string(levels, '[') + std::string(levels, ']') + "}";
  EXPECT_THROW(yaml::parse(json), yaml::YamlError);
  std::string indented;
  for (size_t i = 0; i < 150; ++i) indented += std::string(i, ' ') + "k:\n";
  try {
    yaml::parse(indented);
    FAIL() << "expected an error";
  } catch (const yaml::YamlError& e) {
    EXPECT_STREQ(e.what(), "line 101: nested deeper than 100 levels");
  }
  std::string sequences;  // "- k:" items, each opening a sequence at its key's indent
  for (size_t i = 0; i < 150; ++i) sequences += std::string(2 * i, ' ') + "- k:\n";
  EXPECT_THROW(yaml::parse(sequences), yaml::YamlError);
  // 100 levels still read.
  EXPECT_NO_THROW(yaml::parse("{\"a\":" + std::string(98, '[') + std::string(98, ']') + "}"));
  EXPECT_NO_THROW(yaml::parse(indented.substr(0, indented.find(std::string(100, ' ') + "k:"))));
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
  EXPECT_NE(message([&] { kubeconfig_config(exec); }).find("exec/auth-provider"), std::string::npos);
  auto json =
      temp_file("config.json", R"({"current-context":"x","contexts":[{"name":"x","context":{"cluster":"c"}}],
      "clusters":[{"name":"c","cluster":{"server":"http://127.0.0.1:8001"}}]})");
  ApiConfig j = kubeconfig_config(json);
  EXPECT_EQ(j.scheme, "http");
  EXPECT_EQ(j.port, 8001);
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
}  // namespace kext::kube

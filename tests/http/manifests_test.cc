// manifests/ (kubectl apply -k): the pieces must fit together. Files exist, kinds are there, the
// extender's --policy points into its mounted ConfigMap and that policy parses, the scheduler's
// urlPrefix names the Service, and the probe paths answer on a real server.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "extender/kube/mini_yaml.h"
#include "test_server.h"

namespace kext::testing {
namespace {

namespace fs = std::filesystem;
using yaml::Node;

const fs::path kDir = fs::path(KEXT_FIXTURES_DIR) / ".." / ".." / ".." / "manifests";

struct Manifests {
  std::vector<std::string> resources;  // kustomization order
  std::vector<Node> objects;           // every document of every resource

  const Node* find(std::string_view kind, std::string_view name) const {
    for (const auto& o : objects) {
      if (o.str("kind") == kind && o.at({"metadata", "name"}) && o.at({"metadata", "name"})->scalar == name) return &o;
    }
    return nullptr;
  }
  std::vector<const Node*> all(std::string_view kind) const {
    std::vector<const Node*> out;
    for (const auto& o : objects) {
      if (o.str("kind") == kind) out.push_back(&o);
    }
    return out;
  }
};

Manifests load() {
  Manifests m;
  auto kustomization = yaml::parse_all(read_file((kDir / "kustomization.yaml").string()));
  EXPECT_EQ(kustomization.size(), 1u);
  if (kustomization.empty()) return m;
  EXPECT_EQ(kustomization[0].str("kind"), "Kustomization");
  const Node* resources = kustomization[0].get("resources");
  EXPECT_TRUE(resources && resources->kind == Node::Kind::Seq);
  if (!resources) return m;
  for (const auto& r : resources->seq) {
    m.resources.push_back(r.scalar);
    EXPECT_TRUE(fs::exists(kDir / r.scalar)) << r.scalar;
    for (auto& doc : yaml::parse_all(read_file((kDir / r.scalar).string()))) {
      EXPECT_FALSE(doc.str("apiVersion").empty()) << r.scalar;
      EXPECT_FALSE(doc.str("kind").empty()) << r.scalar;
      m.objects.push_back(std::move(doc));
    }
  }
  return m;
}

const Node& container(const Node& deployment) {
  static const Node empty;
  const Node* cs = deployment.at({"spec", "template", "spec", "containers"});
  return cs && !cs->seq.empty() ? cs->seq[0] : empty;
}

std::vector<std::string> strings(const Node* seq) {
  std::vector<std::string> out;
  if (seq) {
    for (const auto& s : seq->seq) out.push_back(s.scalar);
  }
  return out;
}

// The value of `--flag V` or `--flag=V` in args.
std::string flag_value(const std::vector<std::string>& args, const std::string& flag) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
    if (args[i].starts_with(flag + "=")) return args[i].substr(flag.size() + 1);
  }
  return {};
}

// The ConfigMap key a file path inside a container reads: {configmap name, key}, via volumeMounts.
std::pair<std::string, std::string> configmap_file(const Node& deployment, const std::string& path) {
  const Node& c = container(deployment);
  const Node* mounts = c.get("volumeMounts");
  const Node* volumes = deployment.at({"spec", "template", "spec", "volumes"});
  if (!mounts || !volumes) return {};
  for (const auto& mnt : mounts->seq) {
    const std::string dir = mnt.str("mountPath");
    if (!path.starts_with(dir + "/")) continue;
    for (const auto& v : volumes->seq) {
      if (v.str("name") != mnt.str("name") || !v.get("configMap")) continue;
      return {v.get("configMap")->str("name"), path.substr(dir.size() + 1)};
    }
  }
  return {};
}

TEST(Manifests, KustomizationListsExistingFilesWithTheExpectedKinds) {
  Manifests m = load();
  ASSERT_FALSE(m.objects.empty());
  for (const char* kind : {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap",
                           "Deployment", "Service", "Role", "RoleBinding"}) {
    EXPECT_FALSE(m.all(kind).empty()) << kind;
  }
  EXPECT_TRUE(m.find("Deployment", "kube-extender"));
  EXPECT_TRUE(m.find("Deployment", "kube-extender-scheduler"));
  EXPECT_TRUE(m.find("ServiceAccount", "kube-extender"));
  EXPECT_TRUE(m.find("ServiceAccount", "kube-extender-scheduler"));
  // Namespaced objects all live in the one namespace the kustomization creates (bar the
  // authentication reader binding, which must sit in kube-system).
  const Node* ns = m.all("Namespace").front();
  for (const auto& o : m.objects) {
    const std::string namespace_ = o.at({"metadata", "namespace"}) ? o.at({"metadata", "namespace"})->scalar : "";
    if (namespace_.empty() || namespace_ == "kube-system") continue;
    EXPECT_EQ(namespace_, ns->at({"metadata", "name"})->scalar) << o.at({"metadata", "name"})->scalar;
  }
  // The snippet for the default scheduler is documentation, not applied.
  EXPECT_TRUE(fs::exists(kDir / "default-scheduler-snippet.yaml"));
  EXPECT_EQ(std::count(m.resources.begin(), m.resources.end(), "default-scheduler-snippet.yaml"), 0);
}

TEST(Manifests, ExtenderRbacIsReadOnlyPlusASeparateBindRole) {
  Manifests m = load();
  const Node* role = m.find("ClusterRole", "kube-extender");
  ASSERT_TRUE(role);
  std::map<std::string, std::vector<std::string>> granted;  // resource -> verbs
  for (const auto& rule : role->get("rules")->seq) {
    for (const auto& r : strings(rule.get("resources"))) granted[r] = strings(rule.get("verbs"));
  }
  const std::vector<std::string> read = {"get", "list", "watch"};
  EXPECT_EQ(granted, (std::map<std::string, std::vector<std::string>>{
                         {"nodes", read}, {"pods", read}, {"poddisruptionbudgets", read}}));
  const Node* bind = m.find("ClusterRole", "kube-extender-bind");
  ASSERT_TRUE(bind);
  ASSERT_EQ(bind->get("rules")->seq.size(), 1u);
  EXPECT_EQ(strings(bind->get("rules")->seq[0].get("resources")), std::vector<std::string>{"pods/binding"});
  EXPECT_EQ(strings(bind->get("rules")->seq[0].get("verbs")), std::vector<std::string>{"create"});
  // Both roles are bound to the extender's service account.
  for (const char* name : {"kube-extender", "kube-extender-bind"}) {
    const Node* binding = m.find("ClusterRoleBinding", name);
    ASSERT_TRUE(binding) << name;
    EXPECT_EQ(binding->at({"roleRef"})->str("name"), name);
    EXPECT_EQ(binding->get("subjects")->seq[0].str("name"), "kube-extender");
  }
  // The scheduler runs as kube-scheduler does.
  std::vector<std::string> scheduler_roles;
  for (const Node* b : m.all("ClusterRoleBinding")) {
    if (b->get("subjects")->seq[0].str("name") == "kube-extender-scheduler") {
      scheduler_roles.push_back(b->at({"roleRef"})->str("name"));
    }
  }
  std::sort(scheduler_roles.begin(), scheduler_roles.end());
  EXPECT_EQ(scheduler_roles, (std::vector<std::string>{"system:kube-scheduler", "system:volume-scheduler"}));
}

TEST(Manifests, ExtenderDeploymentReadsThePolicyFromItsConfigMap) {
  Manifests m = load();
  const Node* d = m.find("Deployment", "kube-extender");
  ASSERT_TRUE(d);
  const Node& c = container(*d);
  const auto args = strings(c.get("args"));
  const std::string policy_path = flag_value(args, "--policy");
  ASSERT_FALSE(policy_path.empty());
  auto [configmap, key] = configmap_file(*d, policy_path);
  ASSERT_FALSE(configmap.empty()) << policy_path << " is not inside a ConfigMap volume";
  const Node* cm = m.find("ConfigMap", configmap);
  ASSERT_TRUE(cm) << configmap;
  const std::string policy_text = cm->at({"data"})->str(key);
  ASSERT_FALSE(policy_text.empty()) << key;
  Policy policy = parse_policy(policy_text);
  Policy embedded = parse_policy(default_policy_json());
  ASSERT_EQ(policy.predicates.size(), embedded.predicates.size());
  for (size_t i = 0; i < policy.predicates.size(); ++i) EXPECT_EQ(policy.predicates[i].name, embedded.predicates[i].name);
  ASSERT_EQ(policy.priorities.size(), embedded.priorities.size());
  for (size_t i = 0; i < policy.priorities.size(); ++i) {
    EXPECT_EQ(policy.priorities[i].name, embedded.priorities[i].name);
    EXPECT_EQ(policy.priorities[i].weight, embedded.priorities[i].weight);
  }

  // Hardening and sizing the issue asks for.
  EXPECT_EQ(d->at({"spec", "template", "spec", "securityContext"})->str("runAsNonRoot"), "true");
  EXPECT_EQ(c.get("securityContext")->str("readOnlyRootFilesystem"), "true");
  for (const char* section : {"requests", "limits"}) {
    const Node* r = c.at({"resources", section});
    ASSERT_TRUE(r) << section;
    EXPECT_FALSE(r->str("cpu").empty()) << section;
    EXPECT_FALSE(r->str("memory").empty()) << section;
  }
  // --enable-bind goes with the bind role and the scheduler's bindVerb.
  EXPECT_NE(std::count(args.begin(), args.end(), "--enable-bind"), 0);
  // The drain must end before the kubelet's SIGKILL.
  const int grace = std::stoi(flag_value(args, "--shutdown-grace-seconds"));
  EXPECT_LT(grace, std::stoi(d->at({"spec", "template", "spec"})->str("terminationGracePeriodSeconds")));
}

TEST(Manifests, ProbePathsAnswerOnTheRealServer) {
  Manifests m = load();
  const Node* d = m.find("Deployment", "kube-extender");
  ASSERT_TRUE(d);
  const Node& c = container(*d);
  TestServer server(fixture_cluster());
  for (const char* probe : {"livenessProbe", "readinessProbe"}) {
    const Node* get = c.at({probe, "httpGet"});
    ASSERT_TRUE(get) << probe;
    const std::string path = get->str("path");
    auto res = server.client().Get(path.c_str());
    ASSERT_TRUE(res) << probe;
    EXPECT_EQ(res->status, 200) << probe << " " << path;
    // The probe's named port is the container's.
    const Node* ports = c.get("ports");
    ASSERT_TRUE(ports);
    EXPECT_EQ(ports->seq[0].str("name"), get->str("port")) << probe;
  }
  EXPECT_EQ(c.get("ports")->seq[0].str("containerPort"), flag_value(strings(c.get("args")), "--port"));
}

TEST(Manifests, SchedulerCallsTheServiceWithEveryVerb) {
  Manifests m = load();
  const Node* sched = m.find("Deployment", "kube-extender-scheduler");
  ASSERT_TRUE(sched);
  const Node& c = container(*sched);
  EXPECT_TRUE(c.str("image").starts_with("registry.k8s.io/kube-scheduler:v1.26.")) << c.str("image");
  const std::string config_path = flag_value(strings(c.get("command")), "--config");
  auto [configmap, key] = configmap_file(*sched, config_path);
  const Node* cm = m.find("ConfigMap", configmap);
  ASSERT_TRUE(cm) << config_path;
  auto docs = yaml::parse_all(cm->at({"data"})->str(key));
  ASSERT_EQ(docs.size(), 1u);
  const Node& cfg = docs[0];
  EXPECT_EQ(cfg.str("apiVersion"), "kubescheduler.config.k8s.io/v1");
  EXPECT_EQ(cfg.str("kind"), "KubeSchedulerConfiguration");
  EXPECT_EQ(cfg.get("profiles")->seq[0].str("schedulerName"), "kube-extender-scheduler");
  EXPECT_EQ(cfg.at({"leaderElection"})->str("leaderElect"), "true");
  EXPECT_EQ(cfg.at({"leaderElection"})->str("resourceName"), "kube-extender-scheduler");

  const Node* extenders = cfg.get("extenders");
  ASSERT_TRUE(extenders && extenders->seq.size() == 1);
  const Node& e = extenders->seq[0];
  EXPECT_EQ(e.str("filterVerb"), "filter");
  EXPECT_EQ(e.str("prioritizeVerb"), "prioritize");
  EXPECT_EQ(e.str("preemptVerb"), "preempt");
  EXPECT_EQ(e.str("bindVerb"), "bind");
  EXPECT_EQ(e.str("nodeCacheCapable"), "true");
  EXPECT_FALSE(e.str("weight").empty());
  EXPECT_FALSE(e.str("httpTimeout").empty());
  EXPECT_FALSE(e.str("ignorable").empty());

  // urlPrefix = http://SERVICE.NAMESPACE.svc[.cluster.local]:PORT of a Service that selects the extender.
  const std::string url = e.str("urlPrefix");
  ASSERT_TRUE(url.starts_with("http://")) << url;
  const std::string host_port = url.substr(7);
  const std::string host = host_port.substr(0, host_port.find(':'));
  const std::string port = host_port.substr(host_port.find(':') + 1);
  const std::string service = host.substr(0, host.find('.'));
  const std::string rest = host.substr(host.find('.') + 1);
  const std::string namespace_ = rest.substr(0, rest.find('.'));
  EXPECT_TRUE(rest.substr(rest.find('.') + 1) == "svc" || rest.substr(rest.find('.') + 1) == "svc.cluster.local") << url;
  const Node* svc = m.find("Service", service);
  ASSERT_TRUE(svc) << service;
  EXPECT_EQ(svc->at({"metadata", "namespace"})->scalar, namespace_);
  const Node& svc_port = svc->at({"spec", "ports"})->seq[0];
  EXPECT_EQ(svc_port.str("port"), port);
  const Node* extender = m.find("Deployment", "kube-extender");
  EXPECT_EQ(svc_port.str("targetPort"), container(*extender).get("ports")->seq[0].str("name"));
  for (const auto& [k, v] : svc->at({"spec", "selector"})->map) {
    EXPECT_EQ(extender->at({"spec", "template", "metadata", "labels"})->str(k), v.scalar) << k;
  }
}

TEST(Manifests, DefaultSchedulerSnippetIsAnExtenderEntryForThatService) {
  auto docs = yaml::parse_all(read_file((kDir / "default-scheduler-snippet.yaml").string()));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].str("kind"), "KubeSchedulerConfiguration");
  const Node& e = docs[0].get("extenders")->seq.at(0);
  EXPECT_EQ(e.str("urlPrefix"), "http://kube-extender.kube-extender.svc:8888");
  EXPECT_EQ(e.str("filterVerb"), "filter");
  EXPECT_EQ(e.str("ignorable"), "true");
  EXPECT_TRUE(e.str("bindVerb").empty());  // a failed bind cannot be ignored
}

TEST(MiniYaml, ReadsTheConstructsTheManifestsUse) {
  auto docs = yaml::parse_all(R"(# comment
a: 1  # trailing
b:
  - x
  - "y # not a comment"
  - k: v
    l: w
c:
- p
d: |
  line 1
    indented
  # kept: a comment inside a block scalar is text

  last
h: |-
  no final newline
e: [a, "b"]
f: {}
---
g: 'q'
)");
  ASSERT_EQ(docs.size(), 2u);
  const Node& d = docs[0];
  EXPECT_EQ(d.str("a"), "1");
  ASSERT_EQ(d.get("b")->seq.size(), 3u);
  EXPECT_EQ(d.get("b")->seq[1].scalar, "y # not a comment");
  EXPECT_EQ(d.get("b")->seq[2].str("l"), "w");
  EXPECT_EQ(d.get("c")->seq[0].scalar, "p");
  EXPECT_EQ(d.str("d"), "line 1\n  indented\n# kept: a comment inside a block scalar is text\n\nlast\n");
  EXPECT_EQ(d.str("h"), "no final newline");
  EXPECT_EQ(strings(d.get("e")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d.get("f")->kind, Node::Kind::Map);
  EXPECT_EQ(docs[1].str("g"), "q");
  EXPECT_THROW(yaml::parse_all("a: [[1]]\n"), yaml::YamlError);
  EXPECT_THROW(yaml::parse_all("a: >\n  folded\n"), yaml::YamlError);
}

}  // namespace
}  // namespace kext::testing

// manifests/ (kubectl apply -k): the pieces must fit together. Files exist, kinds are there, the
// extender's --config points into its mounted ConfigMap and that policy parses, the scheduler's
// urlPrefix names the Service, and the probe paths answer on a real server.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "extender/options.h"
#include "json/json.h"
#include "kube/client/cache_sinks.h"
#include "policy/config.h"
#include "tests/support/test_server.h"
#include "yaml/yaml.h"

namespace kext::testing {
namespace manifests_test {
namespace {

namespace fs = std::filesystem;

// The manifests as a tree whose scalars are all text (8443, true and "8443" alike: these checks compare
// what kubectl would send as text), built from the YAML layer's JSON documents.
struct Node {
  enum class Kind { Null, Scalar, Map, Seq } kind = Kind::Null;
  std::string scalar;
  std::vector<std::pair<std::string, Node>> map;
  std::vector<Node> seq;

  // The value under key in a map, or null.
  const Node* get(std::string_view key) const {
    for (const auto& [k, v] : map) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  // The scalar under key, or "" when it is missing or not a scalar.
  std::string str(std::string_view key) const {
    const Node* n = get(key);
    return n ? n->scalar : "";
  }
  // Follows a path of keys through nested maps; null when any step is missing.
  const Node* at(std::initializer_list<std::string_view> path) const {
    const Node* n = this;
    for (auto key : path) {
      if (!(n = n->get(key))) return nullptr;
    }
    return n;
  }
};

Node to_node(const json::Value& v) {
  Node n;
  if (v.IsObject()) {
    n.kind = Node::Kind::Map;
    for (const auto& m : v.GetObject()) n.map.emplace_back(std::string(json::view(m.name)), to_node(m.value));
  } else if (v.IsArray()) {
    n.kind = Node::Kind::Seq;
    for (const auto& item : v.GetArray()) n.seq.push_back(to_node(item));
  } else if (v.IsString()) {
    n.kind = Node::Kind::Scalar;
    n.scalar = json::view(v);
  } else if (!v.IsNull()) {
    n.kind = Node::Kind::Scalar;
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    n.scalar.assign(buf.GetString(), buf.GetSize());
  }
  return n;
}

// Every document of a multi-document YAML file or string.
std::vector<Node> parse_all(std::string_view text) {
  std::vector<Node> out;
  for (const auto& doc : yaml::to_json_all(text)) out.push_back(to_node(doc));
  return out;
}

const fs::path kRoot = fs::path(KEXT_FIXTURES_DIR) / ".." / ".." / ".." / "manifests";
// The objects live in base/, which manifests/kustomization.yaml and the overlays build on.
const fs::path kDir = kRoot / "base";

struct Manifests {
  std::vector<std::string> resources;  // kustomization order
  std::vector<Node> objects;           // every document of every resource

  const Node* find(std::string_view kind, std::string_view name) const {
    for (const auto& o : objects) {
      if (o.str("kind") == kind && o.at({"metadata", "name"}) && o.at({"metadata", "name"})->scalar == name)
        return &o;
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

// The objects of the kustomization in `dir` (base/ unless told).
Manifests load(const fs::path& dir = kDir) {
  Manifests m;
  auto kustomization = parse_all(read_file((dir / "kustomization.yaml").string()));
  EXPECT_EQ(kustomization.size(), 1u);
  if (kustomization.empty()) return m;
  EXPECT_EQ(kustomization[0].str("kind"), "Kustomization");
  const Node* resources = kustomization[0].get("resources");
  EXPECT_TRUE(resources && resources->kind == Node::Kind::Seq);
  if (!resources) return m;
  for (const auto& r : resources->seq) {
    m.resources.push_back(r.scalar);
    EXPECT_TRUE(fs::exists(dir / r.scalar)) << r.scalar;
    for (auto& doc : parse_all(read_file((dir / r.scalar).string()))) {
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

// The containerPort of the container's port with this name, or "".
std::string container_port(const Node& c, const std::string& name) {
  if (const Node* ports = c.get("ports")) {
    for (const auto& p : ports->seq) {
      if (p.str("name") == name) return p.str("containerPort");
    }
  }
  return {};
}

// True when every matchLabels entry is a label of the deployment's pods.
bool selects(const Node& match_labels, const Node& deployment) {
  const Node* labels = deployment.at({"spec", "template", "metadata", "labels"});
  if (!labels || match_labels.map.empty()) return false;
  return std::all_of(match_labels.map.begin(), match_labels.map.end(),
                     [&](const auto& kv) { return labels->str(kv.first) == kv.second.scalar; });
}

TEST(Manifests, KustomizationListsExistingFilesWithTheExpectedKinds) {
  Manifests m = load();
  ASSERT_FALSE(m.objects.empty());
  for (const char* kind :
       {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment",
        "Service", "Role", "RoleBinding", "NetworkPolicy", "PodDisruptionBudget", "PriorityClass"}) {
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
    const std::string namespace_ =
        o.at({"metadata", "namespace"}) ? o.at({"metadata", "namespace"})->scalar : "";
    if (namespace_.empty() || namespace_ == "kube-system") continue;
    EXPECT_EQ(namespace_, ns->at({"metadata", "name"})->scalar) << o.at({"metadata", "name"})->scalar;
  }
  // The snippet for the default scheduler is documentation, not applied.
  EXPECT_TRUE(fs::exists(kRoot / "default-scheduler-snippet.yaml"));
  EXPECT_EQ(std::count(m.resources.begin(), m.resources.end(), "default-scheduler-snippet.yaml"), 0);
}

TEST(Manifests, ExtenderRbacIsReadOnlyPlusASeparateBindRole) {
  Manifests m = load();
  const Node* role = m.find("ClusterRole", "kube-extender");
  ASSERT_TRUE(role);
  std::map<std::string, std::vector<std::string>> granted;  // group/resource -> verbs
  for (const auto& rule : role->get("rules")->seq) {
    for (const auto& g : strings(rule.get("apiGroups")))
      for (const auto& r : strings(rule.get("resources"))) granted[g + "/" + r] = strings(rule.get("verbs"));
  }
  // Exactly what the extender lists and watches (LiveState's reflectors), in its API group: a resource
  // added to the watch without its rule would leave the extender unready forever (403 on the list).
  const std::vector<std::string> read = {"get", "list", "watch"};
  std::map<std::string, std::vector<std::string>> watched;
  for (const kube::WatchedResource& w : kube::watched_resources())
    watched[std::string(w.group) + "/" + std::string(w.resource())] = read;
  // And the node metrics a metricsAPI usage source lists (usage/metrics_api_source.h), read only.
  watched["metrics.k8s.io/nodes"] = {"get", "list"};
  EXPECT_EQ(granted, watched);
  EXPECT_TRUE(watched.contains("/namespaces") && watched.contains("apps/statefulsets"));
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
  // The binder's election: the Lease the extender's defaults name, in its namespace, and nothing else.
  const Node* d = m.find("Deployment", "kube-extender");
  ASSERT_TRUE(d);
  const auto args = strings(container(*d).get("args"));
  EXPECT_NE(std::count(args.begin(), args.end(), "--leader-elect"), 0);
  const kube::ApiFlags defaults;
  // Where the other replicas pass binds on: the pod IP, from the downward API.
  EXPECT_NE(std::count(args.begin(), args.end(), "--advertise-address=$(POD_IP)"), 0);
  bool pod_ip = false;
  if (const Node* env = container(*d).get("env")) {
    for (const auto& e : env->seq) {
      if (e.str("name") == "POD_IP")
        pod_ip = e.at({"valueFrom", "fieldRef"})->str("fieldPath") == "status.podIP";
    }
  }
  EXPECT_TRUE(pod_ip);
  const Node* lease_role = m.find("Role", "kube-extender-leader-election");
  ASSERT_TRUE(lease_role);
  EXPECT_EQ(lease_role->at({"metadata"})->str("namespace"), defaults.election.lease_namespace);
  std::vector<std::string> lease_verbs;
  for (const auto& rule : lease_role->get("rules")->seq) {
    EXPECT_EQ(strings(rule.get("apiGroups")), std::vector<std::string>{"coordination.k8s.io"});
    EXPECT_EQ(strings(rule.get("resources")), std::vector<std::string>{"leases"});
    const auto names = strings(rule.get("resourceNames"));
    for (const auto& v : strings(rule.get("verbs"))) {
      lease_verbs.push_back(v);
      // Only create cannot be limited to the one Lease.
      if (v != "create") {
        EXPECT_EQ(names, std::vector<std::string>{defaults.election.lease_name}) << v;
      }
    }
  }
  std::sort(lease_verbs.begin(), lease_verbs.end());
  EXPECT_EQ(lease_verbs, (std::vector<std::string>{"create", "get", "update"}));
  const Node* lease_binding = m.find("RoleBinding", "kube-extender-leader-election");
  ASSERT_TRUE(lease_binding);
  EXPECT_EQ(lease_binding->at({"roleRef"})->str("kind"), "Role");
  EXPECT_EQ(lease_binding->at({"roleRef"})->str("name"), "kube-extender-leader-election");
  EXPECT_EQ(lease_binding->get("subjects")->seq[0].str("name"), "kube-extender");

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

// manifests/sim-follow: extender-sim --follow's account reads and never writes.
TEST(Manifests, SimFollowRbacIsGetListWatchOnly) {
  Manifests m = load(kRoot / "sim-follow");
  ASSERT_FALSE(m.objects.empty());
  const Node* ns = m.find("Namespace", "extender-sim");
  ASSERT_TRUE(ns);
  const Node* sa = m.find("ServiceAccount", "extender-sim-follow");
  ASSERT_TRUE(sa);
  EXPECT_EQ(sa->at({"metadata"})->str("namespace"), "extender-sim");
  const Node* role = m.find("ClusterRole", "extender-sim-follow");
  ASSERT_TRUE(role);
  const std::vector<std::string> read = {"get", "list", "watch"};
  std::map<std::string, std::vector<std::string>> granted;  // group/resource -> verbs
  for (const auto& rule : role->get("rules")->seq) {
    EXPECT_EQ(strings(rule.get("verbs")), read);
    EXPECT_FALSE(rule.get("resourceNames"));
    EXPECT_FALSE(rule.get("nonResourceURLs"));
    for (const auto& g : strings(rule.get("apiGroups")))
      for (const auto& r : strings(rule.get("resources"))) granted[g + "/" + r] = strings(rule.get("verbs"));
  }
  // What the extender watches (the simulator mirrors its cluster state) plus PriorityClasses.
  std::map<std::string, std::vector<std::string>> wanted = {{"scheduling.k8s.io/priorityclasses", read}};
  for (const kube::WatchedResource& w : kube::watched_resources())
    wanted[std::string(w.group) + "/" + std::string(w.resource())] = read;
  EXPECT_EQ(granted, wanted);
  EXPECT_TRUE(granted.contains("/services") && granted.contains("apps/replicasets"));
  // Nothing else grants anything: one ClusterRole, bound to the account.
  EXPECT_EQ(m.all("ClusterRole").size(), 1u);
  EXPECT_TRUE(m.all("Role").empty());
  const Node* binding = m.find("ClusterRoleBinding", "extender-sim-follow");
  ASSERT_TRUE(binding);
  EXPECT_EQ(binding->at({"roleRef"})->str("kind"), "ClusterRole");
  EXPECT_EQ(binding->at({"roleRef"})->str("name"), "extender-sim-follow");
  ASSERT_EQ(binding->get("subjects")->seq.size(), 1u);
  EXPECT_EQ(binding->get("subjects")->seq[0].str("kind"), "ServiceAccount");
  EXPECT_EQ(binding->get("subjects")->seq[0].str("name"), "extender-sim-follow");
  EXPECT_EQ(binding->get("subjects")->seq[0].str("namespace"), "extender-sim");
  // Its own kustomization: `kubectl apply -k manifests/` does not install it.
  auto root = parse_all(read_file((kRoot / "kustomization.yaml").string()));
  ASSERT_EQ(root.size(), 1u);
  EXPECT_EQ(strings(root[0].get("resources")), std::vector<std::string>{"base"});
}

TEST(Manifests, ExtenderDeploymentReadsThePolicyFromItsConfigMap) {
  Manifests m = load();
  const Node* d = m.find("Deployment", "kube-extender");
  ASSERT_TRUE(d);
  const Node& c = container(*d);
  const auto args = strings(c.get("args"));
  // --config is the flag's new name; --policy still reads the same file.
  std::string policy_path = flag_value(args, "--config");
  if (policy_path.empty()) policy_path = flag_value(args, "--policy");
  ASSERT_FALSE(policy_path.empty());
  auto [configmap, key] = configmap_file(*d, policy_path);
  ASSERT_FALSE(configmap.empty()) << policy_path << " is not inside a ConfigMap volume";
  const Node* cm = m.find("ConfigMap", configmap);
  ASSERT_TRUE(cm) << configmap;
  const std::string policy_text = cm->at({"data"})->str(key);
  ASSERT_FALSE(policy_text.empty()) << key;
  // The new format, and the embedded default: a deployment runs what a bare binary runs.
  const LoadedFile loaded = load_scheduling_file(policy_text);
  EXPECT_TRUE(loaded.notice.empty()) << "a legacy Policy: " << loaded.notice;
  EXPECT_EQ(loaded.effective_config, load_scheduling_file(default_config_json()).effective_config);

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

// No single point of failure: two replicas spread over nodes, a rollout that never goes below two, a
// disruption budget, a priority class of its own, and a termination that outlasts delay + grace.
TEST(Manifests, ExtenderRunsSeveralReplicasThatSurviveRolloutsDrainsAndEviction) {
  Manifests m = load();
  const Node* d = m.find("Deployment", "kube-extender");
  ASSERT_TRUE(d);
  EXPECT_GE(std::stoi(d->at({"spec"})->str("replicas")), 2);
  const Node* strategy = d->at({"spec", "strategy"});
  ASSERT_TRUE(strategy);
  EXPECT_EQ(strategy->str("type"), "RollingUpdate");
  EXPECT_EQ(strategy->at({"rollingUpdate"})->str("maxUnavailable"), "0");
  EXPECT_EQ(strategy->at({"rollingUpdate"})->str("maxSurge"), "1");

  const Node* pod_spec = d->at({"spec", "template", "spec"});
  ASSERT_TRUE(pod_spec);
  const Node* spread = pod_spec->get("topologySpreadConstraints");
  ASSERT_TRUE(spread && !spread->seq.empty());
  EXPECT_EQ(spread->seq[0].str("topologyKey"), "kubernetes.io/hostname");
  EXPECT_TRUE(selects(*spread->seq[0].at({"labelSelector", "matchLabels"}), *d));
  const Node* anti =
      pod_spec->at({"affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution"});
  ASSERT_TRUE(anti && !anti->seq.empty());
  EXPECT_EQ(anti->seq[0].at({"podAffinityTerm"})->str("topologyKey"), "kubernetes.io/hostname");
  EXPECT_TRUE(selects(*anti->seq[0].at({"podAffinityTerm", "labelSelector", "matchLabels"}), *d));

  const Node* pdb = m.find("PodDisruptionBudget", "kube-extender");
  ASSERT_TRUE(pdb);
  EXPECT_EQ(pdb->at({"spec"})->str("minAvailable"), "1");
  EXPECT_TRUE(selects(*pdb->at({"spec", "selector", "matchLabels"}), *d));
  EXPECT_EQ(pdb->at({"metadata"})->str("namespace"), d->at({"metadata"})->str("namespace"));

  const std::string class_name = pod_spec->str("priorityClassName");
  ASSERT_FALSE(class_name.empty());
  EXPECT_FALSE(class_name.starts_with("system-"));  // reserved for kube-system
  const Node* pc = m.find("PriorityClass", class_name);
  ASSERT_TRUE(pc) << class_name;
  const long long value = std::stoll(pc->str("value"));
  EXPECT_GE(value, 1'000'000);
  EXPECT_LE(value, 1'000'000'000);  // user-defined classes go no higher
  EXPECT_NE(pc->str("globalDefault"), "true");

  // SIGTERM: the in-process delay (no preStop hook), then the drain, both before the kubelet's SIGKILL.
  const auto args = strings(container(*d).get("args"));
  const std::string delay = flag_value(args, "--shutdown-delay-seconds");
  ASSERT_FALSE(delay.empty());
  const int readiness_period = std::stoi(container(*d).at({"readinessProbe"})->str("periodSeconds"));
  EXPECT_GE(std::stoi(delay), readiness_period);  // at least one failed probe before the drain
  EXPECT_FALSE(container(*d).at({"lifecycle", "preStop"}));
  const int grace = std::stoi(flag_value(args, "--shutdown-grace-seconds"));
  EXPECT_LT(std::stoi(delay) + grace, std::stoi(pod_spec->str("terminationGracePeriodSeconds")));
  // The flags parse as the binary would parse them.
  std::vector<char*> argv{const_cast<char*>("kube-extender")};
  std::vector<std::string> owned(args);
  for (auto& a : owned) argv.push_back(a.data());
  Options o = parse_options(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(o.shutdown_delay_seconds, std::stoi(delay));
}

TEST(Manifests, ProbesAndScrapingUseTheMetricsPortAndAnswerOnTheRealServer) {
  Manifests m = load();
  const Node* d = m.find("Deployment", "kube-extender");
  ASSERT_TRUE(d);
  const Node& c = container(*d);
  const auto args = strings(c.get("args"));
  // Named ports: "http" is --port (the verbs), "metrics" is --metrics-port.
  EXPECT_EQ(container_port(c, "http"), flag_value(args, "--port"));
  EXPECT_EQ(container_port(c, "metrics"), flag_value(args, "--metrics-port"));
  EXPECT_NE(container_port(c, "http"), container_port(c, "metrics"));
  TestServer server(fixture_cluster());
  for (const char* probe : {"livenessProbe", "readinessProbe"}) {
    const Node* get = c.at({probe, "httpGet"});
    ASSERT_TRUE(get) << probe;
    EXPECT_EQ(get->str("port"), "metrics") << probe;
    const std::string path = get->str("path");
    auto res = server.client().Get(path.c_str());
    ASSERT_TRUE(res) << probe;
    EXPECT_EQ(res->status, 200) << probe << " " << path;
  }
  const Node* annotations = d->at({"spec", "template", "metadata", "annotations"});
  ASSERT_TRUE(annotations);
  EXPECT_EQ(annotations->str("prometheus.io/scrape"), "true");
  EXPECT_EQ(annotations->str("prometheus.io/port"), container_port(c, "metrics"));
  EXPECT_EQ(annotations->str("prometheus.io/path"), "/metrics");
  auto metrics = server.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  // The Service exposes the metrics port too, by name.
  const Node* svc = m.find("Service", "kube-extender");
  ASSERT_TRUE(svc);
  bool found = false;
  for (const auto& p : svc->at({"spec", "ports"})->seq) {
    if (p.str("name") != "metrics") continue;
    found = true;
    EXPECT_EQ(p.str("targetPort"), "metrics");
    EXPECT_EQ(p.str("port"), container_port(c, "metrics"));
  }
  EXPECT_TRUE(found);
}

TEST(Manifests, NetworkPolicyAdmitsTheSchedulerToTheVerbsAndMonitoringToMetricsOnly) {
  Manifests m = load();
  const auto policies = m.all("NetworkPolicy");
  ASSERT_EQ(policies.size(), 1u);
  const Node& np = *policies[0];
  const Node* extender = m.find("Deployment", "kube-extender");
  const Node* scheduler = m.find("Deployment", "kube-extender-scheduler");
  ASSERT_TRUE(extender && scheduler);
  EXPECT_EQ(np.at({"metadata", "namespace"})->scalar, extender->at({"metadata", "namespace"})->scalar);
  // It applies to the extender's pods, and only ingress is restricted (the extender calls the API).
  EXPECT_TRUE(selects(*np.at({"spec", "podSelector", "matchLabels"}), *extender));
  EXPECT_EQ(strings(np.at({"spec", "policyTypes"})), std::vector<std::string>{"Ingress"});

  const Node* rules = np.at({"spec", "ingress"});
  ASSERT_TRUE(rules && rules->kind == Node::Kind::Seq);
  ASSERT_EQ(rules->seq.size(), 3u) << "anything not admitted by a rule is denied";
  std::multimap<std::string, const Node*> by_port;  // named port -> each rule's single peer
  for (const auto& rule : rules->seq) {
    const Node* ports = rule.get("ports");
    ASSERT_TRUE(ports && ports->seq.size() == 1);
    EXPECT_EQ(ports->seq[0].str("protocol"), "TCP");
    const std::string port = ports->seq[0].str("port");
    EXPECT_FALSE(container_port(container(*extender), port).empty()) << port << " is not a named port";
    const Node* from = rule.get("from");
    ASSERT_TRUE(from && from->seq.size() == 1) << port;
    by_port.emplace(port, &from->seq[0]);
  }
  ASSERT_EQ(by_port.count("http"), 2u);
  ASSERT_EQ(by_port.count("metrics"), 1u);
  // Verbs: the scheduler's pods, by their labels, in their namespace (both selectors in one peer); and
  // the extender's other replicas (a policy's podSelector alone means its own namespace), which pass
  // binds on to the Lease holder.
  bool scheduler_admitted = false, replicas_admitted = false;
  for (auto [it, end] = by_port.equal_range("http"); it != end; ++it) {
    const Node* peer = it->second;
    const Node* pods = peer->at({"podSelector", "matchLabels"});
    ASSERT_TRUE(pods);
    if (selects(*pods, *scheduler)) {
      scheduler_admitted = true;
      EXPECT_FALSE(selects(*pods, *extender));
      EXPECT_EQ(peer->at({"namespaceSelector", "matchLabels"})->str("kubernetes.io/metadata.name"),
                scheduler->at({"metadata", "namespace"})->scalar);
    } else {
      replicas_admitted = selects(*pods, *extender);
      EXPECT_EQ(peer->get("namespaceSelector"), nullptr);
    }
  }
  EXPECT_TRUE(scheduler_admitted);
  EXPECT_TRUE(replicas_admitted);
  // Metrics: every pod of the monitoring namespace, nothing else.
  const Node* metrics = by_port.find("metrics")->second;
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->get("podSelector"), nullptr);
  const Node* ns = metrics->at({"namespaceSelector", "matchLabels"});
  ASSERT_TRUE(ns);
  ASSERT_EQ(ns->map.size(), 1u);
  EXPECT_EQ(ns->str("kubernetes.io/metadata.name"), "monitoring");
}

TEST(Manifests, SchedulerCallsTheServiceWithEveryVerb) {
  Manifests m = load();
  const Node* sched = m.find("Deployment", "kube-extender-scheduler");
  ASSERT_TRUE(sched);
  const Node& c = container(*sched);
  EXPECT_TRUE(c.str("image").starts_with("registry.k8s.io/kube-scheduler:v1.36.")) << c.str("image");
  const std::string config_path = flag_value(strings(c.get("command")), "--config");
  auto [configmap, key] = configmap_file(*sched, config_path);
  const Node* cm = m.find("ConfigMap", configmap);
  ASSERT_TRUE(cm) << config_path;
  auto docs = parse_all(cm->at({"data"})->str(key));
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
  // A bind passed on to the Lease holder is answered within --bind-forward-timeout: inside the call.
  const std::string timeout = e.str("httpTimeout");
  ASSERT_TRUE(timeout.ends_with("s")) << timeout;
  EXPECT_LT(kube::ApiFlags{}.election.forward_timeout, std::chrono::seconds(std::stoi(timeout)));
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
  EXPECT_TRUE(rest.substr(rest.find('.') + 1) == "svc" ||
              rest.substr(rest.find('.') + 1) == "svc.cluster.local")
      << url;
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
  auto docs = parse_all(read_file((kRoot / "default-scheduler-snippet.yaml").string()));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].str("kind"), "KubeSchedulerConfiguration");
  const Node& e = docs[0].get("extenders")->seq.at(0);
  EXPECT_EQ(e.str("urlPrefix"), "http://kube-extender.kube-extender.svc:8888");
  EXPECT_EQ(e.str("filterVerb"), "filter");
  EXPECT_EQ(e.str("ignorable"), "true");
  EXPECT_TRUE(e.str("bindVerb").empty());  // a failed bind cannot be ignored
}

const fs::path kMtls = kRoot / "overlays" / "mtls";

// Follows an RFC 6901 pointer through maps and sequences; a final "-" (append) resolves to the
// sequence itself. Null when a step is missing.
const Node* follow(const Node& root, std::string_view pointer) {
  if (!pointer.starts_with("/")) return nullptr;
  const Node* n = &root;
  size_t pos = 1;
  while (n && pos <= pointer.size()) {
    size_t end = std::min(pointer.find('/', pos), pointer.size());
    const std::string seg(pointer.substr(pos, end - pos));
    pos = end + 1;
    if (n->kind == Node::Kind::Map) {
      n = n->get(seg);
    } else if (n->kind == Node::Kind::Seq && seg == "-") {
      return pos > pointer.size() ? n : nullptr;
    } else if (n->kind == Node::Kind::Seq && !seg.empty() && std::all_of(seg.begin(), seg.end(), ::isdigit)) {
      const size_t i = std::stoul(seg);
      n = i < n->seq.size() ? &n->seq[i] : nullptr;
    } else {
      return nullptr;
    }
  }
  return n;
}

bool same(const Node& a, const Node& b) {
  if (a.kind != b.kind || a.scalar != b.scalar || a.map.size() != b.map.size() ||
      a.seq.size() != b.seq.size()) {
    return false;
  }
  for (size_t i = 0; i < a.map.size(); ++i) {
    if (a.map[i].first != b.map[i].first || !same(a.map[i].second, b.map[i].second)) return false;
  }
  for (size_t i = 0; i < a.seq.size(); ++i) {
    if (!same(a.seq[i], b.seq[i])) return false;
  }
  return true;
}

void erase_key(Node& map, std::string_view key) {
  std::erase_if(map.map, [&](const auto& kv) { return kv.first == key; });
}

std::string ns_of(const Node& o) {
  const Node* ns = o.at({"metadata", "namespace"});
  return ns ? ns->scalar : "";
}

// True when the file lies inside a mount of the pod spec whose volume is that Secret.
bool in_secret_mount(const std::vector<const Node*>& mounts, const std::vector<const Node*>& volumes,
                     const std::string& file, const std::string& secret) {
  for (const Node* mnt : mounts) {
    if (!file.starts_with(mnt->str("mountPath") + "/")) continue;
    for (const Node* v : volumes) {
      if (v->str("name") == mnt->str("name") && v->at({"secret"}) &&
          v->at({"secret"})->str("secretName") == secret) {
        return true;
      }
    }
  }
  return false;
}

struct MtlsOverlay {
  Node kustomization;
  struct Patch {
    std::string file;
    const Node* target = nullptr;  // the base object it applies to
    Node doc;                      // strategic merge: the object; JSON patch: the list of operations
    bool json_patch = false;
  };
  std::vector<Patch> patches;

  const Patch* find(std::string_view kind, std::string_view name) const {
    for (const auto& p : patches) {
      if (p.target && p.target->str("kind") == kind && p.target->at({"metadata", "name"})->scalar == name)
        return &p;
    }
    return nullptr;
  }
};

MtlsOverlay load_mtls(const Manifests& base) {
  MtlsOverlay o;
  auto docs = parse_all(read_file((kMtls / "kustomization.yaml").string()));
  EXPECT_EQ(docs.size(), 1u);
  if (docs.empty()) return o;
  o.kustomization = docs[0];
  const Node* patches = o.kustomization.get("patches");
  EXPECT_TRUE(patches && patches->kind == Node::Kind::Seq);
  if (!patches) return o;
  for (const auto& entry : patches->seq) {
    MtlsOverlay::Patch p;
    p.file = entry.str("path");
    EXPECT_TRUE(fs::exists(kMtls / p.file)) << p.file;
    auto patch_docs = parse_all(read_file((kMtls / p.file).string()));
    EXPECT_EQ(patch_docs.size(), 1u) << p.file;
    if (patch_docs.empty()) continue;
    p.doc = std::move(patch_docs[0]);
    if (const Node* target = entry.get("target")) {
      p.json_patch = true;
      p.target = base.find(target->str("kind"), target->str("name"));
      if (p.target) {
        EXPECT_EQ(ns_of(*p.target), target->str("namespace")) << p.file;
        EXPECT_EQ(p.target->str("apiVersion"), target->str("group") + "/" + target->str("version")) << p.file;
      }
    } else {
      p.target = base.find(p.doc.str("kind"),
                           p.doc.at({"metadata", "name"}) ? p.doc.at({"metadata", "name"})->scalar : "");
      if (p.target) {
        EXPECT_EQ(ns_of(*p.target), ns_of(p.doc)) << p.file;
        EXPECT_EQ(p.target->str("apiVersion"), p.doc.str("apiVersion")) << p.file;
      }
    }
    EXPECT_TRUE(p.target) << p.file << " patches an object the base does not have";
    o.patches.push_back(std::move(p));
  }
  return o;
}

// GPU sharing's bind patches the node (its lock) and the pod (its cards, and the requeue when cards free):
// the overlay grants get and patch on those two, to the extender's account, and nothing more.
TEST(GpuSharingOverlay, GrantsThePatchesGpuSharingWritesAndNothingMore) {
  const fs::path dir = kRoot / "overlays" / "gpu-sharing";
  auto kustomization = parse_all(read_file((dir / "kustomization.yaml").string()));
  ASSERT_EQ(kustomization.size(), 1u);
  EXPECT_EQ(strings(kustomization[0].get("resources")),
            (std::vector<std::string>{"../../base", "rbac-gpu.yaml"}));
  Manifests m;
  for (auto& doc : parse_all(read_file((dir / "rbac-gpu.yaml").string())))
    m.objects.push_back(std::move(doc));
  ASSERT_EQ(m.objects.size(), 2u);
  const Node* role = m.find("ClusterRole", "kube-extender-gpu");
  ASSERT_TRUE(role);
  std::map<std::string, std::vector<std::string>> granted;  // group/resource -> verbs
  for (const auto& rule : role->get("rules")->seq)
    for (const auto& g : strings(rule.get("apiGroups")))
      for (const auto& r : strings(rule.get("resources"))) granted[g + "/" + r] = strings(rule.get("verbs"));
  const std::vector<std::string> get_patch = {"get", "patch"};
  EXPECT_EQ(granted,
            (std::map<std::string, std::vector<std::string>>{{"/nodes", get_patch}, {"/pods", get_patch}}));
  const Node* binding = m.find("ClusterRoleBinding", "kube-extender-gpu");
  ASSERT_TRUE(binding);
  EXPECT_EQ(binding->at({"roleRef"})->str("name"), "kube-extender-gpu");
  EXPECT_EQ(binding->get("subjects")->seq[0].str("name"), "kube-extender");
  EXPECT_EQ(binding->get("subjects")->seq[0].str("namespace"), "kube-extender");
}

TEST(MtlsOverlay, BuildsOnTheBaseAndPatchesOnlyItsObjects) {
  Manifests base = load();
  MtlsOverlay o = load_mtls(base);
  EXPECT_EQ(o.kustomization.str("kind"), "Kustomization");
  EXPECT_EQ(strings(o.kustomization.get("resources")), std::vector<std::string>{"../../base"});
  EXPECT_TRUE(fs::equivalent(kMtls / ".." / ".." / "base", kDir));
  // kustomize refuses an overlay that lives inside the directory it builds on (a cycle).
  const std::string base_dir = fs::canonical(kDir).string() + "/";
  EXPECT_FALSE(fs::canonical(kMtls).string().starts_with(base_dir));
  // `kubectl apply -k manifests/` builds the same base, and the overlays sit beside it.
  auto root = parse_all(read_file((kRoot / "kustomization.yaml").string()));
  ASSERT_EQ(root.size(), 1u);
  EXPECT_EQ(strings(root[0].get("resources")), std::vector<std::string>{"base"});
  EXPECT_EQ(o.patches.size(), 3u);
  EXPECT_TRUE(o.find("Deployment", "kube-extender"));
  EXPECT_TRUE(o.find("Deployment", "kube-extender-scheduler"));
  EXPECT_TRUE(o.find("ConfigMap", "kube-extender-scheduler-config"));
}

TEST(MtlsOverlay, ExtenderGetsTlsFlagsItAcceptsAndTheSecretTheyName) {
  Manifests base = load();
  MtlsOverlay o = load_mtls(base);
  const auto* p = o.find("Deployment", "kube-extender");
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->json_patch);
  ASSERT_EQ(p->doc.kind, Node::Kind::Seq);
  std::vector<std::string> added_args;
  std::vector<const Node*> mounts, volumes;  // the base's and the patch's
  for (const auto& m : container(*p->target).get("volumeMounts")->seq) mounts.push_back(&m);
  for (const auto& v : p->target->at({"spec", "template", "spec", "volumes"})->seq) volumes.push_back(&v);
  for (const auto& op : p->doc.seq) {
    const std::string path = op.str("path");
    EXPECT_EQ(op.str("op"), "add") << path;
    const Node* parent = follow(*p->target, path);
    ASSERT_TRUE(parent) << path << " does not exist in the base Deployment";
    ASSERT_TRUE(path.ends_with("/-") && parent->kind == Node::Kind::Seq) << path << ": only appends";
    const Node* value = op.get("value");
    ASSERT_TRUE(value) << path;
    if (path == "/spec/template/spec/containers/0/args/-") added_args.push_back(value->scalar);
    if (path == "/spec/template/spec/containers/0/volumeMounts/-") mounts.push_back(value);
    if (path == "/spec/template/spec/volumes/-") volumes.push_back(value);
  }
  // The binary accepts the added flags (the base's own are checked by running it in the cluster).
  std::vector<std::string> argv = {"kube-extender"};
  argv.insert(argv.end(), added_args.begin(), added_args.end());
  std::vector<char*> ptrs;
  for (auto& a : argv) ptrs.push_back(a.data());
  Options opts;
  ASSERT_NO_THROW(opts = parse_options(static_cast<int>(ptrs.size()), ptrs.data()));
  const auto base_args = strings(container(*p->target).get("args"));
  for (const char* flag : {"--tls-cert-file", "--tls-private-key-file", "--client-ca-file"}) {
    EXPECT_TRUE(flag_value(base_args, flag).empty()) << flag << " is already in the base";
    const std::string file = flag_value(added_args, flag);
    EXPECT_FALSE(file.empty()) << flag;
    EXPECT_TRUE(in_secret_mount(mounts, volumes, file, "kube-extender-tls")) << flag << " " << file;
  }
  EXPECT_FALSE(opts.server.tls.client_ca_file.empty()) << "mutual TLS needs the client CA";
}

TEST(MtlsOverlay, SchedulerCallsHttpsWithItsClientCertificateAndNothingElseChanges) {
  Manifests base = load();
  MtlsOverlay o = load_mtls(base);
  const auto* dep = o.find("Deployment", "kube-extender-scheduler");
  const auto* cfg = o.find("ConfigMap", "kube-extender-scheduler-config");
  ASSERT_TRUE(dep && cfg);
  ASSERT_FALSE(dep->json_patch || cfg->json_patch);

  // The Secret's mount, merged into the base's kube-scheduler container by name.
  const Node* patch_containers = dep->doc.at({"spec", "template", "spec", "containers"});
  ASSERT_TRUE(patch_containers && patch_containers->seq.size() == 1);
  const Node& pc = patch_containers->seq[0];
  EXPECT_EQ(pc.str("name"), container(*dep->target).str("name"));
  std::vector<const Node*> mounts, volumes;
  for (const auto& m : pc.get("volumeMounts")->seq) mounts.push_back(&m);
  for (const auto& v : dep->doc.at({"spec", "template", "spec", "volumes"})->seq) volumes.push_back(&v);
  for (const auto& m : container(*dep->target).get("volumeMounts")->seq) {
    for (const Node* added : mounts) EXPECT_NE(m.str("mountPath"), added->str("mountPath"));
  }

  // The configuration: same key as the base's, https, enableHTTPS and tlsConfig from that Secret.
  const Node* base_data = cfg->target->at({"data"});
  const Node* data = cfg->doc.at({"data"});
  ASSERT_TRUE(base_data && data);
  ASSERT_EQ(data->map.size(), 1u);
  ASSERT_TRUE(base_data->get(data->map[0].first)) << data->map[0].first;
  auto base_docs = parse_all(base_data->map[0].second.scalar);
  auto docs = parse_all(data->map[0].second.scalar);
  ASSERT_EQ(docs.size(), 1u);
  ASSERT_EQ(base_docs.size(), 1u);
  const Node& e = docs[0].get("extenders")->seq.at(0);
  const Node& base_e = base_docs[0].get("extenders")->seq.at(0);
  EXPECT_EQ(e.str("enableHTTPS"), "true");
  ASSERT_TRUE(base_e.str("urlPrefix").starts_with("http://"));
  EXPECT_EQ(e.str("urlPrefix"), "https://" + base_e.str("urlPrefix").substr(7));
  for (const char* key : {"certFile", "keyFile", "caFile"}) {
    const Node* tls = e.get("tlsConfig");
    ASSERT_TRUE(tls);
    EXPECT_TRUE(in_secret_mount(mounts, volumes, tls->str(key), "kube-extender-scheduler-tls"))
        << key << " " << tls->str(key);
  }
  for (Node* n : {&docs[0], &base_docs[0]}) {
    for (auto& [key, value] : n->map) {
      if (key != "extenders") continue;
      for (const char* k : {"urlPrefix", "enableHTTPS", "tlsConfig"}) erase_key(value.seq.at(0), k);
    }
  }
  EXPECT_TRUE(same(docs[0], base_docs[0])) << "the overlay's scheduler configuration drifted from the base's";
}

}  // namespace
}  // namespace manifests_test
}  // namespace kext::testing

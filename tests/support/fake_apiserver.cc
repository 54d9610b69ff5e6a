#include "tests/support/fake_apiserver.h"

#include <stdexcept>

#include "algorithms/namespaced_key.h"
#include "common/read_file.h"
#include "json/json.h"

namespace kext::testing {

namespace {

std::string certs(const std::string& file) { return std::string(KEXT_CERTS_DIR) + "/" + file; }

kube::ApiServer::Options server_options(const FakeApiServer::Options& o) {
  kube::ApiServer::Options s;
  if (o.tls) {
    s.cert_file = certs("server.crt");
    s.key_file = certs("server.key");
    if (o.require_client_cert) s.client_ca_file = certs("ca.crt");
  }
  s.token = o.token;
  s.threads = o.threads;
  s.keep_alive_requests = 5;  // cpp-httplib's default: the tests' clients reuse connections
  s.first_resource_version = 1000;
  s.skip_unchanged_puts = false;
  s.keep_bound_node_name = false;
  return s;
}

std::string object_key(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) throw std::invalid_argument("FakeApiServer: object is not JSON");
  auto md = d.FindMember("metadata");
  if (md == d.MemberEnd() || !md->value.IsObject()) throw std::invalid_argument("FakeApiServer: no metadata");
  auto name = md->value.FindMember("name");
  auto ns = md->value.FindMember("namespace");
  std::string key = name != md->value.MemberEnd() && name->value.IsString() ? name->value.GetString() : "";
  if (ns != md->value.MemberEnd() && ns->value.IsString()) key = namespaced_key(json::view(ns->value), key);
  return key;
}

std::string base64(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], t[v & 63]};
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += {t[v >> 18], t[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], '='};
  }
  return out;
}

std::string slurp(const std::string& path) {
  std::string text;
  read_whole_file(path, text);
  return text;
}

}  // namespace

FakeApiServer::FakeApiServer() : FakeApiServer(Options{}) {}

FakeApiServer::FakeApiServer(Options o) : kube::ApiServer(server_options(o)), opts_(std::move(o)) {}

std::string FakeApiServer::kubeconfig(bool inline_data) const {
  std::string cluster_auth, user_auth;
  if (inline_data) {
    cluster_auth = "    certificate-authority-data: " + base64(slurp(certs("ca.crt"))) + "\n";
    if (opts_.require_client_cert) {
      user_auth = "    client-certificate-data: " + base64(slurp(certs("client.crt"))) + "\n" +
                  "    client-key-data: " + base64(slurp(certs("client.key"))) + "\n";
    }
  } else {
    cluster_auth = "    certificate-authority: " + certs("ca.crt") + "\n";
    if (opts_.require_client_cert) {
      user_auth = "    client-certificate: " + certs("client.crt") + "\n" + "    client-key: \"" +
                  certs("client.key") + "\"\n";
    }
  }
  if (!opts_.token.empty()) user_auth += "    token: " + opts_.token + "\n";
  if (user_auth.empty()) user_auth = "    {}\n";
  return "apiVersion: v1\nkind: Config\n"
         "# written by FakeApiServer\n"
         "clusters:\n- cluster:\n" +
         cluster_auth + "    server: " + url() +
         "\n  name: fake\n"
         "contexts:\n- context:\n    cluster: fake\n    user: tester\n  name: fake\n"
         "- context:\n    cluster: elsewhere\n    user: tester\n  name: other\n"
         "current-context: fake\npreferences: {}\n"
         "users:\n- name: tester\n  user:\n" +
         user_auth;
}

void FakeApiServer::put(const std::string& resource, const std::string& json) {
  kube::ApiServer::put(resource, object_key(json), json);
}

std::vector<FakeApiServer::Binding> FakeApiServer::bindings() const {
  std::vector<Binding> out;
  for (const auto& [key, node] : kube::ApiServer::bindings()) {
    const NamespacedName n = split_namespaced_key(key);
    out.push_back({std::string(n.namespace_), std::string(n.name), node});
  }
  return out;
}

std::string FakeApiServer::lease_holder(const std::string& key) const {
  const std::string json = lease(key);
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("spec") || !d["spec"].IsObject()) return {};
  const auto& spec = d["spec"];
  return spec.HasMember("holderIdentity") && spec["holderIdentity"].IsString()
             ? spec["holderIdentity"].GetString()
             : "";
}

}  // namespace kext::testing

#include "kube/client/api_config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/read_file.h"
#include "common/url_path.h"
#include "json/json.h"
#include "yaml/yaml.h"

namespace kext::kube {

std::string ApiConfig::server_url() const {
  return scheme + "://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port) + base_path;
}

void set_server_url(ApiConfig& cfg, const std::string& url) {
  auto sep = url.find("://");
  if (sep == std::string::npos)
    throw ConfigError("server URL \"" + url + "\": expected scheme://host[:port]");
  cfg.scheme = url.substr(0, sep);
  if (cfg.scheme != "https" && cfg.scheme != "http")
    throw ConfigError("server URL \"" + url + "\": scheme must be https or http");
  std::string rest = url.substr(sep + 3);
  auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  cfg.base_path = slash == std::string::npos ? "" : normalized_path_prefix(rest.substr(slash));
  cfg.port = cfg.scheme == "https" ? 443 : 80;
  std::string port_text;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos)
      throw ConfigError("server URL \"" + url + "\": unterminated IPv6 address");
    cfg.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') port_text = authority.substr(close + 2);
  } else {
    auto colon = authority.rfind(':');
    cfg.host = authority.substr(0, colon);
    if (colon != std::string::npos) port_text = authority.substr(colon + 1);
  }
  if (cfg.host.empty()) throw ConfigError("server URL \"" + url + "\": no host");
  if (!port_text.empty()) {
    char* end = nullptr;
    long p = std::strtol(port_text.c_str(), &end, 10);
    if (*end != '\0' || p < 1 || p > 65535) throw ConfigError("server URL \"" + url + "\": bad port");
    cfg.port = static_cast<int>(p);
  }
}

std::string read_config_file(const std::string& path, const std::string& what) {
  std::string text;
  if (!read_whole_file(path, text)) throw ConfigError(what + " " + path + ": " + std::strerror(errno));
  return text;
}

std::string base64_decode(const std::string& in, const std::string& what) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    int v = value(c);
    if (v < 0) throw ConfigError(what + ": invalid base64");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

ApiConfig in_cluster_config(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port) {
    throw ConfigError(
        "--in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
        "(not running in a pod? use --kubeconfig)");
  }
  ApiConfig cfg;
  std::string h = host;
  set_server_url(cfg, "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port);
  cfg.token_file = sa_dir + "/token";
  read_config_file(cfg.token_file, "--in-cluster: service-account token");
  cfg.ca_pem = read_config_file(sa_dir + "/ca.crt", "--in-cluster: service-account CA");
  return cfg;
}

namespace {

// The kubeconfig is decoded the way kubectl decodes it: its YAML turned into JSON
// (sigs.k8s.io/yaml), then the JSON into client-go's Config (k8s.io/client-go/tools/clientcmd/api/v1,
// types.go): fields this reader does not use (preferences, extensions, namespace, proxy-url, ...) are
// ignored, a field it uses with the wrong JSON type is an error naming the field's path, keys match
// case-insensitively as in encoding/json, and null is absent.

// The `inner` object of the entry of the `list` array whose name is `name`; nullptr when no entry
// has that name. `path` receives the entry's path ("clusters[1].cluster").
const json::Value* named(const json::Value& root, const char* list, const std::string& name,
                         const char* inner, std::string& path) {
  const json::Value* items = json::find_non_null(root, list);
  if (!items) return nullptr;
  json::expect_array(*items, list);
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const std::string item_path = std::string(list) + "[" + std::to_string(i) + "]";
    const json::Value& item = json::expect_object((*items)[i], item_path);
    if (json::get_string(item, "name", item_path) != name) continue;
    path = json::join_path(item_path, inner);
    const json::Value* v = json::find_non_null(item, inner);
    static const json::Value empty(rapidjson::kObjectType);
    return v ? &json::expect_object(*v, path) : &empty;
  }
  return nullptr;
}

// A kubeconfig's relative file paths are relative to the kubeconfig itself.
std::string resolve(const std::string& kubeconfig, const std::string& file) {
  if (file.empty() || file.front() == '/') return file;
  return (std::filesystem::path(kubeconfig).parent_path() / file).string();
}

ApiConfig decode_kubeconfig(const json::Value& root, const std::string& path, const std::string& where,
                            const std::string& context_name) {
  if (!root.IsObject()) json::fail_type("kubeconfig", "object", root);
  std::string ctx_name = context_name.empty() ? json::get_string(root, "current-context", "") : context_name;
  if (ctx_name.empty()) throw ConfigError(where + ": no current-context (pass --context)");
  std::string ctx_path, cluster_path, user_path;
  const json::Value* ctx = named(root, "contexts", ctx_name, "context", ctx_path);
  if (!ctx) throw ConfigError(where + ": context \"" + ctx_name + "\" not found");
  const std::string cluster_name = json::get_string(*ctx, "cluster", ctx_path);
  const json::Value* cluster = named(root, "clusters", cluster_name, "cluster", cluster_path);
  if (!cluster)
    throw ConfigError(where + ": context \"" + ctx_name + "\" names cluster \"" + cluster_name +
                      "\", which is not defined");
  const std::string user_name = json::get_string(*ctx, "user", ctx_path);
  const json::Value* user = user_name.empty() ? nullptr : named(root, "users", user_name, "user", user_path);
  if (!user_name.empty() && !user)
    throw ConfigError(where + ": context \"" + ctx_name + "\" names user \"" + user_name +
                      "\", which is not defined");

  ApiConfig cfg;
  const std::string server = json::get_string(*cluster, "server", cluster_path);
  if (server.empty()) throw ConfigError(where + ": cluster \"" + cluster_name + "\" has no server");
  try {
    set_server_url(cfg, server);
  } catch (const ConfigError& e) {
    throw ConfigError(where + ": cluster \"" + cluster_name + "\": " + e.what());
  }
  cfg.insecure_skip_tls_verify = json::get_bool(*cluster, "insecure-skip-tls-verify", cluster_path);
  const std::string field = where + ": cluster \"" + cluster_name + "\" ";
  if (auto data = json::get_string(*cluster, "certificate-authority-data", cluster_path); !data.empty()) {
    cfg.ca_pem = base64_decode(data, field + "certificate-authority-data");
  } else if (auto file = json::get_string(*cluster, "certificate-authority", cluster_path); !file.empty()) {
    cfg.ca_pem = read_config_file(resolve(path, file), field + "certificate-authority");
  }
  if (!user) return cfg;
  const std::string ufield = where + ": user \"" + user_name + "\" ";
  // Credential plugins run a program (gke-gcloud-auth-plugin, aws eks get-token, kubelogin) and
  // cache what it prints (client-go plugin/pkg/client/auth/exec/exec.go); this extender runs none.
  if (json::find_non_null(*user, "exec"))
    throw ConfigError(ufield + "(" + json::join_path(user_path, "exec") +
                      "): exec credential plugins are not supported; use a client certificate or a token");
  if (json::find_non_null(*user, "auth-provider"))
    throw ConfigError(ufield + "(" + json::join_path(user_path, "auth-provider") +
                      "): auth-provider plugins are not supported; use a client certificate or a token");
  if (auto data = json::get_string(*user, "client-certificate-data", user_path); !data.empty()) {
    cfg.client_cert_pem = base64_decode(data, ufield + "client-certificate-data");
  } else if (auto file = json::get_string(*user, "client-certificate", user_path); !file.empty()) {
    cfg.client_cert_pem = read_config_file(resolve(path, file), ufield + "client-certificate");
  }
  if (auto data = json::get_string(*user, "client-key-data", user_path); !data.empty()) {
    cfg.client_key_pem = base64_decode(data, ufield + "client-key-data");
  } else if (auto file = json::get_string(*user, "client-key", user_path); !file.empty()) {
    cfg.client_key_pem = read_config_file(resolve(path, file), ufield + "client-key");
  }
  if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty())
    throw ConfigError(ufield + "needs both a client certificate and a client key");
  cfg.token = json::get_string(*user, "token", user_path);
  if (auto file = json::get_string(*user, "tokenFile", user_path); !file.empty()) {
    cfg.token_file = resolve(path, file);
    read_config_file(cfg.token_file, ufield + "tokenFile");
  }
  return cfg;
}

}  // namespace

ApiConfig kubeconfig_config(const std::string& path, const std::string& context_name) {
  const std::string text = read_config_file(path, "--kubeconfig");
  const std::string where = "--kubeconfig " + path;
  try {
    const rapidjson::Document root = yaml::to_json(text);
    return decode_kubeconfig(root, path, where, context_name);
  } catch (const DecodeError& e) {  // YamlError (with its line) or a field of the wrong type
    throw ConfigError(where + ": " + e.what());
  }
}

}  // namespace kext::kube

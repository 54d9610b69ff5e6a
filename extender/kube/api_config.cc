#include "extender/kube/api_config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/read_file.h"
#include "extender/kube/mini_yaml.h"

namespace kext::kube {

std::string ApiConfig::server_url() const {
  return scheme + "://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port) + base_path;
}

void set_server_url(ApiConfig& cfg, const std::string& url) {
  auto sep = url.find("://");
  if (sep == std::string::npos) throw ConfigError("server URL \"" + url + "\": expected scheme://host[:port]");
  cfg.scheme = url.substr(0, sep);
  if (cfg.scheme != "https" && cfg.scheme != "http")
    throw ConfigError("server URL \"" + url + "\": scheme must be https or http");
  std::string rest = url.substr(sep + 3);
  auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  cfg.base_path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!cfg.base_path.empty() && cfg.base_path.back() == '/') cfg.base_path.pop_back();
  cfg.port = cfg.scheme == "https" ? 443 : 80;
  std::string port_text;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) throw ConfigError("server URL \"" + url + "\": unterminated IPv6 address");
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
    throw ConfigError("--in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
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

const yaml::Node* named(const yaml::Node& root, const char* list, const std::string& name, const char* inner) {
  const yaml::Node* items = root.get(list);
  if (!items || items->kind != yaml::Node::Kind::Seq) return nullptr;
  for (const auto& item : items->seq) {
    if (item.str("name") == name) return item.get(inner);
  }
  return nullptr;
}

// A kubeconfig's relative file paths are relative to the kubeconfig itself.
std::string resolve(const std::string& kubeconfig, const std::string& file) {
  if (file.empty() || file.front() == '/') return file;
  return (std::filesystem::path(kubeconfig).parent_path() / file).string();
}

}  // namespace

ApiConfig kubeconfig_config(const std::string& path, const std::string& context_name) {
  const std::string text = read_config_file(path, "--kubeconfig");
  yaml::Node root;
  try {
    root = yaml::parse(text);
  } catch (const yaml::YamlError& e) {
    throw ConfigError("--kubeconfig " + path + ": " + e.what());
  }
  const std::string where = "--kubeconfig " + path;
  std::string ctx_name = context_name.empty() ? root.str("current-context") : context_name;
  if (ctx_name.empty()) throw ConfigError(where + ": no current-context (pass --context)");
  const yaml::Node* ctx = named(root, "contexts", ctx_name, "context");
  if (!ctx) throw ConfigError(where + ": context \"" + ctx_name + "\" not found");
  const std::string cluster_name = ctx->str("cluster");
  const yaml::Node* cluster = named(root, "clusters", cluster_name, "cluster");
  if (!cluster) throw ConfigError(where + ": context \"" + ctx_name + "\" names cluster \"" + cluster_name + "\", which is not defined");
  const std::string user_name = ctx->str("user");
  const yaml::Node* user = user_name.empty() ? nullptr : named(root, "users", user_name, "user");
  if (!user_name.empty() && !user) throw ConfigError(where + ": context \"" + ctx_name + "\" names user \"" + user_name + "\", which is not defined");

  ApiConfig cfg;
  const std::string server = cluster->str("server");
  if (server.empty()) throw ConfigError(where + ": cluster \"" + cluster_name + "\" has no server");
  try {
    set_server_url(cfg, server);
  } catch (const ConfigError& e) {
    throw ConfigError(where + ": cluster \"" + cluster_name + "\": " + e.what());
  }
  cfg.insecure_skip_tls_verify = cluster->str("insecure-skip-tls-verify") == "true";
  const std::string field = where + ": cluster \"" + cluster_name + "\" ";
  if (auto data = cluster->str("certificate-authority-data"); !data.empty()) {
    cfg.ca_pem = base64_decode(data, field + "certificate-authority-data");
  } else if (auto file = cluster->str("certificate-authority"); !file.empty()) {
    cfg.ca_pem = read_config_file(resolve(path, file), field + "certificate-authority");
  }
  if (user) {
    const std::string ufield = where + ": user \"" + user_name + "\" ";
    if (auto data = user->str("client-certificate-data"); !data.empty()) {
      cfg.client_cert_pem = base64_decode(data, ufield + "client-certificate-data");
    } else if (auto file = user->str("client-certificate"); !file.empty()) {
      cfg.client_cert_pem = read_config_file(resolve(path, file), ufield + "client-certificate");
    }
    if (auto data = user->str("client-key-data"); !data.empty()) {
      cfg.client_key_pem = base64_decode(data, ufield + "client-key-data");
    } else if (auto file = user->str("client-key"); !file.empty()) {
      cfg.client_key_pem = read_config_file(resolve(path, file), ufield + "client-key");
    }
    if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty())
      throw ConfigError(ufield + "needs both a client certificate and a client key");
    cfg.token = user->str("token");
    if (auto file = user->str("tokenFile"); !file.empty()) {
      cfg.token_file = resolve(path, file);
      read_config_file(cfg.token_file, ufield + "tokenFile");
    }
    if (user->get("exec") || user->get("auth-provider"))
      throw ConfigError(ufield + "uses exec/auth-provider credentials, which this extender does not run; "
                        "use a client certificate or a token");
  }
  return cfg;
}

}  // namespace kext::kube

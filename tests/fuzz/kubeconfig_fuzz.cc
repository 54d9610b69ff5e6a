// --kubeconfig files: kubeconfig_config reads the input as a file (yaml::to_json, then contexts,
// clusters, users, base64 credentials); the same bytes also go through yaml::to_json_all, the
// multi-document reader the manifests tests use.
#include <unistd.h>

#include <fstream>

#include "kube/client/api_config.h"
#include "tests/fuzz/fuzz_common.h"
#include "yaml/yaml.h"

using namespace kext;

namespace {

const std::string& config_path() {
  static const std::string path = [] {
    char dir[] = "/tmp/kext-fuzz-kubeconfig-XXXXXX";
    if (!mkdtemp(dir)) fuzz::fail("kubeconfig: cannot create a temporary directory");
    return std::string(dir) + "/config";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  try {
    for (const auto& doc : yaml::to_json_all(text)) {
      // Every document has a JSON form (no .inf or .nan slipped through as a number).
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      fuzz::check(doc.Accept(w), "yaml: a document RapidJSON cannot write");
    }
  } catch (const yaml::YamlError& e) {
    fuzz::check(std::string_view(e.what()).starts_with("line "),
                "yaml: error without a line number: " + std::string(e.what()));
  }

  // Credentials may name other files: keep the fuzzer away from devices and the kernel's files (a read
  // of /dev/zero or /dev/stdin would never end).
  for (std::string_view special : {"/dev", "/proc", "/sys"}) {
    if (text.find(special) != std::string_view::npos) return 0;
  }
  {
    std::ofstream out(config_path(), std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  kube::ApiConfig cfg;
  try {
    cfg = kube::kubeconfig_config(config_path());
  } catch (const kube::ConfigError& e) {
    fuzz::check(std::string_view(e.what()).find(config_path()) != std::string_view::npos,
                "kubeconfig: error does not name the file: " + std::string(e.what()));
    return 0;
  }
  fuzz::check(cfg.scheme == "https" || cfg.scheme == "http", "kubeconfig: scheme " + cfg.scheme);
  fuzz::check(!cfg.host.empty(), "kubeconfig: accepted without a host");
  fuzz::check(cfg.port >= 1 && cfg.port <= 65535, "kubeconfig: port " + std::to_string(cfg.port));
  fuzz::check(cfg.client_cert_pem.empty() == cfg.client_key_pem.empty(),
              "kubeconfig: a certificate without its key");
  return 0;
}

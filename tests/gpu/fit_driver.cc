// gpu-fit-driver: the GPUShare plugin's answer for every probe pod on every node of a cluster file, for
// tests/gpu/compare_hami.sh, which asks HAMi's scheduler the same questions.
//
// Input (argv[1]): {"nodes": [Node], "pods": [Pod bound by spec.nodeName], "probes": [Pod],
// "gpuSchedulerPolicy": "spread", "nodeSchedulerPolicy": "binpack"}, the objects as the API serves them.
// Output: a JSON line per probe and node, {"probe", "node", "fits", "cards": [[uuid, ...] per container],
// "reason"}.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/gpu/device_fit.h"
#include "algorithms/gpu/gpu_share.h"
#include "json/json.h"
#include "kube/codec/k8s_decode.h"

namespace {

using kext::json::Value;

std::vector<const Value*> list(const Value& doc, const char* key) {
  std::vector<const Value*> out;
  if (const Value* v = kext::json::find_non_null(doc, key))
    for (rapidjson::SizeType i = 0; i < kext::json::expect_array(*v, key).Size(); ++i)
      out.push_back(&(*v)[i]);
  return out;
}

void write_line(const std::string& probe, const std::string& node, const kext::gpu::NodeFit& fit,
                const std::string& reason) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  kext::json::write_member(w, "probe", probe);
  kext::json::write_member(w, "node", node);
  w.Key("fits");
  w.Bool(fit.fits);
  w.Key("cards");
  w.StartArray();
  for (const auto& container : fit.allocation) {
    w.StartArray();
    for (const auto& d : container) kext::json::write_string(w, d.uuid);
    w.EndArray();
  }
  w.EndArray();
  kext::json::write_member(w, "reason", reason);
  w.EndObject();
  std::cout << buf.GetString() << '\n';
}

int run(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document doc;
  doc.Parse<kext::json::kParseFlags>(text.str().c_str());
  if (doc.HasParseError()) throw std::runtime_error(path + ": not JSON");
  kext::gpu::SharingConfig config;
  config.gpu_policy = kext::json::get_string(doc, "gpuSchedulerPolicy", "").empty()
                          ? config.gpu_policy
                          : kext::json::get_string(doc, "gpuSchedulerPolicy", "");
  std::map<std::string, kext::NodeInfo> nodes;
  for (const Value* v : list(doc, "nodes")) {
    auto node = std::make_shared<const kext::Node>(kext::decode_node(*v, "node"));
    nodes[node->name].node = node;
  }
  for (const Value* v : list(doc, "pods")) {
    auto pod = std::make_shared<const kext::Pod>(kext::decode_pod(*v, "pod"));
    auto it = nodes.find(pod->node_name);
    if (it != nodes.end())
      it->second.add_pod(std::make_shared<const kext::PodInfo>(kext::make_pod_info(pod)));
  }
  const auto filter = kext::make_gpu_share_filter(config);
  for (const Value* v : list(doc, "probes")) {
    const kext::Pod probe = kext::decode_pod(*v, "probe");
    const kext::gpu::PodRequest request = kext::gpu::pod_request(probe, config);
    const kext::PodContext ctx(probe);
    for (const auto& [name, info] : nodes) {
      kext::gpu::NodeFit fit;
      if (info.node->gpus)
        fit =
            kext::gpu::fit_pod(request, *info.node->gpus, kext::gpu::node_usage(*info.node->gpus, info.pods));
      const kext::FilterStatus status = filter->filter(ctx, info);
      fit.fits = status.ok();
      write_line(probe.namespace_ + "/" + probe.name, name, fit,
                 status.reasons.empty() ? "" : status.reasons[0]);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gpu-fit-driver CLUSTER.json\n";
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "gpu-fit-driver: " << e.what() << '\n';
    return 1;
  }
}

#pragma once
// HAMi's annotations (algorithms/gpu/devices.h) from a node's or a pod's metadata.annotations. A
// malformed annotation does not fail the object: kube-scheduler still places it, so the error is kept
// in the result (NodeDevices::error, PodPreferences::error) for the GPU plugins to report.
#include <cstddef>
#include <memory>
#include <string_view>

#include "algorithms/gpu/devices.h"
#include "json/json.h"

namespace kext {

// hami.io/node-nvidia-register (the JSON list the device plugin writes, or the older
// "id,count,memory,cores,type,numa,health[,index,mode]:" list), hami.io/node-nvidia-score and
// hami.io/device-cordon. Null when the node has no register annotation.
std::shared_ptr<const gpu::NodeDevices> decode_node_gpus(const json::Value* annotations);

// The pod's GPU selectors, policies and weights; null when it has none of those annotations.
std::shared_ptr<const gpu::PodPreferences> decode_gpu_preferences(const json::Value* annotations);

// hami.io/vgpu-devices-allocated, collapsed over the containers (the first `init_containers` entries
// are init containers); null when absent or malformed, as HAMi's scheduler then counts nothing.
std::shared_ptr<const gpu::PodShares> decode_gpu_shares(const json::Value* annotations,
                                                        size_t init_containers);

// The parsers behind them, on the annotation's value.
gpu::NodeDevices parse_gpu_register(std::string_view value);                 // throws DecodeError
void parse_gpu_pair_scores(std::string_view value, gpu::NodeDevices& into);  // throws DecodeError
gpu::Weights parse_gpu_weights(std::string_view value);                      // throws DecodeError
gpu::PodAllocation parse_gpu_allocation(std::string_view value);             // throws DecodeError

}  // namespace kext

#pragma once
// The scheduler's request envelopes (PascalCase, matched case-insensitively) and reply encoders.
#include <concepts>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "kube/codec/decode_cache.h"
#include "kube/codec/name_list.h"
#include "json/json.h"

namespace kext {

// ExtenderArgs: {"Pod":…, "Nodes":{"items":[…]}|null, "NodeNames":[…]|null}.
struct ExtenderArgs {
  std::shared_ptr<const Pod> pod;                   // never null once decoded; shared with PodDecodeCache
  bool full_nodes = false;                          // Nodes was sent (nodeCacheCapable: false)
  std::vector<std::shared_ptr<const Node>> nodes;   // full mode
  std::vector<std::string_view> node_raw;           // full mode: each object's bytes in the body, for the echo
  NameList node_names;                              // names mode; in full mode the names of `nodes`
};

// Which pods decode_extender_args may reuse. Filter puts each pod it decodes in (look_up false) and
// prioritize takes it back out: the scheduler sends the same pod's bytes to both in one cycle. Filter
// does not look: the pod it is sent is new to it but for retries, and looking would let a benchmark
// that replays a few pods over and over skip a decode the scheduler's filters never skip.
struct PodReuse {
  PodDecodeCache* cache = nullptr;
  bool look_up = false;
};

// Throws DecodeError naming the problem (missing Pod, wrong types, bad quantities, …). node_raw
// points into body. With a cache, node objects whose bytes were decoded before are reused.
void decode_extender_args(std::string_view body, ExtenderArgs& out, NodeDecodeCache* cache = nullptr,
                          PodReuse pods = {});
// node_raw points into body, so body must outlive out: decoding a temporary std::string does not compile.
template <typename S>
concept TemporaryString = !std::is_lvalue_reference_v<S> && std::same_as<std::remove_cv_t<S>, std::string>;
template <TemporaryString S>
void decode_extender_args(S&& body, ExtenderArgs& out, NodeDecodeCache* cache = nullptr,
                          PodReuse pods = {}) = delete;

// Parses the body into doc, with a clear error for empty or malformed JSON.
void parse_body(std::string_view body, rapidjson::Document& doc);

// A rejected node: its index in the request and Kubernetes' reasons, joined by ", ".
struct RejectedNode {
  size_t index = 0;
  std::string reason;
};

struct FilterReply {
  std::vector<size_t> passed;               // indices into the request's nodes
  std::vector<RejectedNode> failed;         // preemption may help
  std::vector<RejectedNode> unresolvable;
};

std::string encode_filter_reply(const ExtenderArgs& args, const FilterReply& reply);
std::string encode_prioritize_reply(const NameList& hosts, const std::vector<int64_t>& scores);

}  // namespace kext

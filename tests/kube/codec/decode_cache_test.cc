// Decoding through the caches. Full-Nodes: the same bytes give the same decoded node, different bytes a
// new one, and the echo is the request's bytes. Pods: prioritize reuses the pod filter decoded from the
// same bytes, filter never reuses one.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/codec/extender_args.h"

namespace kext {
namespace decode_cache_test {
namespace {

std::string node(const std::string& name, const std::string& cpu) {
  return R"({"metadata":{"name":")" + name + R"(","labels":{"a":"b"}},"status":{"allocatable":{"cpu":")" +
         cpu + R"("}}})";
}

std::string body(const std::string& nodes) {
  return R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[)" + nodes + "]}}";
}

// node_raw points into the body, so decoding a temporary std::string would leave it dangling.
template <typename S>
concept Decodes = requires(S&& s, ExtenderArgs& out) {
  decode_extender_args(std::forward<S>(s), out);
};
static_assert(!Decodes<std::string>);
static_assert(!Decodes<const std::string>);
static_assert(Decodes<std::string&>);
static_assert(Decodes<const std::string&>);
static_assert(Decodes<std::string_view>);
static_assert(Decodes<const char*>);

constexpr size_t kPodCacheCapacityForTests = 64;

TEST(NodeDecodeCache, RepeatedBytesAreDecodedOnce) {
  NodeDecodeCache cache;
  ExtenderArgs first, second;
  const std::string first_body = body(node("n1", "1") + "," + node("n2", "2"));
  const std::string second_body = body(node("n2", "2") + "," + node("n1", "3"));
  decode_extender_args(first_body, first, &cache);
  decode_extender_args(second_body, second, &cache);
  ASSERT_EQ(first.nodes.size(), 2u);
  ASSERT_EQ(second.nodes.size(), 2u);
  EXPECT_EQ(first.nodes[1].get(), second.nodes[0].get());  // n2 unchanged: the same object
  EXPECT_NE(first.nodes[0].get(), second.nodes[1].get());  // n1 changed: decoded again
  EXPECT_EQ(second.nodes[1]->allocatable.milli_cpu, 3000);
  EXPECT_EQ(second.node_raw[0], node("n2", "2"));
  EXPECT_EQ(second.node_names, (NameList{"n2", "n1"}));
}

TEST(NodeDecodeCache, DisabledCacheStillDecodes) {
  NodeDecodeCache off(0);
  ExtenderArgs a, b;
  const std::string request = body(node("n1", "1"));
  decode_extender_args(request, a, &off);
  decode_extender_args(request, b, &off);
  EXPECT_NE(a.nodes[0].get(), b.nodes[0].get());
  EXPECT_EQ(b.nodes[0]->name, "n1");
}

TEST(NodeDecodeCache, EvictionKeepsServing) {
  NodeDecodeCache tiny(16);  // one entry per shard
  for (int round = 0; round < 3; ++round) {
    std::string nodes;
    for (int i = 0; i < 50; ++i) nodes += (i ? "," : "") + node("n" + std::to_string(i), "1");
    ExtenderArgs args;
    const std::string request = body(nodes);
    decode_extender_args(request, args, &tiny);
    ASSERT_EQ(args.nodes.size(), 50u);
    EXPECT_EQ(args.nodes[49]->name, "n49");
  }
}

TEST(NodeDecodeCache, BadNodeIsAnErrorEvenAfterGoodOnes) {
  NodeDecodeCache cache;
  ExtenderArgs args;
  const std::string bad =
      body(node("n1", "1") + R"(,{"metadata":{"name":"n2"},"status":{"allocatable":{"cpu":"lots"}}})");
  try {
    decode_extender_args(bad, args, &cache);
    FAIL() << "expected a DecodeError";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("Nodes.items[1]"), std::string::npos) << e.what();
  }
}

TEST(NodeDecodeCache, EscapedEnvelopeKeysStillMatch) {
  ExtenderArgs args;
  decode_extender_args(R"({"\u0050od":{"metadata":{"name":"p"}},"NodeNames":["a"]})", args);
  EXPECT_EQ(args.pod->name, "p");
  EXPECT_EQ(args.node_names, NameList{"a"});
}

std::string pod_request(const std::string& pod) { return R"({"Pod":)" + pod + R"(,"NodeNames":["a"]})"; }

const std::string kPod =
    R"({"metadata":{"name":"p","uid":"u1"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"250m"}}}]}})";

TEST(PodDecodeCache, PrioritizeReusesThePodFilterDecoded) {
  PodDecodeCache cache(kPodCacheCapacityForTests);
  const std::string request = pod_request(kPod);
  ExtenderArgs filtered, prioritized, filtered_again;
  decode_extender_args(request, filtered, nullptr, {&cache, false});
  decode_extender_args(request, prioritized, nullptr, {&cache, true});
  decode_extender_args(request, filtered_again, nullptr, {&cache, false});
  EXPECT_EQ(prioritized.pod.get(), filtered.pod.get());     // looked up: the same object
  EXPECT_NE(filtered_again.pod.get(), filtered.pod.get());  // filter decodes every pod it is sent
  EXPECT_EQ(prioritized.pod->containers.at(0).requests.milli_cpu, 250);
  // What was reused is what a decode without any cache gives.
  ExtenderArgs fresh;
  decode_extender_args(request, fresh);
  EXPECT_EQ(prioritized.pod->name, fresh.pod->name);
  EXPECT_EQ(prioritized.pod->uid, fresh.pod->uid);
  EXPECT_EQ(prioritized.pod->containers.at(0).requests, fresh.pod->containers.at(0).requests);
}

TEST(PodDecodeCache, OtherBytesAreDecodedAgain) {
  PodDecodeCache cache(kPodCacheCapacityForTests);
  struct Case {
    std::string name, pod, want_name;
    int64_t want_cpu;
  };
  const std::vector<Case> cases = {
      {"another pod", R"({"metadata":{"name":"q"},"spec":{"containers":[]}})", "q", 0},
      {"the same pod, one request changed",
       R"({"metadata":{"name":"p","uid":"u1"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}})",
       "p", 500},
      {"the same pod, spaced differently",
       R"({ "metadata":{"name":"p","uid":"u1"},"spec":{"containers":[]}})", "p", 0},
  };
  ExtenderArgs first;
  const std::string first_request = pod_request(kPod);
  decode_extender_args(first_request, first, nullptr, {&cache, false});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ExtenderArgs args;
    const std::string request = pod_request(c.pod);
    decode_extender_args(request, args, nullptr, {&cache, true});
    EXPECT_NE(args.pod.get(), first.pod.get());
    EXPECT_EQ(args.pod->name, c.want_name);
    int64_t cpu = 0;
    for (const auto& container : args.pod->containers) cpu += container.requests.milli_cpu;
    EXPECT_EQ(cpu, c.want_cpu);
  }
}

// A pod that does not decode is an error every time: nothing was cached for it.
TEST(PodDecodeCache, ABadPodIsAnErrorEveryTime) {
  PodDecodeCache cache(kPodCacheCapacityForTests);
  const std::string bad = pod_request(R"({"metadata":{"name":"p"},"spec":{"priority":"high"}})");
  for (const bool look_up : {false, true, true}) {
    ExtenderArgs args;
    EXPECT_THROW(decode_extender_args(bad, args, nullptr, {&cache, look_up}), DecodeError);
  }
}

TEST(PodDecodeCache, DisabledCacheStillDecodes) {
  PodDecodeCache off(0);
  const std::string request = pod_request(kPod);
  ExtenderArgs a, b;
  decode_extender_args(request, a, nullptr, {&off, false});
  decode_extender_args(request, b, nullptr, {&off, true});
  EXPECT_NE(a.pod.get(), b.pod.get());
  EXPECT_EQ(b.pod->name, "p");
}

}  // namespace
}  // namespace decode_cache_test
}  // namespace kext

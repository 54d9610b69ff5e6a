// Full-Nodes decoding through the cache: the same bytes give the same decoded node, different bytes
// a new one, and the echo is the request's bytes.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

#include "extender/codec/extender_args.h"

namespace kext {
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
  EXPECT_EQ(args.pod.name, "p");
  EXPECT_EQ(args.node_names, NameList{"a"});
}

}  // namespace
}  // namespace kext

// Hostile variations of the recorded requests: truncations, flipped bytes and spliced garbage must
// each get a 200 or a 4xx with a JSON Error, never a crash, through every verb.
#include <gtest/gtest.h>

#include <random>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace mutation_test {
namespace {

class Mutations : public ::testing::Test {
 protected:
  Mutations() : profile_(compile(parse_policy(default_policy_json()))), verbs_(profile_, store_) {
    store_.publish(fixture_cluster());
  }

  void expect_survives(const std::string& body, const std::string& what) {
    for (auto verb : {&Verbs::filter, &Verbs::prioritize, &Verbs::preempt}) {
      Reply r = (verbs_.*verb)(body);
      auto d = parse(r.body);
      ASSERT_FALSE(d.HasParseError()) << what << ": reply is not JSON: " << r.body;
      if (r.status == 200) continue;
      EXPECT_EQ(r.status, 400) << what;
      ASSERT_TRUE(d.IsObject() && d.HasMember("Error") && d["Error"].IsString()) << what << ": " << r.body;
      EXPECT_GT(d["Error"].GetStringLength(), 0u) << what;
    }
  }

  Profile profile_;
  StateStore store_;
  Verbs verbs_;
};

TEST_F(Mutations, RecordedRequestsSurviveRandomDamage) {
  const std::vector<std::string> files = {
      "default/0001-filter--low-1-first.json", "cache/0002-prioritize--low-1.json",
      "default/0028-preempt--high-1.json", "cache/0028-preempt--high-1.json"};
  std::mt19937 rng(12345);  // fixed: a failure must reproduce
  const std::string junk[] = {"{", "}",    "[",      "]",       "\"",   "\\", ",",
                              ":", "null", "-1e999", "\\u0000", "\x01", "9"};
  int cases = 0;
  for (const auto& f : files) {
    const std::string original = read_file(fixture_path(f));
    ASSERT_FALSE(original.empty()) << f;
    for (int i = 0; i < 150; ++i) {
      std::string body = original;
      std::uniform_int_distribution<size_t> at(0, body.size() - 1);
      switch (i % 3) {
        case 0:
          body.resize(at(rng));
          break;
        case 1:
          body[at(rng)] = static_cast<char>(rng() & 0xff);
          break;
        default:
          body.insert(at(rng), junk[rng() % std::size(junk)]);
          break;
      }
      expect_survives(body, f + " mutation " + std::to_string(i));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 600);
}

}  // namespace
}  // namespace mutation_test
}  // namespace kext::testing

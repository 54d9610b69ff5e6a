// ExtenderBindingArgs decoding: the names become API path segments, so only DNS-1123 subdomains pass.
#include "kube/codec/binding_args.h"

#include <gtest/gtest.h>

#include "json/json.h"

namespace kext {
namespace binding_args_test {
namespace {

std::string body(const std::string& name, const std::string& ns, const std::string& node) {
  return R"({"PodName":")" + name + R"(","PodNamespace":")" + ns + R"(","PodUID":"u","Node":")" + node +
         R"("})";
}

TEST(BindingArgs, AcceptsKubernetesNames) {
  BindingArgs a = decode_binding_args(body("low-1", "lab", "node-a.zone-1.example"));
  EXPECT_EQ(a.pod_name, "low-1");
  EXPECT_EQ(a.pod_namespace, "lab");
  EXPECT_EQ(a.node, "node-a.zone-1.example");
  EXPECT_EQ(a.pod_uid, "u");
  EXPECT_NO_THROW(decode_binding_args(body("a--b", "0", std::string(253, 'n'))));
}

// Found by tests/fuzz (bind): "nodebb-" passed, as did "." and "..", which as path segments make
// /api/v1/namespaces/../pods/x/binding another endpoint.
TEST(BindingArgs, RejectsWhatIsNotADns1123Subdomain) {
  for (const std::string bad : {"nodebb-", "-a", ".", "..", "a..b", "a.-b", "a-.b", ".a", "a.", "A", "a_b"}) {
    EXPECT_THROW(decode_binding_args(body("p", "lab", bad)), DecodeError) << "Node " << bad;
    EXPECT_THROW(decode_binding_args(body(bad, "lab", "n")), DecodeError) << "PodName " << bad;
    EXPECT_THROW(decode_binding_args(body("p", bad, "n")), DecodeError) << "PodNamespace " << bad;
  }
  EXPECT_THROW(decode_binding_args(body("p", "lab", std::string(254, 'n'))), DecodeError);
  try {
    decode_binding_args(body("p", "..", "n"));
    FAIL() << "expected an error";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "PodNamespace: \"..\" is not a valid Kubernetes name");
  }
}

}  // namespace
}  // namespace binding_args_test
}  // namespace kext

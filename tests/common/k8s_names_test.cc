// common/k8s_names.h: Kubernetes' name validation as k8s.io/apimachinery/pkg/util/validation's tests
// (validation_test.go TestIsQualifiedName, TestIsDNS1123Subdomain) exercise it.
#include "common/k8s_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kext {
namespace k8s_names_test {
namespace {

// A prefix of `n` letters and the name "x".
std::string prefixed(size_t n) {
  std::string key(n, 'a');
  key.push_back('/');
  key.push_back('x');
  return key;
}

TEST(QualifiedName, LabelKeys) {
  struct Case {
    std::string key;
    std::string error;  // "" for a valid key; else a part of the message
  };
  const std::vector<Case> cases = {
      {"rack", ""},
      {"kubernetes.io/hostname", ""},
      {"topology.kubernetes.io/zone", ""},
      {"example.com/Block_1.a-b", ""},
      {"a", ""},
      {"1", ""},
      {std::string(63, 'a'), ""},
      {prefixed(253), ""},
      {"", "name part must be non-empty"},
      {"example.com/", "name part must be non-empty"},
      {"/rack", "prefix part must be non-empty"},
      {std::string(64, 'a'), "name part must be no more than 63 characters"},
      {"-rack", "must start and end with an alphanumeric character"},
      {"rack.", "must start and end with an alphanumeric character"},
      {"rack number", "name part must consist of alphanumeric characters"},
      {"Example.com/rack", "prefix part must be a lowercase RFC 1123 subdomain"},
      {"example..com/rack", "prefix part must be a lowercase RFC 1123 subdomain"},
      {prefixed(254), "prefix part must be a lowercase RFC 1123 subdomain"},
      {"a/b/c", "a qualified name must consist of an optional DNS subdomain prefix"},
  };
  for (const Case& c : cases) {
    const std::string error = qualified_name_error(c.key);
    if (c.error.empty()) {
      EXPECT_EQ(error, "") << c.key;
    } else {
      EXPECT_NE(error.find(c.error), std::string::npos) << c.key << ": " << error;
    }
  }
}

TEST(Dns1123Subdomain, Names) {
  struct Case {
    std::string name;
    bool valid;
  };
  const std::vector<Case> cases = {
      {"node-1", true},
      {"a.b-c.d", true},
      {"0", true},
      {std::string(253, 'a'), true},
      {"", false},
      {"-a", false},
      {"a-", false},
      {".a", false},
      {"a.", false},
      {"a..b", false},
      {"a.-b", false},
      {"a-.b", false},
      {"Node", false},
      {"a_b", false},
      {std::string(254, 'a'), false},
  };
  for (const Case& c : cases) EXPECT_EQ(is_dns1123_subdomain(c.name), c.valid) << c.name;
}

}  // namespace
}  // namespace k8s_names_test
}  // namespace kext

// A request without an HTTP response in words and as a label: each cpp-httplib error name with what
// else is known of it; and the connect that tells a refused server from an unreachable one.
#include "kube/client/transport_error.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "tests/support/fake_apiserver.h"

namespace kext::kube {
namespace transport_error_test {
namespace {

using namespace std::chrono_literals;

const std::string kUrl = "https://10.0.0.1:6443";

TEST(TransportError, EachCauseInWordsAndAsALabel) {
  struct Case {
    TransportFacts facts;
    std::string label, words;
  };
  const std::vector<Case> cases = {
      {{"Connection", ECONNREFUSED}, "refused", "cannot connect to " + kUrl + ": connection refused"},
      {{"Connection", EHOSTUNREACH}, "unreachable", "cannot connect to " + kUrl + ": no route to host"},
      {{"Connection", ENETUNREACH}, "unreachable", "cannot connect to " + kUrl + ": network is unreachable"},
      {{"Connection", ETIMEDOUT, "", "", false, 1000ms},
       "timeout",
       "cannot connect to " + kUrl + ": timed out after 1 s"},
      {{"Connection", -1, "Name or service not known"},
       "dns",
       "cannot connect to " + kUrl + ": cannot resolve the host: Name or service not known"},
      {{"Connection", 0}, "error", "cannot connect to " + kUrl + " (it accepted a connection just after)"},
      {{"ConnectionTimeout", 0, "", "", false, 5000ms},
       "timeout",
       "cannot connect to " + kUrl + ": timed out after 5 s"},
      {{"SSLServerVerification", 0, "", "certificate verify failed: self-signed certificate"},
       "tls",
       "TLS handshake with " + kUrl + " failed: certificate verify failed: self-signed certificate"},
      {{"SSLConnection", 0, "", "wrong version number"},
       "tls",
       "TLS handshake with " + kUrl + " failed: wrong version number"},
      {{"SSLConnection"}, "tls", "TLS handshake with " + kUrl + " failed"},
      {{"Read", 0, "", "", true, 60000ms}, "timeout", "no response from " + kUrl + ": timed out after 60 s"},
      {{"Read", 0, "", "", false, 60000ms}, "closed", "no response from " + kUrl + ": connection closed"},
      {{"Write"}, "closed", "request to " + kUrl + " not sent: connection closed"},
      {{"Canceled"}, "cancelled", "cancelled"},
      {{"Compression"}, "error", "Compression (" + kUrl + ")"},
  };
  for (const Case& c : cases) {
    const TransportFailure f = describe_transport_failure(c.facts, kUrl);
    EXPECT_EQ(f.label, c.label) << c.facts.error << " " << c.facts.connect_errno;
    EXPECT_EQ(f.words, c.words) << c.facts.error << " " << c.facts.connect_errno;
    EXPECT_EQ(f.words.find('\n'), std::string::npos);
  }
}

TEST(TransportError, AConnectToAClosedPortIsRefused) {
  int closed_port;
  {
    testing::FakeApiServer api;
    closed_port = api.port();
  }
  std::string resolve_error;
  EXPECT_EQ(probe_connect("127.0.0.1", closed_port, 1000ms, &resolve_error), ECONNREFUSED);
  EXPECT_EQ(resolve_error, "");
  testing::FakeApiServer open;
  EXPECT_EQ(probe_connect("127.0.0.1", open.port(), 1000ms, &resolve_error), 0);
}

}  // namespace
}  // namespace transport_error_test
}  // namespace kext::kube

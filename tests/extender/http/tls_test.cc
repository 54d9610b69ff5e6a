// TLS and mTLS on the real server with the test certificates in tests/fixtures/certs.
#include "extender/http/tls.h"

#include <gtest/gtest.h>

#include "extender/options.h"
#include "tests/support/raw_client.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace tls_test {
namespace {

std::string cert(const std::string& name) { return std::string(KEXT_FIXTURES_DIR) + "/../certs/" + name; }

ServerConfig tls_config(bool require_client_cert) {
  ServerConfig c;
  c.tls.cert_file = cert("server.crt");
  c.tls.key_file = cert("server.key");
  if (require_client_cert) c.tls.client_ca_file = cert("ca.crt");
  return c;
}

// A client that verifies the server against the test CA, optionally presenting a certificate.
std::unique_ptr<httplib::SSLClient> client(int port, const std::string& cert_name = "",
                                           const std::string& key_name = "") {
  auto c = cert_name.empty()
               ? std::make_unique<httplib::SSLClient>("127.0.0.1", port)
               : std::make_unique<httplib::SSLClient>("127.0.0.1", port, cert(cert_name), cert(key_name));
  c->set_ca_cert_path(cert("ca.crt"));
  c->enable_server_certificate_verification(true);
  c->set_connection_timeout(2, 0);
  c->set_read_timeout(2, 0);
  return c;
}

TEST(Tls, ServesHttpsWithTheGivenCertificate) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()), tls_config(false));
  auto c = client(server.port());
  auto res = c->Get("/healthz");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "ok");

  auto filter = c->Post("/filter", read_file(fixture_path("default/0001-filter--low-1-first.json")),
                        "application/json");
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->status, 200) << filter->body;
}

TEST(Tls, StalledAndGarbageHandshakesDoNotBlockOtherClients) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()), tls_config(true));
  std::vector<RawConnection> attackers;
  for (int i = 0; i < 40; ++i) attackers.emplace_back(server.port());  // connect, send nothing
  for (int i = 0; i < 10; ++i) {
    attackers.emplace_back(server.port());
    attackers.back().send(std::string_view("\x16\x03\x01\x02\x00\x01", 6));  // half a ClientHello
  }
  for (int i = 0; i < 10; ++i) {
    attackers.emplace_back(server.port());
    attackers.back().send("GET /healthz HTTP/1.1\r\n\r\n");  // not TLS at all
  }
  const auto start = std::chrono::steady_clock::now();
  auto c = client(server.port(), "client.crt", "client.key");
  auto res = c->Post("/filter", read_file(fixture_path("default/0001-filter--low-1-first.json")),
                     "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(Tls, PlainHttpClientGetsNoReply) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()), tls_config(false));
  httplib::Client plain("127.0.0.1", server.port());
  plain.set_read_timeout(2, 0);
  auto res = plain.Get("/healthz");
  EXPECT_FALSE(res && res->status == 200);
}

TEST(Tls, MutualAcceptsClientSignedByTheCa) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()), tls_config(true));
  auto c = client(server.port(), "client.crt", "client.key");
  auto res = c->Get("/healthz");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
}

TEST(Tls, MutualRefusesClientWithoutCertificate) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()), tls_config(true));
  auto c = client(server.port());
  auto res = c->Get("/healthz");
  EXPECT_FALSE(res) << "status " << res->status;
}

TEST(Tls, MutualRefusesClientOfAnotherCa) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()), tls_config(true));
  auto c = client(server.port(), "rogue-client.crt", "rogue-client.key");
  auto res = c->Get("/healthz");
  EXPECT_FALSE(res) << "status " << res->status;
}

TEST(TlsFlags, RefusesIncompleteCombinations) {
  auto parse = [](std::vector<std::string> args) {
    args.insert(args.begin(), "kube-extender");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return parse_options(static_cast<int>(argv.size()), argv.data());
  };
  EXPECT_THROW(parse({"--tls-cert-file", "a.crt"}), std::invalid_argument);
  EXPECT_THROW(parse({"--tls-private-key-file", "a.key"}), std::invalid_argument);
  EXPECT_THROW(parse({"--client-ca-file", "ca.crt"}), std::invalid_argument);
  Options o =
      parse({"--tls-cert-file", "a.crt", "--tls-private-key-file", "a.key", "--client-ca-file", "ca.crt"});
  EXPECT_TRUE(o.server.tls.enabled());
  EXPECT_EQ(o.server.tls.client_ca_file, "ca.crt");
  EXPECT_FALSE(parse({}).server.tls.enabled());  // plain HTTP stays the default
}

TEST(TlsFlags, FileErrorsNameTheFlagAndFile) {
  TlsConfig ok{cert("server.crt"), cert("server.key"), cert("ca.crt")};
  EXPECT_EQ(validate_tls_files(ok), "");

  TlsConfig missing = ok;
  missing.cert_file = "/nonexistent/server.crt";
  EXPECT_EQ(validate_tls_files(missing), "--tls-cert-file /nonexistent/server.crt: cannot open file");

  TlsConfig not_a_key = ok;
  not_a_key.key_file = cert("server.crt");
  EXPECT_NE(validate_tls_files(not_a_key).find("--tls-private-key-file"), std::string::npos);

  TlsConfig mismatch = ok;
  mismatch.key_file = cert("client.key");
  EXPECT_NE(validate_tls_files(mismatch).find("does not match"), std::string::npos);

  TlsConfig bad_ca = ok;
  bad_ca.client_ca_file = cert("README.md");
  EXPECT_NE(validate_tls_files(bad_ca).find("--client-ca-file"), std::string::npos);
}

}  // namespace
}  // namespace tls_test
}  // namespace kext::testing

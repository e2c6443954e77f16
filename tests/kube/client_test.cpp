#include "jobset_webhook/kube/client.h"

#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_api_server.h"
#include "support/pki.h"

namespace fs = std::filesystem;
using namespace jobset_webhook;
using namespace jobset_webhook::kube;
using jobset_webhook::testing::FakeApiServer;
using jobset_webhook::testing::make_pki;
using jobset_webhook::testing::make_serving_cert;
using jobset_webhook::testing::Pki;

namespace {

constexpr const char* kPod = "/api/v1/namespaces/default/pods/p";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Replaces path's content the way the kubelet does: a new file renamed over the old one.
void replace_file(const fs::path& path, const std::string& text) {
  const fs::path next = path.string() + ".next";
  std::ofstream(next, std::ios::binary) << text;
  fs::rename(next, path);
}

// An environment variable set for the scope of a test, restored after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) {
      ::unsetenv(name_);
    } else {
      ::setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char* name_;
  std::string old_;
};

Config config_for(const FakeApiServer& server, const std::string& ca_pem) {
  Config c;
  c.host = "127.0.0.1";
  c.port = server.port();
  c.ca_pem = ca_pem;
  c.token = "secret-token";
  return c;
}

// Two CAs that trust nothing of each other; the server's certificate (for localhost and
// 127.0.0.1) is signed by b.
struct TwoCas {
  Pki a = make_pki();
  Pki b = make_pki();
  std::string server_cert = (b.dir / "tls").string();
};

}  // namespace

TEST_CASE(
    "A server signed by a CA other than the configured one is refused, whatever the host "
    "trusts, and no request reaches it",
    "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  const ScopedEnv cert_file("SSL_CERT_FILE", cas.b.ca_crt());
  const ScopedEnv cert_dir("SSL_CERT_DIR", cas.b.dir.string());
  Client client(config_for(server, slurp(cas.a.ca_crt())));
  for (int i = 0; i < 3; ++i) {
    const auto got = client.get(kPod);
    REQUIRE_FALSE(got.ok());
    CHECK(got.failure().http_status == kTransportError);
    CHECK(got.failure().message == "GET " + std::string(kPod) + ": TLS handshake with 127.0.0.1:" +
                                       std::to_string(server.port()) +
                                       " failed: certificate verify failed (unable to get local "
                                       "issuer certificate)");
  }
  const auto watched = client.watch(kPod, "", "1", 5, [](const WatchEvent&) { return true; });
  REQUIRE_FALSE(watched.ok());
  CHECK(watched.failure().message.find("certificate verify failed") != std::string::npos);
  CHECK(server.requests() == 0);
  CHECK(server.watches_started() == 0);
}

TEST_CASE("A server signed by the configured CA is trusted and gets the bearer token",
          "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Client client(config_for(server, slurp(cas.b.ca_crt())));
  const auto got = client.get(kPod);
  REQUIRE(got.ok());
  CHECK(got.value()["metadata"]["name"] == "p");
  CHECK(server.authorizations() == std::vector<std::string>{"Bearer secret-token"});
}

TEST_CASE("A JSON patch's answer brings the API server's Warning headers", "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Client client(config_for(server, slurp(cas.b.ca_crt())));
  std::vector<std::string> warnings;
  const auto patched = client.json_patch(kPod, Json::array(), &warnings);
  REQUIRE(patched.ok());
  CHECK(patched.value()["metadata"]["resourceVersion"] == "6");
  CHECK(warnings == std::vector<std::string>{R"(replicatedJob "workers" scaled up)", R"(a \ b)",
                                             "second in one header"});
  CHECK(client.json_patch(kPod, Json::array()).ok());  // without a place for them
}

TEST_CASE("A certificate for another name is refused", "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(make_serving_cert(cas.b, "other", "DNS:other.example,IP:127.0.0.2"));
  Client client(config_for(server, slurp(cas.b.ca_crt())));
  const auto got = client.get(kPod);
  REQUIRE_FALSE(got.ok());
  CHECK(got.failure().http_status == kTransportError);
  CHECK(got.failure().message.find("failed: certificate verify failed (IP address mismatch)") !=
        std::string::npos);
  CHECK(server.requests() == 0);

  Config by_name = config_for(server, slurp(cas.b.ca_crt()));
  by_name.host = "localhost";
  Client named(by_name);
  const auto by_dns = named.get(kPod);
  REQUIRE_FALSE(by_dns.ok());
  CHECK(by_dns.failure().message.find("failed: certificate verify failed (hostname mismatch)") !=
        std::string::npos);
  CHECK(server.requests() == 0);
}

TEST_CASE("A server certificate's DNS name is matched when the host is a name", "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Config c = config_for(server, slurp(cas.b.ca_crt()));
  c.host = "localhost";
  Client client(c);
  CHECK(client.get(kPod).ok());
}

TEST_CASE("insecure-skip-tls-verify accepts any server certificate", "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(make_serving_cert(cas.b, "other", "DNS:other.example"));
  Config c = config_for(server, "");
  c.insecure_skip_tls_verify = true;
  Client client(c);
  CHECK(client.get(kPod).ok());
}

TEST_CASE("With no CA configured the host's trust store decides, as for client-go",
          "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  {
    const ScopedEnv cert_file("SSL_CERT_FILE", cas.a.ca_crt());
    Client client(config_for(server, ""));
    CHECK_FALSE(client.get(kPod).ok());
  }
  {
    const ScopedEnv cert_file("SSL_CERT_FILE", cas.b.ca_crt());
    Client client(config_for(server, ""));
    CHECK(client.get(kPod).ok());
  }
}

TEST_CASE("A CA bundle without a certificate is a transport failure that says so",
          "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Client client(config_for(server, "not PEM"));
  const auto got = client.get(kPod);
  REQUIRE_FALSE(got.ok());
  CHECK(got.failure().http_status == kTransportError);
  CHECK(got.failure().message ==
        "GET " + std::string(kPod) + ": the CA bundle for 127.0.0.1 holds no PEM certificate");
  CHECK(server.requests() == 0);
}

TEST_CASE("Sequential requests share one connection", "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Client client(config_for(server, slurp(cas.b.ca_crt())));
  for (int i = 0; i < 20; ++i) REQUIRE(client.get(kPod).ok());
  const auto watched = client.watch(kPod, "", "1", 1, [](const WatchEvent&) { return true; });
  REQUIRE(watched.ok());
  CHECK(watched.value() == "7");
  for (int i = 0; i < 5; ++i) REQUIRE(client.get(kPod).ok());
  CHECK(server.requests() == 26);
  CHECK(server.connections() == 1);
  CHECK(server.handshakes() == 1);
}

TEST_CASE("Requests from several threads at once each get a connection, then reuse it",
          "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Client client(config_for(server, slurp(cas.b.ca_crt())));
  std::vector<std::future<int>> threads;
  for (int t = 0; t < 4; ++t) {
    threads.push_back(std::async(std::launch::async, [&] {
      int ok = 0;
      for (int i = 0; i < 25; ++i) ok += client.get(kPod).ok() ? 1 : 0;
      return ok;
    }));
  }
  for (auto& t : threads) CHECK(t.get() == 25);
  CHECK(server.requests() == 100);
  CHECK(server.connections() <= 4);
}

TEST_CASE("The token file is read again for each request", "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  const auto dir = jobset_webhook::testing::fresh_temp_dir("token");
  replace_file(dir / "token", "first\n");
  Config c = config_for(server, slurp(cas.b.ca_crt()));
  c.token_file = (dir / "token").string();
  Client client(c);
  REQUIRE(client.get(kPod).ok());
  replace_file(dir / "token", "second\n");
  REQUIRE(client.get(kPod).ok());
  CHECK(server.authorizations() == std::vector<std::string>{"Bearer first", "Bearer second"});
  fs::remove_all(dir);
}

TEST_CASE("A rotated CA file is picked up without a restart", "[kube][client]") {
  TwoCas cas;
  FakeApiServer server((cas.a.dir / "tls").string());
  const auto dir = jobset_webhook::testing::fresh_temp_dir("ca");
  const fs::path ca_file = dir / "ca.crt";
  replace_file(ca_file, slurp(cas.a.ca_crt()));
  Config c = config_for(server, slurp(cas.a.ca_crt()));
  c.ca_file = ca_file.string();
  Client client(c);
  REQUIRE(client.get(kPod).ok());

  // The server moves to a certificate of CA b; the CA file follows.
  server.serve_certificate(cas.server_cert);
  replace_file(ca_file, slurp(cas.b.ca_crt()));
  const auto after = client.get(kPod);
  REQUIRE(after.ok());
  CHECK(server.handshakes() == 2);  // the connection made under the old CA was not reused

  // Back to CA a in the file only: the server's certificate of b is refused again.
  replace_file(ca_file, slurp(cas.a.ca_crt()));
  const auto refused = client.get(kPod);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.failure().message.find("certificate verify failed") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("cancel() ends a watch in flight, and requests work again after reset_cancel()",
          "[kube][client]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Client client(config_for(server, slurp(cas.b.ca_crt())));
  REQUIRE(client.get(kPod).ok());  // the watch takes this idle connection
  std::promise<void> first_event;
  const auto start = std::chrono::steady_clock::now();
  auto watching = std::async(std::launch::async, [&] {
    bool first = true;
    return client.watch(kPod, "", "1", 60, [&](const WatchEvent& e) {
      if (first) first_event.set_value();
      first = false;
      return e.type == "ADDED";
    });
  });
  REQUIRE(first_event.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  client.cancel();
  REQUIRE(watching.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  const auto ended = watching.get();
  REQUIRE_FALSE(ended.ok());
  CHECK(ended.failure().http_status == kTransportError);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));

  const auto refused = client.get(kPod);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.failure().message == "cancelled");
  client.reset_cancel();
  CHECK(client.get(kPod).ok());
}

// Not a check: the cost of the client per request (the calling thread's CPU time, where the
// client's work happens; the server's threads are not counted), for docs/benchmarks.md.
//   build/tests/edge_tests "[kube_cost]"
TEST_CASE("The client's CPU time for 200 sequential GETs", "[.][kube_cost]") {
  TwoCas cas;
  FakeApiServer server(cas.server_cert);
  Client client(config_for(server, slurp(cas.b.ca_crt())));
  constexpr int kRequests = 200;
  auto cpu_ms = [] {
    rusage u{};
    ::getrusage(RUSAGE_THREAD, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000.0 +
           (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000.0;
  };
  const double cpu_before = cpu_ms();
  const auto wall_before = std::chrono::steady_clock::now();
  for (int i = 0; i < kRequests; ++i) REQUIRE(client.get(kPod).ok());
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_before)
          .count();
  const double cpu = cpu_ms() - cpu_before;
  // On stderr: stdout is the TAP stream meson reads.
  std::fprintf(stderr,
               "kube client: %d GETs: client thread CPU %.1f ms (%.3f ms per request), wall %.1f "
               "ms, %zu connections, %d handshakes\n",
               kRequests, cpu, cpu / kRequests, wall_ms, server.connections(), server.handshakes());
}

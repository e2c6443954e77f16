// Certificates rotate as a Kubernetes Secret volume rotates them: new files in a new directory,
// then one atomic symlink swap. The server must pick them up without a restart and without
// failing a request, and must refuse a broken set while keeping the last good one.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <catch2/catch.hpp>

#include "support/sample_reviews.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace fs = std::filesystem;
namespace t = jobset_webhook::testing;
using namespace std::chrono_literals;

namespace {

using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::sample_review;

// A directory laid out as the kubelet lays out a Secret volume:
//   tls.crt -> ..data/tls.crt, ..data -> ..gen_N/, ..gen_N/tls.crt
class SecretVolume {
 public:
  explicit SecretVolume(const std::map<std::string, std::string>& files)
      : dir_(t::fresh_temp_dir("secret")) {
    publish(files);
  }

  // Writes the files into a new generation directory and swaps ..data to it in one rename.
  void publish(const std::map<std::string, std::string>& files) {
    const auto generation = "..gen_" + std::to_string(generation_++);
    fs::create_directory(dir_ / generation);
    for (const auto& [name, source] : files) fs::copy_file(source, dir_ / generation / name);
    fs::remove(dir_ / "..data_tmp");
    fs::create_directory_symlink(generation, dir_ / "..data_tmp");
    fs::rename(dir_ / "..data_tmp", dir_ / "..data");
    for (const auto& [name, source] : files) {
      if (!fs::is_symlink(dir_ / name)) fs::create_symlink(fs::path("..data") / name, dir_ / name);
    }
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
  int generation_ = 0;
};

// Clients that keep sending requests until stopped, on new connections and on one kept-alive
// connection, counting answers and failures.
class Load {
 public:
  Load(int port, t::TlsClientOptions options) {
    threads_.emplace_back([this, port, options] {
      while (!stop_) {
        const auto conn = t::TlsConnection::open(port, options);
        const auto res = conn ? conn->request(t::http_request("POST", kValidate, sample_review()))
                              : std::nullopt;
        (res && res->status == 200 ? answered_ : failed_)++;
      }
    });
    threads_.emplace_back([this, port, options] {
      auto conn = t::TlsConnection::open(port, options);
      if (!conn) ++failed_;
      while (!stop_ && conn) {
        const auto res = conn->request(t::http_request("POST", kValidate, sample_review()));
        (res && res->status == 200 ? answered_ : failed_)++;
        kept_alive_fingerprint_ = conn->peer_fingerprint();
      }
    });
  }
  ~Load() { stop(); }

  void stop() {
    stop_ = true;
    for (auto& th : threads_) {
      if (th.joinable()) th.join();
    }
  }
  // Waits (bounded) until n more requests were answered.
  void wait_for_answers(int n) {
    const int target = answered_ + n;
    for (int i = 0; i < 3000 && answered_ < target && failed_ == 0; ++i)
      std::this_thread::sleep_for(10ms);
  }
  int answered() const { return answered_; }
  int failed() const { return failed_; }
  // The certificate the kept-alive connection saw at its handshake; read after stop().
  const std::string& kept_alive_fingerprint() const { return kept_alive_fingerprint_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> answered_{0};
  std::atomic<int> failed_{0};
  std::string kept_alive_fingerprint_;
  std::vector<std::thread> threads_;
};

// Waits (bounded) until a new handshake shows the certificate of cert_file.
bool presents(int port, const std::string& cert_file) {
  const auto want = t::TlsConnection::file_fingerprint(cert_file);
  for (int i = 0; i < 500; ++i) {
    const auto conn = t::TlsConnection::open(port, t::TlsClientOptions());
    if (conn && conn->peer_fingerprint() == want) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

bool logged(const t::TestServer& server, const std::string& msg_prefix) {
  for (int i = 0; i < 500; ++i) {
    for (const auto& line : server.log().lines()) {
      if (line["msg"].get<std::string>().rfind(msg_prefix, 0) == 0) return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST_CASE("A rotated serving certificate is used by new handshakes, and no request fails",
          "[server][rotation][concurrency]") {
  const auto a = t::make_pki();
  const auto b = t::make_pki_from_ca(a);
  const auto c = t::make_pki_from_ca(a);
  SecretVolume secret({{"tls.crt", a.tls_crt()}, {"tls.key", a.tls_key()}});
  auto options = t::test_options(a);
  options.tls.cert_file = secret.path("tls.crt");
  options.tls.private_key_file = secret.path("tls.key");
  t::TestServer server(options);
  REQUIRE(presents(server.port(), a.tls_crt()));

  Load load(server.port(),
            t::TlsClientOptions().trust(a.ca_crt()).host("jobset-webhook.jobset-system.svc"));
  load.wait_for_answers(20);
  secret.publish({{"tls.crt", b.tls_crt()}, {"tls.key", b.tls_key()}});
  CHECK(presents(server.port(), b.tls_crt()));
  load.wait_for_answers(20);

  // A broken set (B's certificate with A's key) is refused; B stays in use.
  secret.publish({{"tls.crt", b.tls_crt()}, {"tls.key", a.tls_key()}});
  CHECK(logged(server, "refusing the changed TLS certificate files"));
  CHECK(presents(server.port(), b.tls_crt()));
  load.wait_for_answers(20);

  // The next good set is taken again.
  secret.publish({{"tls.crt", c.tls_crt()}, {"tls.key", c.tls_key()}});
  CHECK(presents(server.port(), c.tls_crt()));
  load.wait_for_answers(20);
  load.stop();

  CHECK(load.failed() == 0);
  CHECK(load.answered() >= 80);
  // The connection opened before the rotations kept its certificate and was never dropped.
  CHECK(load.kept_alive_fingerprint() == t::TlsConnection::file_fingerprint(a.tls_crt()));
  const auto refusals = server.log().with_msg(
      "refusing the changed TLS certificate files; the previous ones stay in use");
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0]["level"] == "error");
  CHECK(refusals[0]["error"] == secret.path("tls.crt") + " and " + secret.path("tls.key") +
                                    ": the private key does not match the certificate");
  CHECK(server.log().with_msg("reloaded TLS certificate").size() == 2);
}

TEST_CASE("A rotated client CA is used by new handshakes; a broken one is refused",
          "[server][rotation][mtls]") {
  const auto a = t::make_pki();
  const auto d = t::make_pki();
  SecretVolume secret({{"ca.crt", a.ca_crt()}});
  auto options = t::test_options(a);
  options.tls.client_ca_file = secret.path("ca.crt");
  t::TestServer server(options);
  const auto client_a =
      t::TlsClientOptions().trust(a.ca_crt()).client_certificate(a.client_crt(), a.client_key());
  const auto client_d =
      t::TlsClientOptions().trust(a.ca_crt()).client_certificate(d.client_crt(), d.client_key());
  const auto accepted = [&](const t::TlsClientOptions& o) {
    const auto conn = t::TlsConnection::open(server.port(), o);
    const auto res =
        conn ? conn->request(t::http_request("POST", kValidate, sample_review())) : std::nullopt;
    return res && res->status == 200;
  };
  const auto eventually = [&](auto condition) {
    for (int i = 0; i < 500; ++i) {
      if (condition()) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  };
  CHECK(accepted(client_a));
  CHECK_FALSE(accepted(client_d));

  secret.publish({{"ca.crt", d.ca_crt()}});
  CHECK(eventually([&] { return accepted(client_d) && !accepted(client_a); }));

  const auto garbage = t::fresh_temp_dir("garbage") / "ca.crt";
  std::ofstream(garbage) << "not a certificate\n";
  secret.publish({{"ca.crt", garbage.string()}});
  CHECK(logged(server, "refusing the changed client CA files"));
  CHECK(accepted(client_d));
  const auto refusals =
      server.log().with_msg("refusing the changed client CA files; the previous ones stay in use");
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0]["error"] == secret.path("ca.crt") + ": no PEM certificate found");
}

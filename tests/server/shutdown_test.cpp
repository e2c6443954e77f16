// Graceful shutdown: /readyz turns unready, no new connections, idle ones closed, every request
// the server began is answered. In process through AdmissionServer::shutdown, and once with the
// real binary and a real signal.

#include <signal.h>

#include <atomic>
#include <future>
#include <thread>

#include <catch2/catch.hpp>

#include "support/sample_reviews.h"
#include "support/serve_process.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace t = jobset_webhook::testing;
using jobset_webhook::Json;
using namespace std::chrono_literals;

namespace {

using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::sample_review;

// Clients sending requests as fast as they are answered: some on kept-alive connections (opening
// a new one when the server closes theirs), some on a new connection each time.
class Load {
 public:
  Load(int port, std::string ca_file) {
    for (int i = 0; i < 4; ++i) {
      threads_.emplace_back([this, port, ca_file, keep_alive = i % 2 == 0] {
        std::unique_ptr<t::TlsConnection> conn;
        while (!stop_) {
          if (!conn) conn = t::TlsConnection::open(port, t::TlsClientOptions().trust(ca_file));
          if (!conn) continue;  // refused: the listener is closed
          const auto res = conn->request(t::http_request("POST", kValidate, sample_review()));
          if (res && res->status == 200) ++answered_;
          if (!res || !keep_alive || res->header("connection") == "close") conn.reset();
        }
      });
    }
  }
  ~Load() { stop(); }
  void stop() {
    stop_ = true;
    for (auto& th : threads_) {
      if (th.joinable()) th.join();
    }
  }
  void wait_for_answers(int n) {
    for (int i = 0; i < 3000 && answered_ < n; ++i) std::this_thread::sleep_for(10ms);
  }
  int answered() const { return answered_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> answered_{0};
  std::vector<std::thread> threads_;
};

int status_of(int health_port, const std::string& path) {
  httplib::Client health("127.0.0.1", health_port);
  const auto res = health.Get(path.c_str());
  return res ? res->status : -1;
}

bool refuses_connections(int port) {
  for (int i = 0; i < 500; ++i) {
    const int fd = t::connect_tcp(port);
    if (fd < 0) return true;
    ::close(fd);
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST_CASE("Shutdown during load answers every request the server began",
          "[server][shutdown][concurrency]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  Load load(server.port(), pki.ca_crt());
  load.wait_for_answers(50);
  CHECK(server.server().shutdown(20s));
  load.stop();
  // Each request the server began has exactly one access-log line, written after its response;
  // each response a client received counts once. Equal counts: none was begun and then dropped.
  const auto lines = server.log().with_msg("request");
  CHECK(static_cast<int>(lines.size()) == load.answered());
  for (const auto& line : lines) CHECK(line["code"] == 200);
  CHECK(refuses_connections(server.port()));
  CHECK(server.log().with_msg("stopped").size() == 1);
}

TEST_CASE("A request still arriving when shutdown begins is answered, then its connection closes",
          "[server][shutdown][concurrency]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  std::string error;
  const auto conn =
      t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()), &error);
  REQUIRE(conn);
  const auto request = t::http_request("POST", kValidate, sample_review());
  const auto half = request.size() / 2;
  REQUIRE(conn->send(request.substr(0, half)));
  const int health_port = server.health_port();
  REQUIRE(status_of(health_port, "/readyz") == 200);

  auto drained = std::async(std::launch::async, [&] { return server.server().shutdown(20s); });
  CHECK(refuses_connections(server.port()));  // the listener is closed while the request is open

  REQUIRE(conn->send(request.substr(half)));
  const auto res = conn->read_response();
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->header("connection") == "close");
  CHECK(conn->closed_by_server());
  CHECK(drained.get());
}

TEST_CASE("/readyz answers 503 once shutdown begins", "[server][shutdown][health][concurrency]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  // A request whose body is never completed keeps the shutdown waiting (until the read timeout)
  // while /readyz is asked.
  const auto conn =
      t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
  REQUIRE(conn);
  REQUIRE(conn->send(
      "POST " + kValidate +
      " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"));
  const int health_port = server.health_port();
  auto drained = std::async(std::launch::async, [&] { return server.server().shutdown(20s); });
  int status = 0;
  for (int i = 0; i < 500 && (status = status_of(health_port, "/readyz")) == 200; ++i)
    std::this_thread::sleep_for(10ms);
  CHECK(status == 503);
  CHECK(status_of(health_port, "/healthz") == 200);
  REQUIRE(conn->send("\"kind\":1}"));
  const auto res = conn->read_response();
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(drained.get());
}

TEST_CASE("Idle keep-alive connections are closed at once when shutdown begins",
          "[server][shutdown][concurrency]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.idle_timeout = 10min;  // far beyond the grace period: shutdown must not wait for it
  t::TestServer server(options);
  std::vector<std::unique_ptr<t::TlsConnection>> idle;
  for (int i = 0; i < 10; ++i) {
    idle.push_back(
        t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt())));
    REQUIRE(idle.back());
    REQUIRE(idle.back()->request(t::http_request("POST", kValidate, sample_review())));
  }
  CHECK(server.server().shutdown(20s));
  for (auto& conn : idle) CHECK(conn->closed_by_server());
}

TEST_CASE("serve stops on SIGTERM or SIGINT during load, answering what it began, and exits 0",
          "[server][shutdown][cli]") {
  const auto pki = t::make_pki();
  for (const int signal : {SIGTERM, SIGINT}) {
    DYNAMIC_SECTION(strsignal(signal)) {
      t::ServeProcess serve(
          t::ServeProcess::serve_args({"--cert-dir", pki.dir.string(), "--shutdown-delay", "0s"}));
      const Json serving = serve.wait_serving();
      REQUIRE_FALSE(serving.is_null());
      const int port = serving["port"];
      CHECK(status_of(serving["healthPort"], "/readyz") == 200);
      {
        Load load(port, pki.ca_crt());
        load.wait_for_answers(30);
        serve.signal(signal);
        CHECK(serve.wait_exit() == 0);
        load.stop();
        int requests = 0;
        for (const auto& line : serve.log_lines()) requests += line["msg"] == "request" ? 1 : 0;
        CHECK(requests == load.answered());
      }
      const auto lines = serve.log_lines();
      std::vector<std::string> messages;
      for (const auto& line : lines) {
        if (line["msg"] != "request") messages.push_back(line["msg"]);
      }
      CHECK(messages == std::vector<std::string>{
                            "loaded TLS certificate", "serving", "received signal",
                            "shutdown: not ready; every response now closes its connection",
                            "shutdown: closing idle connections and the listener; finishing "
                            "requests in flight",
                            "stopped"});
    }
  }
}

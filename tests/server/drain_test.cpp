// The drain on SIGTERM, seen by clients that behave like Go's HTTP transport (the kube-apiserver's
// client for webhooks): each reuses its keep-alive connection until the server says
// `Connection: close` or closes it, notices a connection the server closed while it was idle, and
// dials again when it needs one. The API server does not retry a POST that got no answer, so not
// one request sent may go unanswered; a dial refused after the listener closed is what the API
// server sees once the endpoints have moved on, and is fine.

#include <poll.h>
#include <signal.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

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
using Clock = std::chrono::steady_clock;

constexpr int kClients = 32;

// Go's transport reads every idle connection in the background: a close (EOF or close_notify)
// from the server takes it out of the pool before a request could be sent on it.
bool closed_while_idle(const t::TlsConnection& conn) {
  pollfd fd{conn.fd(), POLLIN, 0};
  return ::poll(&fd, 1, 0) > 0;
}

class GoLikeClients {
 public:
  GoLikeClients(int port, const std::string& ca_file) {
    const auto request = t::http_request("POST", kValidate, sample_review());
    for (int i = 0; i < kClients; ++i) {
      threads_.emplace_back([this, port, ca_file, request] {
        std::unique_ptr<t::TlsConnection> conn;
        while (!stop_) {
          if (conn && closed_while_idle(*conn)) conn.reset();
          if (!conn) {
            conn = t::TlsConnection::open(port, t::TlsClientOptions().trust(ca_file));
            if (!conn) {
              ++dials_failed_;  // refused: the listener is closed
              std::this_thread::sleep_for(5ms);
              continue;
            }
            ++dials_;
          }
          ++sent_;
          const auto res = conn->send(request) ? conn->read_response() : std::nullopt;
          if (!res) {
            conn.reset();
            continue;
          }
          ++answered_;
          if (res->status != 200) ++not_ok_;
          if (res->header("connection") == "close") {
            ++told_to_close_;
            conn.reset();
          }
        }
      });
    }
  }
  ~GoLikeClients() { stop(); }
  void stop() {
    stop_ = true;
    for (auto& th : threads_) {
      if (th.joinable()) th.join();
    }
  }
  void wait_for_answers(int n) const {
    for (int i = 0; i < 3000 && answered_ < n; ++i) std::this_thread::sleep_for(10ms);
  }

  std::atomic<int> dials_{0};
  std::atomic<int> dials_failed_{0};
  std::atomic<int> sent_{0};
  std::atomic<int> answered_{0};
  std::atomic<int> not_ok_{0};
  std::atomic<int> told_to_close_{0};

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

int status_of(int health_port, const std::string& path) {
  httplib::Client health("127.0.0.1", health_port);
  const auto res = health.Get(path.c_str());
  return res ? res->status : -1;
}

// Asked right after the signal: /readyz must turn 503 well within the delay and stay so, while
// the clients go on being answered and dialling.
void check_drain_window(const GoLikeClients& clients, int health_port, Clock::time_point signalled,
                        std::chrono::milliseconds delay) {
  int status = 0;
  for (int i = 0; i < 100 && (status = status_of(health_port, "/readyz")) == 200; ++i)
    std::this_thread::sleep_for(5ms);
  CHECK(status == 503);
  CHECK(Clock::now() - signalled < delay / 2);
  const int answered = clients.answered_;
  const int dials = clients.dials_;
  std::this_thread::sleep_for(delay / 4);
  CHECK(status_of(health_port, "/readyz") == 503);
  INFO("answered " << answered << " -> " << clients.answered_ << ", dials " << dials << " -> "
                   << clients.dials_);
  CHECK(clients.answered_ > answered);  // still serving during the delay
  CHECK(clients.dials_ > dials);        // and accepting new connections
}

void check_no_request_lost(GoLikeClients& clients) {
  for (int i = 0; i < 500 && clients.dials_failed_ == 0; ++i) std::this_thread::sleep_for(10ms);
  clients.stop();
  INFO("sent " << clients.sent_ << ", answered " << clients.answered_ << ", told to close "
               << clients.told_to_close_ << ", dials " << clients.dials_ << ", refused "
               << clients.dials_failed_);
  CHECK(clients.sent_ == clients.answered_);
  CHECK(clients.not_ok_ == 0);
  CHECK(clients.told_to_close_ > 0);
  CHECK(clients.dials_failed_ > 0);  // the listener did close
}

}  // namespace

TEST_CASE("Drain: 32 keep-alive clients lose no request across the delay and the grace",
          "[server][shutdown][drain][concurrency]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  GoLikeClients clients(server.port(), pki.ca_crt());
  clients.wait_for_answers(100);
  const auto delay = 2000ms;
  const auto grace = 20s;
  const auto signalled = Clock::now();
  auto drained =
      std::async(std::launch::async, [&] { return server.server().shutdown(delay, grace); });
  check_drain_window(clients, server.health_port(), signalled, delay);
  CHECK(drained.get());
  const auto took = Clock::now() - signalled;
  CHECK(took >= delay);
  CHECK(took < delay + grace);
  check_no_request_lost(clients);

  // Every request the server began has one access-log line: none was begun and then dropped.
  CHECK(static_cast<int>(server.log().with_msg("request").size()) == clients.answered_);
  const auto phases = server.log().with_msg(
      "shutdown: closing idle connections and the listener; finishing requests in flight");
  REQUIRE(phases.size() == 1);
  CHECK(phases[0]["requestsAnswered"].get<int>() > 0);
  CHECK(phases[0]["connectionsClosed"].get<int>() > 0);
  const auto stopped = server.log().with_msg("stopped");
  REQUIRE(stopped.size() == 1);
  CHECK(stopped[0]["requestsAnswered"].get<int>() >= phases[0]["requestsAnswered"].get<int>());
}

TEST_CASE("Drain: an idle connection stays open through the delay, then is closed",
          "[server][shutdown][drain][concurrency]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.idle_timeout = 10min;
  t::TestServer server(options);
  auto idle = t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
  REQUIRE(idle);
  REQUIRE(idle->request(t::http_request("POST", kValidate, sample_review())));
  auto used = t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
  REQUIRE(used);
  REQUIRE(used->request(t::http_request("POST", kValidate, sample_review())));

  const auto signalled = Clock::now();
  auto drained = std::async(std::launch::async, [&] { return server.server().shutdown(1s, 20s); });
  std::this_thread::sleep_for(300ms);
  CHECK_FALSE(closed_while_idle(*idle));
  // A request during the delay is answered as before, with `Connection: close`.
  const auto res = used->request(t::http_request("POST", kValidate, sample_review()));
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->header("connection") == "close");
  CHECK(used->closed_by_server());
  // So is one on a new connection.
  auto late = t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
  REQUIRE(late);
  const auto late_res = late->request(t::http_request("POST", kValidate, sample_review()));
  REQUIRE(late_res);
  CHECK(late_res->header("connection") == "close");

  CHECK(idle->closed_by_server());
  CHECK(Clock::now() - signalled >= 1s);
  CHECK(drained.get());
  const auto stopped = server.log().with_msg("stopped");
  REQUIRE(stopped.size() == 1);
  CHECK(stopped[0]["idleConnectionsClosed"] == 1);
  CHECK(stopped[0]["requestsAnswered"] == 2);
}

TEST_CASE("Drain: a connection dialled just before the delay ends still gets its first request",
          "[server][shutdown][drain][concurrency]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  auto fresh = t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
  REQUIRE(fresh);
  auto drained = std::async(std::launch::async, [&] { return server.server().shutdown(0ms, 20s); });
  server.log().wait_for(
      "shutdown: closing idle connections and the listener; finishing requests "
      "in flight",
      1);
  std::this_thread::sleep_for(100ms);
  const auto res = fresh->request(t::http_request("POST", kValidate, sample_review()));
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->header("connection") == "close");
  CHECK(drained.get());
}

TEST_CASE("Drain: serve on SIGTERM under 32 keep-alive clients loses no request and exits 0",
          "[server][shutdown][drain][cli]") {
  const auto pki = t::make_pki();
  t::ServeProcess serve(t::ServeProcess::serve_args(
      {"--cert-dir", pki.dir.string(), "--shutdown-delay", "2s", "--shutdown-grace", "10s"}));
  const Json serving = serve.wait_serving();
  REQUIRE_FALSE(serving.is_null());
  const int health_port = serving["healthPort"];
  {
    GoLikeClients clients(serving["port"], pki.ca_crt());
    clients.wait_for_answers(100);
    const auto signalled = Clock::now();
    serve.signal(SIGTERM);
    check_drain_window(clients, health_port, signalled, 2000ms);
    CHECK(serve.wait_exit() == 0);
    const auto took = Clock::now() - signalled;
    CHECK(took >= 2s);
    CHECK(took < 12s);
    check_no_request_lost(clients);
    int requests = 0;
    for (const auto& line : serve.log_lines()) requests += line["msg"] == "request" ? 1 : 0;
    CHECK(requests == clients.answered_);
  }
  std::vector<std::string> phases;
  for (const auto& line : serve.log_lines()) {
    if (line["msg"] != "request") phases.push_back(line["msg"]);
  }
  CHECK(phases == std::vector<std::string>{
                      "loaded TLS certificate", "serving", "received signal",
                      "shutdown: not ready; every response now closes its connection",
                      "shutdown: closing idle connections and the listener; finishing requests "
                      "in flight",
                      "stopped"});
}

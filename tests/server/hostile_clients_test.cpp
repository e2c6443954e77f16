// Hostile clients against the real server: slow, silent and half-open connections, lying
// Content-Lengths, bodies at the limit, hostile JSON over HTTPS, and 1,000 idle keep-alive
// connections. The server answers each with a clear error or closes the connection, and a
// well-behaved client is answered correctly throughout. docs/reliability.md lists them with the
// observed results. No assertion is about a duration: every wait is bounded only so that a hang
// fails instead of blocking the suite.

#include <errno.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "server/tls_stream.h"
#include "support/sample_reviews.h"
#include "support/hostile_reviews.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace t = jobset_webhook::testing;
using jobset_webhook::Json;
using namespace std::chrono_literals;

namespace {

using jobset_webhook::testing::kValidate;

std::string denied_review() {
  return t::slurp(std::string(JOBSET_TESTDATA_DIR) + "/sample-review.json");
}
std::string scale_review() {
  return t::slurp(std::string(JOBSET_TESTDATA_DIR) + "/sample-scale-review.json");
}

std::unique_ptr<t::TlsConnection> connect(const t::TestServer& server, const t::Pki& pki) {
  std::string error;
  auto c = t::TlsConnection::open(
      server.port(), t::TlsClientOptions().trust(pki.ca_crt()).host("127.0.0.1"), &error);
  INFO(error);
  REQUIRE(c);
  return c;
}

// True when the server closes the connection on fd (EOF or reset), reading and dropping whatever
// it sends before (an HTTP error, a TLS alert). False when nothing happens within 20 s: far longer
// than the read timeouts set below, so only a server that never closes gets there.
bool server_closes(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

// Slowloris: sends request one byte per `every` until the server reacts (sends or closes).
struct Trickled {
  std::size_t sent = 0;
  bool closed = false;
};
Trickled trickle(t::TlsConnection& conn, const std::string& request,
                 std::chrono::milliseconds every) {
  Trickled r;
  for (const char c : request) {
    if (!conn.send(std::string_view(&c, 1))) break;  // the server is gone already
    ++r.sent;
    pollfd p{conn.fd(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(every.count())) != 0) break;
  }
  r.closed = server_closes(conn.fd());
  return r;
}

// The first bytes of a TLS 1.2 ClientHello (record header, handshake header, client version and
// part of the random) announcing 512 bytes, of which the rest never comes.
const std::string kPartialClientHello("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x5a\x5a\x5a",
                                      14);

// Raises the soft limit on open files to at least `want` (when the hard limit allows) and puts the
// old limit back when it goes out of scope.
class OpenFileLimit {
 public:
  explicit OpenFileLimit(rlim_t want) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit raised = saved_;
    if (raised.rlim_cur < want) raised.rlim_cur = std::min(want, raised.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &raised);
  }
  ~OpenFileLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  OpenFileLimit(const OpenFileLimit&) = delete;
  OpenFileLimit& operator=(const OpenFileLimit&) = delete;
  static rlim_t current() {
    rlimit now{};
    ::getrlimit(RLIMIT_NOFILE, &now);
    return now.rlim_cur;
  }

 private:
  rlimit saved_{};
};

}  // namespace

TEST_CASE(
    "Slow, silent and half-open clients are closed after the read timeout while a well-behaved "
    "client is answered",
    "[server][hostile][concurrency]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.read_timeout = 2s;
  t::TestServer server(options);
  const auto expected =
      connect(server, pki)->request(t::http_request("POST", kValidate, denied_review()));
  REQUIRE(expected);
  REQUIRE(expected->status == 200);

  constexpr int kSlow = 10, kSilent = 20, kHalfOpen = 20;
  const std::string request = t::http_request("POST", kValidate, denied_review());
  std::vector<Trickled> slow(kSlow);
  std::vector<char> silent_closed(kSilent, 0), half_open_closed(kHalfOpen, 0);
  std::atomic<int> connected{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kSlow; ++i) {
    clients.emplace_back([&, i] {
      auto conn = t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
      ++connected;
      if (conn) slow[i] = trickle(*conn, request, 1s);  // a byte per second
    });
  }
  for (int i = 0; i < kSilent; ++i) {
    clients.emplace_back([&, i] {
      const int fd = t::connect_tcp(server.port());
      ++connected;
      if (fd < 0) return;
      silent_closed[i] = server_closes(fd);
      ::close(fd);
    });
  }
  for (int i = 0; i < kHalfOpen; ++i) {
    clients.emplace_back([&, i] {
      const int fd = t::connect_tcp(server.port());
      ++connected;
      if (fd < 0) return;
      ::send(fd, kPartialClientHello.data(), kPartialClientHello.size(), MSG_NOSIGNAL);
      half_open_closed[i] = server_closes(fd);
      ::close(fd);
    });
  }
  for (int i = 0; i < 3000 && connected < kSlow + kSilent + kHalfOpen; ++i)
    std::this_thread::sleep_for(1ms);

  // Meanwhile: new connections and one kept alive, all answered with the same bytes.
  const auto kept = connect(server, pki);
  for (int i = 0; i < 10; ++i) {
    const auto fresh = connect(server, pki)->request(request);
    REQUIRE(fresh);
    CHECK(fresh->status == 200);
    CHECK(fresh->body == expected->body);
    const auto again = kept->request(request);
    REQUIRE(again);
    CHECK(again->body == expected->body);
  }
  for (auto& c : clients) c.join();

  for (int i = 0; i < kSlow; ++i) {
    INFO("slow client " << i << " sent " << slow[i].sent << " of " << request.size() << " bytes");
    CHECK(slow[i].closed);
    CHECK(slow[i].sent < request.size());
  }
  CHECK(std::count(silent_closed.begin(), silent_closed.end(), 1) == kSilent);
  CHECK(std::count(half_open_closed.begin(), half_open_closed.end(), 1) == kHalfOpen);
  // The silent and half-open ones never finished a handshake; the log says so, at debug level.
  int timed_out = 0;
  for (const auto& line : server.log().with_msg("TLS handshake failed"))
    timed_out += line["error"] == jobset_webhook::server::TlsStream::kHandshakeTimedOut ? 1 : 0;
  CHECK(timed_out == kSilent + kHalfOpen);
}

TEST_CASE("A Content-Length that lies is answered by the bytes that arrive", "[server][hostile]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.read_timeout = 1s;
  t::TestServer server(options);
  const std::string body = denied_review();
  const std::string head = "POST " + kValidate +
                           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           "Content-Length: ";
  SECTION("longer than the body sent, then the client waits: 400 after the read timeout") {
    const auto conn = connect(server, pki);
    const auto res = conn->request(head + std::to_string(body.size() + 100) + "\r\n\r\n" + body);
    REQUIRE(res);
    CHECK(res->status == 400);
    CHECK(res->body ==
          R"({"code":400,"message":"the request body ended early or arrived too slowly"})");
    CHECK(res->header("connection") == "close");
    CHECK(server_closes(conn->fd()));
  }
  SECTION("shorter than the body sent: the review is answered, the rest is a bad request") {
    const auto expected = connect(server, pki)->request(t::http_request("POST", kValidate, body));
    REQUIRE(expected);
    const auto conn = connect(server, pki);
    REQUIRE(conn->send(head + std::to_string(body.size()) + "\r\n\r\n" + body +
                       "trailing bytes the Content-Length left out\r\n\r\n"));
    const auto first = conn->read_response();
    REQUIRE(first);
    CHECK(first->status == 200);
    CHECK(first->body == expected->body);
    const auto second = conn->read_response();
    REQUIRE(second);
    CHECK(second->status == 400);
    CHECK(second->header("connection") == "close");
    CHECK(server_closes(conn->fd()));
  }
}

TEST_CASE("A body of exactly the limit is judged; one byte more is refused with 413",
          "[server][hostile]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  // Head and body fit in one TLS record, so the server reads the whole request even when it
  // refuses it: no unread bytes, no reset that could overtake the answer.
  options.max_request_bytes = 8192;
  t::TestServer server(options);
  std::string at_limit = scale_review();
  REQUIRE(at_limit.size() < 8192);
  at_limit.append(8192 - at_limit.size(), ' ');  // JSON may end in whitespace
  const std::string over = at_limit + " ";
  const std::string chunked_head = "POST " + kValidate +
                                   " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                   "Transfer-Encoding: chunked\r\n\r\n";
  // The body in chunks of 1000 bytes (hex 3e8) and the rest.
  const auto chunked = [&](const std::string& body) {
    std::string out = chunked_head;
    for (std::size_t at = 0; at < body.size(); at += 1000) {
      const auto piece = body.substr(at, 1000);
      char size[16];
      std::snprintf(size, sizeof size, "%zx", piece.size());
      out += std::string(size) + "\r\n" + piece + "\r\n";
    }
    return out + "0\r\n\r\n";
  };
  for (const bool use_chunks : {false, true}) {
    DYNAMIC_SECTION((use_chunks ? "chunked" : "with Content-Length")) {
      const auto conn = connect(server, pki);
      auto res = conn->request(use_chunks ? chunked(at_limit)
                                          : t::http_request("POST", kValidate, at_limit));
      REQUIRE(res);
      CHECK(res->status == 200);
      CHECK(Json::parse(res->body)["response"]["allowed"] == true);
      res = conn->request(use_chunks ? chunked(over) : t::http_request("POST", kValidate, over));
      REQUIRE(res);
      CHECK(res->status == 413);
      CHECK(
          res->body ==
          (use_chunks
               ? R"({"code":413,"message":"request body is larger than the limit of 8192 bytes"})"
               : R"({"code":413,"message":"request body of 8193 bytes is larger than the limit of 8192 bytes"})"));
      CHECK(res->header("connection") == "close");
      CHECK(server_closes(conn->fd()));
    }
  }
}

TEST_CASE("Hostile JSON over HTTPS gets a clear answer and the server stays responsive",
          "[server][hostile]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));  // the production limit of 7 MiB
  for (const auto& c : t::hostile_reviews()) {
    DYNAMIC_SECTION(c.name) {
      INFO("body of " << c.body.size() << " bytes");
      const auto res = connect(server, pki)->request(t::http_request("POST", kValidate, c.body));
      REQUIRE(res);
      CHECK(res->status == c.http_status);
      CHECK(res->header("content-type") == "application/json");
      if (c.http_status != 200) {
        CHECK(res->body == c.failure_body);
      } else {
        const Json response = Json::parse(res->body)["response"];  // valid UTF-8 JSON, too
        CHECK(response["uid"] == "u-1");
        CHECK(response["allowed"] == c.allowed);
        if (!c.message_part.empty()) {
          const std::string message = response["status"]["message"];
          CHECK_THAT(message, Catch::Contains(c.message_part));
        }
      }
      const auto after =
          connect(server, pki)->request(t::http_request("POST", kValidate, scale_review()));
      REQUIRE(after);
      CHECK(after->status == 200);
    }
  }
}

TEST_CASE("1,000 idle keep-alive connections: every request is answered, the p99 is printed",
          "[server][hostile][concurrency]") {
  constexpr int kIdle = 1000;
  // Each connection is a descriptor here and one in the server (the same process).
  const OpenFileLimit limit(2 * kIdle + 256);
  REQUIRE(OpenFileLimit::current() >= 2 * kIdle + 256);
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  // Past the default of 512 (sized for the Deployment's memory), every one a thread of its own.
  options.max_connections = 2 * kIdle;
  t::TestServer server(options);
  const std::string request = t::http_request("POST", kValidate, scale_review());
  const auto expected = connect(server, pki)->request(request);
  REQUIRE(expected);
  REQUIRE(expected->status == 200);

  std::vector<std::unique_ptr<t::TlsConnection>> idle;
  for (int i = 0; i < kIdle; ++i) {
    idle.push_back(
        t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt())));
    REQUIRE(idle.back());
    const auto res = idle.back()->request(request);
    REQUIRE(res);
    REQUIRE(res->body == expected->body);
  }
  // Every idle connection holds a server thread in its keep-alive wait. A well-behaved client:
  const auto conn = connect(server, pki);
  std::vector<double> millis;
  for (int i = 0; i < 500; ++i) {
    const auto began = std::chrono::steady_clock::now();
    const auto res = conn->request(request);
    millis.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began)
            .count());
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->body == expected->body);
  }
  std::sort(millis.begin(), millis.end());
  // A figure for docs/reliability.md, not an assertion: durations depend on the machine.
  std::fprintf(stderr,
               "1,000 idle keep-alive connections: a well-behaved client's 500 requests took "
               "p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
               millis[millis.size() / 2], millis[millis.size() * 99 / 100], millis.back());
  std::fflush(stdout);
  // The idle ones were kept, and answer too.
  for (auto& c : idle) {
    const auto res = c->request(request);
    REQUIRE(res);
    CHECK(res->body == expected->body);
  }
}

#include <catch2/catch.hpp>

#include "support/sample_reviews.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace t = jobset_webhook::testing;

namespace {
using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::sample_review;
}  // namespace

TEST_CASE("100 idle keep-alive connections do not keep a new request waiting",
          "[server][connections][concurrency]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  std::vector<std::unique_ptr<t::TlsConnection>> idle;
  for (int i = 0; i < 100; ++i) {
    idle.push_back(
        t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt())));
    REQUIRE(idle.back());
    const auto res = idle.back()->request(t::http_request("POST", kValidate, sample_review()));
    REQUIRE(res);
    REQUIRE(res->status == 200);
  }
  // Every connection now holds a server thread in its keep-alive wait. A new one is answered
  // (the client's 30 s timeout only guards against a hang).
  const auto fresh =
      t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
  REQUIRE(fresh);
  const auto res = fresh->request(t::http_request("POST", kValidate, sample_review()));
  REQUIRE(res);
  CHECK(res->status == 200);
  // And the idle ones were kept, not dropped to make room.
  for (auto& conn : idle) {
    const auto again = conn->request(t::http_request("POST", kValidate, sample_review()));
    REQUIRE(again);
    CHECK(again->status == 200);
  }
}

TEST_CASE("At the connection limit an idle connection is closed to make room for a new one",
          "[server][connections][concurrency]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.max_connections = 4;
  t::TestServer server(options);
  const std::string request = t::http_request("POST", kValidate, sample_review());
  std::vector<std::unique_ptr<t::TlsConnection>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(
        t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt())));
    REQUIRE(idle.back());
    const auto res = idle.back()->request(request);
    REQUIRE(res);
    REQUIRE(res->status == 200);
  }
  // Every thread is held by an idle connection: without room made, the new request would wait
  // for the 120 s idle timeout (the client's 30 s timeout fails the test first).
  const auto fresh =
      t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
  REQUIRE(fresh);
  const auto res = fresh->request(request);
  REQUIRE(res);
  CHECK(res->status == 200);
  // Exactly one idle connection was closed, with close_notify; the others still answer.
  int closed = 0;
  for (auto& conn : idle) {
    const auto again = conn->request(request);
    if (!again) {
      ++closed;
      continue;
    }
    CHECK(again->status == 200);
  }
  CHECK(closed == 1);
}

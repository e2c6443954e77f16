// The HTTP layer of serve: protocol errors, keep-alive, request timeouts, the access log, the
// health endpoints. Real HTTPS on 127.0.0.1, with a TLS client that never reconnects silently.

#include <thread>

#include <catch2/catch.hpp>

#include "support/sample_reviews.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace t = jobset_webhook::testing;
using jobset_webhook::Json;
using namespace std::chrono_literals;

namespace {

using jobset_webhook::testing::kMutate;
using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::sample_review;

std::unique_ptr<t::TlsConnection> connect(const t::TestServer& server, const t::Pki& pki) {
  std::string error;
  auto c = t::TlsConnection::open(
      server.port(), t::TlsClientOptions().trust(pki.ca_crt()).host("127.0.0.1"), &error);
  INFO(error);
  REQUIRE(c);
  return c;
}

}  // namespace

TEST_CASE("Protocol errors are HTTP errors with a short JSON body saying what is wrong",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.max_request_bytes = 4096;
  t::TestServer server(options);
  struct Case {
    std::string name;
    std::string request;
    int status;
    std::string body;
  };
  const std::vector<Case> cases = {
      {"other path", t::http_request("POST", "/validate", sample_review().substr(0, 100)), 404,
       R"({"code":404,"message":"no webhook at /validate; the webhooks are /validate-jobset-x-k8s-io-v1alpha2-jobset, /mutate-jobset-x-k8s-io-v1alpha2-jobset and /validate-elastic-jobset-webhook-io-v1alpha1-replicatedjobscaler"})"},
      {"GET", t::http_request("GET", kValidate, ""), 405,
       R"({"code":405,"message":"method GET is not allowed; use POST"})"},
      {"PUT", t::http_request("PUT", kMutate, "{}"), 405,
       R"({"code":405,"message":"method PUT is not allowed; use POST"})"},
      {"text/plain", t::http_request("POST", kValidate, "{}", "Content-Type: text/plain\r\n"), 415,
       R"({"code":415,"message":"Content-Type must be application/json, got \"text/plain\""})"},
      {"no content type", t::http_request("POST", kValidate, "{}", ""), 415,
       R"({"code":415,"message":"Content-Type must be application/json, got none"})"},
      {"gzip",
       t::http_request("POST", kValidate, "{}",
                       "Content-Type: application/json\r\nContent-Encoding: gzip\r\n"),
       415,
       R"({"code":415,"message":"Content-Encoding \"gzip\" is not supported; send the body uncompressed"})"},
      {"too large", t::http_request("POST", kValidate, std::string(4097, ' ')), 413,
       R"({"code":413,"message":"request body of 4097 bytes is larger than the limit of 4096 bytes"})"},
      {"not JSON", t::http_request("POST", kValidate, "{not json"), 400,
       R"({"code":400,"message":"request body is not valid JSON: The JSON document has an improper structure: missing or superfluous commas, braces, missing keys, etc."})"},
      {"empty body", t::http_request("POST", kValidate, ""), 400,
       R"({"code":400,"message":"request body is not valid JSON: Empty: no JSON found"})"},
      {"bad timeout", t::http_request("POST", kValidate + "?timeout=soon", "{}"), 400,
       R"({"code":400,"message":"timeout query parameter must be a positive duration such as 10s, got \"soon\""})"},
      {"bad length",
       "POST " + kValidate +
           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
           "12abc\r\n\r\n",
       400, R"({"code":400,"message":"Content-Length \"12abc\" is not a number of bytes"})"},
      {"conflicting lengths",
       "POST " + kValidate +
           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
           "content-length: 3\r\n\r\n{}",
       400, R"({"code":400,"message":"conflicting Content-Length headers"})"},
      {"length and chunked",
       "POST " + kValidate +
           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
           "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
       400,
       R"({"code":400,"message":"a request may not have both Content-Length and Transfer-Encoding"})"},
      {"other transfer coding",
       "POST " + kValidate +
           " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTRANSFER-ENCODING: "
           "gzip\r\n\r\n",
       400, R"({"code":400,"message":"Transfer-Encoding \"gzip\" is not supported"})"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto res = connect(server, pki)->request(c.request);
      REQUIRE(res);
      CHECK(res->status == c.status);
      CHECK(res->header("content-type") == "application/json");
      CHECK(res->body == c.body);
      if (c.status == 405) CHECK(res->header("allow") == "POST");
    }
  }
}

TEST_CASE("Header names and media types are matched whatever their case", "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const std::string body = sample_review();
  const auto res =
      connect(server, pki)
          ->request("POST " + kValidate +
                    " HTTP/1.1\r\nhost: x\r\ncontent-type: Application/JSON; charset=utf-8\r\n"
                    "CONTENT-LENGTH: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body);
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(Json::parse(res->body)["response"]["allowed"].is_boolean());
}

TEST_CASE("A body over the limit is refused from its Content-Length, before it is sent",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.max_request_bytes = 4096;
  t::TestServer server(options);
  const auto conn = connect(server, pki);
  // Only the head: the answer must not wait for a body the server has no use for.
  const auto res = conn->request("POST " + kValidate +
                                 " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                 "Content-Length: 1073741824\r\n\r\n");
  REQUIRE(res);
  CHECK(res->status == 413);
  CHECK(res->header("connection") == "close");
  CHECK(conn->closed_by_server());
}

TEST_CASE("A chunked body is limited as it arrives", "[server][protocol]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.max_request_bytes = 4096;
  t::TestServer server(options);
  const std::string head = "POST " + kValidate +
                           " HTTP/1.1\r\nHost: x\r\nContent-Type: "
                           "application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  SECTION("within the limit it is answered as any body") {
    const auto body = R"({"kind":"Pod","apiVersion":"v1"})";
    const auto res = connect(server, pki)
                         ->request(head + "10\r\n" + std::string(body).substr(0, 16) + "\r\n" +
                                   "11\r\n" + std::string(body).substr(16) + "\r\n0\r\n\r\n");
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->body.find(R"("allowed":false)") != std::string::npos);
  }
  SECTION("past the limit it is refused with 413 and the connection closes") {
    const auto conn = connect(server, pki);
    const std::string chunk(4000, ' ');
    const auto res =
        conn->request(head + "fa0\r\n" + chunk + "\r\nfa0\r\n" + chunk + "\r\n0\r\n\r\n");
    REQUIRE(res);
    CHECK(res->status == 413);
    CHECK(res->body ==
          R"({"code":413,"message":"request body is larger than the limit of 4096 bytes"})");
    CHECK(conn->closed_by_server());
  }
}

TEST_CASE("One connection carries any number of requests", "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto conn = connect(server, pki);
  for (int i = 0; i < 50; ++i) {
    const auto res =
        conn->request(t::http_request("POST", i % 2 ? kValidate : kMutate, sample_review()));
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->header("connection").empty());
    CHECK(res->header("keep-alive").empty());
  }
  // Every request came on the same connection: the access log shows one client port.
  std::set<std::string> remotes;
  for (const auto& line : server.log().wait_for("request", 50))
    remotes.insert(line["remote"].get<std::string>());
  CHECK(remotes.size() == 1);
}

TEST_CASE("A response's head and body leave together, in one TLS record", "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto conn = connect(server, pki);
  // Counts the records carrying application data that the client receives (TLS 1.3 and no
  // session tickets: after the handshake the server sends nothing else).
  int records = 0;
  SSL_set_msg_callback(conn->ssl(), [](int write_p, int, int content_type, const void* buf,
                                       size_t len, SSL*, void* arg) {
    if (write_p == 0 && content_type == SSL3_RT_HEADER && len > 0 &&
        static_cast<const unsigned char*>(buf)[0] == SSL3_RT_APPLICATION_DATA)
      ++*static_cast<int*>(arg);
  });
  SSL_set_msg_callback_arg(conn->ssl(), &records);
  for (const auto& [request, status] :
       {std::pair{t::http_request("POST", kValidate, sample_review()), 200},
        std::pair{t::http_request("GET", kValidate, ""), 405}}) {
    records = 0;
    const auto res = conn->request(request);
    REQUIRE(res);
    CHECK(res->status == status);
    CHECK_FALSE(res->body.empty());
    CHECK(records == 1);
  }
}

TEST_CASE("A refusal that leaves a body unread closes the connection; one that does not keeps it",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto conn = connect(server, pki);
  auto res = conn->request(t::http_request("GET", kValidate, ""));
  REQUIRE(res);
  CHECK(res->status == 405);
  CHECK(res->header("connection").empty());
  res = conn->request(t::http_request("POST", kValidate, "{}", "Content-Type: text/plain\r\n"));
  REQUIRE(res);
  CHECK(res->status == 415);
  CHECK(res->header("connection") == "close");
  CHECK(conn->closed_by_server());
}

TEST_CASE("A request httplib cannot parse gets 400 and its connection closes",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto conn = connect(server, pki);
  const auto res = conn->request("NOT A REQUEST LINE\r\n\r\n");
  REQUIRE(res);
  CHECK(res->status == 400);
  CHECK(res->header("connection") == "close");
  CHECK(conn->closed_by_server());
}

TEST_CASE("Expect: 100-continue gets 100 before a good body and the refusal instead of it",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.max_request_bytes = 4096;
  t::TestServer server(options);
  SECTION("accepted") {
    const auto conn = connect(server, pki);
    const auto body = sample_review();
    REQUIRE(conn->send("POST " + kValidate +
                       " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       "Expect: 100-continue\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n"));
    const auto interim = conn->read_response();
    REQUIRE(interim);
    CHECK(interim->status == 100);
    REQUIRE(conn->send(body));
    const auto res = conn->read_response();
    REQUIRE(res);
    CHECK(res->status == 200);
  }
  SECTION("too large") {
    const auto conn = connect(server, pki);
    const auto res = conn->request("POST " + kValidate +
                                   " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                   "Expect: 100-continue\r\nContent-Length: 5000\r\n\r\n");
    REQUIRE(res);
    CHECK(res->status == 413);
    CHECK(conn->closed_by_server());
  }
}

TEST_CASE("A request is not judged once its ?timeout= has passed", "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  // 1ns has always passed by the time the body is read: reading stops, and with the rest of the
  // body unread the connection closes.
  const auto conn = connect(server, pki);
  auto res = conn->request(t::http_request("POST", kValidate + "?timeout=1ns", sample_review()));
  REQUIRE(res);
  CHECK(res->status == 504);
  CHECK(
      res->body ==
      R"({"code":504,"message":"the request's timeout of 1ns passed before it could be answered"})");
  CHECK(res->header("connection") == "close");
  const auto fresh = connect(server, pki);
  res = fresh->request(t::http_request("POST", kValidate + "?timeout=10s", sample_review()));
  REQUIRE(res);
  CHECK(res->status == 200);
  // The largest duration Go writes is a valid timeout too.
  res = fresh->request(
      t::http_request("POST", kValidate + "?timeout=2562047h47m16.854775807s", sample_review()));
  REQUIRE(res);
  CHECK(res->status == 200);
  const auto lines = server.log().wait_for("request", 3);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["code"] == 504);
  CHECK_FALSE(lines[0].contains("uid"));  // never judged
  CHECK(lines[1]["code"] == 200);
}

TEST_CASE("A client that stalls mid-request is cut off after the read timeout",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.read_timeout = 300ms;
  t::TestServer server(options);
  SECTION("during the body") {
    const auto conn = connect(server, pki);
    REQUIRE(conn->send("POST " + kValidate +
                       " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       "Content-Length: 100\r\n\r\n{\"kind\":"));
    const auto res = conn->read_response();
    REQUIRE(res);
    CHECK(res->status == 400);
    CHECK(res->body ==
          R"({"code":400,"message":"the request body ended early or arrived too slowly"})");
    CHECK(conn->closed_by_server());
  }
  SECTION("during the handshake") {
    const int fd = t::connect_tcp(server.port());
    REQUIRE(fd >= 0);
    char byte;
    CHECK(::recv(fd, &byte, 1, 0) <= 0);  // closed by the server, well before the client's 30 s
    ::close(fd);
  }
}

TEST_CASE("An idle keep-alive connection is closed after the idle timeout", "[server][protocol]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.idle_timeout = 200ms;
  t::TestServer server(options);
  const auto conn = connect(server, pki);
  REQUIRE(conn->request(t::http_request("POST", kValidate, sample_review())));
  CHECK(conn->closed_by_server());
}

TEST_CASE("Each request gets one access-log line with the review's identity and decision",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto conn = connect(server, pki);
  REQUIRE(conn->request(t::http_request("POST", kValidate, sample_review())));
  REQUIRE(conn->request(t::http_request("GET", kMutate, "")));
  const auto lines = server.log().wait_for("request", 2);
  REQUIRE(lines.size() == 2);
  const auto& first = lines[0];
  CHECK(first["level"] == "info");
  CHECK(first["method"] == "POST");
  CHECK(first["path"] == kValidate);
  CHECK(first["code"] == 200);
  CHECK(first["uid"] == "3c1e6a35-7e0a-4b42-9d4e-0c7b1b1f0a01");
  CHECK(first["operation"] == "UPDATE");
  CHECK(first["namespace"] == "default");
  CHECK(first["name"] == "training");
  CHECK(first["dryRun"] == false);
  CHECK(first["allowed"] == false);
  CHECK(first["latencyUs"].get<std::int64_t>() >= 0);
  CHECK(first["remote"].get<std::string>().rfind("127.0.0.1:", 0) == 0);
  CHECK(lines[1]["code"] == 405);
  CHECK(lines[1]["error"] == "method GET is not allowed; use POST");
}

TEST_CASE("The health endpoints answer on their own plain-HTTP port", "[server][health]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  httplib::Client health("127.0.0.1", server.health_port());
  const auto healthz = health.Get("/healthz");
  REQUIRE(healthz);
  CHECK(healthz->status == 200);
  CHECK(healthz->body == "ok\n");
  const auto readyz = health.Get("/readyz");
  REQUIRE(readyz);
  CHECK(readyz->status == 200);
}

TEST_CASE("A port already in use is an error naming it, not a silently shared port",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer first(t::test_options(pki));
  auto options = t::test_options(pki);
  options.port = first.port();
  t::CapturedLog log;
  const auto second = jobset_webhook::server::AdmissionServer::start(options, log.log());
  REQUIRE_FALSE(second.ok());
  CHECK(second.failure().code == jobset_webhook::StatusCode::kUnavailable);
  CHECK(second.failure().message ==
        "cannot listen on 127.0.0.1:" + std::to_string(first.port()) + ": Address already in use");
}

TEST_CASE("Unusable TLS files stop the server from starting, naming the file",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  const auto other = t::make_pki();
  t::CapturedLog log;
  auto options = t::test_options(pki);
  options.tls.private_key_file = other.tls_key();
  auto started = jobset_webhook::server::AdmissionServer::start(options, log.log());
  REQUIRE_FALSE(started.ok());
  CHECK(started.failure().code == jobset_webhook::StatusCode::kInvalidArgument);
  CHECK(started.failure().message == pki.tls_crt() + " and " + other.tls_key() +
                                         ": the private key does not match the certificate");
  options = t::test_options(pki);
  options.tls.cert_file = "/nonexistent/tls.crt";
  started = jobset_webhook::server::AdmissionServer::start(options, log.log());
  REQUIRE_FALSE(started.ok());
  CHECK(started.failure().message == "cannot read /nonexistent/tls.crt: No such file or directory");
}

TEST_CASE("A request head over 16 KiB or 128 lines gets 400 and its connection closes",
          "[server][protocol]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto with_fields = [](int count, std::size_t value_bytes) {
    std::string fields = "Content-Type: application/json\r\n";
    for (int i = 0; i < count; ++i) {
      fields += "X-Field-" + std::to_string(i) + ": " + std::string(value_bytes, 'v') + "\r\n";
    }
    return t::http_request("POST", kValidate, sample_review(), fields);
  };
  struct Case {
    std::string name;
    std::string request;
    int status;
  };
  const std::vector<Case> cases = {
      {"120 lines of 12 KiB in all: answered", with_fields(110, 100), 200},
      {"20 fields of 1,000 bytes, 20 KB in all", with_fields(20, 1000), 400},
      {"200 short fields", with_fields(200, 1), 400},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto conn = connect(server, pki);
      const auto res = conn->request(c.request);
      REQUIRE(res);
      CHECK(res->status == c.status);
      if (c.status == 400) {
        CHECK(res->header("connection") == "close");
        CHECK(conn->closed_by_server());
      }
    }
  }
}

TEST_CASE("A body the memory budget cannot hold is 413 at once; one that finds no room in time 504",
          "[server][protocol][memory_budget]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  // Large bodies (over 64 KiB) may use 7/8 of it: 70 KiB.
  options.max_inflight_bytes = 80 * 1024;
  t::TestServer server(options);
  const auto padded = [](std::size_t bytes) {
    const std::string review = sample_review();
    return review + std::string(bytes - review.size(), ' ');
  };
  const auto& metrics = server.server().metrics();

  // From the head, before the body is sent (as a Content-Length over --max-request-bytes).
  const std::string too_large = t::http_request("POST", kValidate, padded(70 * 1024 + 1));
  const auto refused =
      connect(server, pki)->request(too_large.substr(0, too_large.find("\r\n\r\n") + 4));
  REQUIRE(refused);
  CHECK(refused->status == 413);
  CHECK(refused->body ==
        R"({"code":413,"message":"request body of 71681 bytes is larger than the server's memory )"
        R"json(budget allows for one body (71680 bytes; see --max-inflight-bytes)"})json");
  CHECK(refused->header("connection") == "close");

  // A body that takes the whole share of large bodies, half sent: the next one waits for room
  // until its ?timeout= and gets 504; the first is answered once the rest of it comes.
  const std::string holder_request = t::http_request("POST", kValidate, padded(70 * 1024));
  const auto holder = connect(server, pki);
  REQUIRE(holder->send(holder_request.substr(0, holder_request.size() / 2)));
  for (int i = 0;
       i < 1000 &&
       metrics.scrape().find("jobset_webhook_request_bytes_in_flight 71680") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(5ms);
  }
  const auto waiter =
      connect(server, pki)
          ->request(t::http_request("POST", kValidate + "?timeout=500ms", padded(65 * 1024)));
  REQUIRE(waiter);
  CHECK(waiter->status == 504);
  CHECK(
      waiter->body ==
      R"({"code":504,"message":"the request's timeout of 500ms passed before it could be answered"})");
  // A small review is never kept waiting by large bodies: the last eighth is kept for it.
  const auto small =
      connect(server, pki)->request(t::http_request("POST", kValidate, sample_review()));
  REQUIRE(small);
  CHECK(small->status == 200);
  REQUIRE(holder->send(holder_request.substr(holder_request.size() / 2)));
  const auto held = holder->read_response();
  REQUIRE(held);
  CHECK(held->status == 200);

  const std::string text = metrics.scrape();
  CHECK(text.find("jobset_webhook_request_memory_waits_total 1\n") != std::string::npos);
  CHECK(text.find(
            "jobset_webhook_request_memory_refusals_total{reason=\"larger_than_budget\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("jobset_webhook_request_memory_refusals_total{reason=\"deadline\"} 1\n") !=
        std::string::npos);
}

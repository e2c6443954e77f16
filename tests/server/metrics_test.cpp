// GET /metrics of the real server: a known mix of requests over real HTTPS, then a scrape parsed
// by a strict exposition parser and checked series by series, exactly. Also: internal failures
// answered 500 and counted, certificate reloads, the metrics port off, and counts under
// concurrent load while scraping.

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <thread>

#include "jobset_webhook/admission/review.h"
#include "support/sample_reviews.h"
#include "support/prometheus.h"
#include "support/test_server.h"
#include "support/tls_client.h"

namespace fs = std::filesystem;
namespace t = jobset_webhook::testing;
using jobset_webhook::Json;
using t::PromLabels;
using namespace std::chrono_literals;

namespace {

using jobset_webhook::testing::kMutate;
using jobset_webhook::testing::kValidate;
using jobset_webhook::testing::kValidateScaler;
const std::string kImagePath =
    "spec.replicatedJobs[*].template.spec.template.spec.containers[*].image";

std::string data(const std::string& name) {
  return t::slurp(std::string(JOBSET_TESTDATA_DIR) + "/" + name);
}
std::string denied() { return data("sample-review.json"); }
std::string allowed() { return data("sample-scale-review.json"); }
std::string dry_run_allowed() {
  auto review = Json::parse(allowed());
  review["request"]["dryRun"] = true;
  return review.dump();
}

struct Scrape {
  int status = 0;
  std::string content_type;
  t::PromExposition parsed;
};

Scrape scrape(int port) {
  httplib::Client client("127.0.0.1", port);
  const auto res = client.Get("/metrics");
  REQUIRE(res);
  Scrape s;
  s.status = res->status;
  s.content_type = res->get_header_value("Content-Type");
  s.parsed = t::parse_prometheus(res->body);
  INFO(res->body);
  REQUIRE(s.parsed.error == "");
  return s;
}

std::unique_ptr<t::TlsConnection> connect(const t::TestServer& server, const t::Pki& pki) {
  std::string error;
  auto c = t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()), &error);
  INFO(error);
  REQUIRE(c);
  return c;
}

int post(const t::TestServer& server, const t::Pki& pki, const std::string& path,
         const std::string& body) {
  const auto res = connect(server, pki)->request(t::http_request("POST", path, body));
  REQUIRE(res);
  return res->status;
}

// A file's notAfter in seconds since the epoch, as openssl and date read it.
double not_after_of(const std::string& cert_file) {
  const std::string cmd =
      "date -u -d \"$(openssl x509 -noout -enddate -in '" + cert_file + "' | cut -d= -f2)\" +%s";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char line[64] = {};
  const bool read = std::fgets(line, sizeof line, p) != nullptr;
  ::pclose(p);
  REQUIRE(read);
  return std::stod(line);
}

// Writes a self-signed certificate and key valid for days into dir, as tls.crt and tls.key.
void self_signed(const fs::path& dir, int days) {
  const std::string cmd =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
      "-subj /CN=reloaded -days " +
      std::to_string(days) + " -keyout '" + (dir / "tls.key").string() + "' -out '" +
      (dir / "tls.crt").string() + "' 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
}

// Replaces target by source in one rename, as an editor or a deployment tool would.
void replace_file(const std::string& source, const std::string& target) {
  const auto tmp = target + ".tmp";
  fs::copy_file(source, tmp, fs::copy_options::overwrite_existing);
  fs::rename(tmp, target);
}

PromLabels webhook(const std::string& path) { return {{"webhook", path}}; }
PromLabels request_series(const std::string& path, int code) {
  return {{"webhook", path}, {"code", std::to_string(code)}};
}

}  // namespace

TEST_CASE("Denied field paths are generalised: indices and keys become [*], length is capped",
          "[server][metrics]") {
  struct Case {
    std::string name, printed, want;
  };
  const std::vector<Case> cases = {
      {"indices", "spec.replicatedJobs[1].template.spec.template.spec.containers[10].image",
       "spec.replicatedJobs[*].template.spec.template.spec.containers[*].image"},
      {"map key", "metadata.labels[app.kubernetes.io/name]", "metadata.labels[*]"},
      {"no field", "<nil>", "<nil>"},
      {"unterminated bracket", "spec.x[unterminated", "spec.x[unterminated"},
      {"too long", "spec." + std::string(300, 'a'), "spec." + std::string(248, 'a') + "..."},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      CHECK(jobset_webhook::server::generalize_field_path(c.printed) == c.want);
    }
  }
  CHECK(jobset_webhook::server::generalize_field_path("spec." + std::string(300, 'a')).size() ==
        jobset_webhook::server::kMaxDeniedFieldPathBytes);
}

TEST_CASE("GET /metrics counts a known mix of requests exactly", "[server][metrics]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  options.max_request_bytes = 64 * 1024;
  t::TestServer server(options);
  REQUIRE(server.metrics_port() > 0);

  for (int i = 0; i < 3; ++i) CHECK(post(server, pki, kValidate, allowed()) == 200);
  for (int i = 0; i < 2; ++i) CHECK(post(server, pki, kValidate, denied()) == 200);
  CHECK(post(server, pki, kValidate, dry_run_allowed()) == 200);
  // JSON, but not a usable AdmissionReview: answered 200 with status.code 400.
  CHECK(post(server, pki, kValidate,
             R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"})") == 200);
  CHECK(post(server, pki, kValidate, "{") == 400);
  const auto too_large = connect(server, pki)
                             ->request("POST " + kValidate +
                                       " HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                       "application/json\r\nContent-Length: 1048576\r\n\r\n");
  REQUIRE(too_large);
  CHECK(too_large->status == 413);
  CHECK(post(server, pki, kMutate, data("sample-create-review.json")) == 200);
  // A scaler's UPDATE, denied at spec.replicas and spec.jobSetName.
  CHECK(post(server, pki, kValidateScaler, data("sample-scaler-review.json")) == 200);
  CHECK(post(server, pki, "/validate", allowed()) == 404);  // not a webhook: not counted
  // Each request is counted just before its access-log line is written.
  REQUIRE(server.log().wait_for("request", 12).size() == 12);

  const auto s = scrape(server.metrics_port());
  CHECK(s.status == 200);
  CHECK(s.content_type == "text/plain; version=0.0.4; charset=utf-8");
  const auto& m = s.parsed;

  CHECK(m.series("controller_runtime_webhook_requests_total") ==
        std::map<PromLabels, double>{{request_series(kValidate, 200), 7},
                                     {request_series(kValidate, 400), 1},
                                     {request_series(kValidate, 413), 1},
                                     {request_series(kValidate, 500), 0},
                                     {request_series(kMutate, 200), 1},
                                     {request_series(kMutate, 500), 0},
                                     {request_series(kValidateScaler, 200), 1},
                                     {request_series(kValidateScaler, 500), 0}});
  CHECK(m.series("controller_runtime_webhook_latency_seconds_count") ==
        std::map<PromLabels, double>{
            {webhook(kValidate), 9}, {webhook(kMutate), 1}, {webhook(kValidateScaler), 1}});
  CHECK(m.series("controller_runtime_webhook_requests_in_flight") ==
        std::map<PromLabels, double>{
            {webhook(kValidate), 0}, {webhook(kMutate), 0}, {webhook(kValidateScaler), 0}});
  CHECK(m.value("controller_runtime_webhook_panics_total") == 0);
  CHECK(m.value("certwatcher_read_certificate_total") == 1);
  CHECK(m.value("certwatcher_read_certificate_errors_total") == 0);
  CHECK(m.value("jobset_webhook_client_certificate_name_refusals_total") == 0);

  const auto decision = [](const std::string& path, const std::string& op, const std::string& ok,
                           const std::string& dry) {
    return PromLabels{{"webhook", path}, {"operation", op}, {"allowed", ok}, {"dry_run", dry}};
  };
  CHECK(m.series("jobset_webhook_admission_decisions_total") ==
        std::map<PromLabels, double>{{decision(kValidate, "UPDATE", "true", "false"), 3},
                                     {decision(kValidate, "UPDATE", "false", "false"), 2},
                                     {decision(kValidate, "UPDATE", "true", "true"), 1},
                                     {decision(kValidate, "other", "false", "false"), 1},
                                     {decision(kMutate, "CREATE", "true", "false"), 1},
                                     {decision(kValidateScaler, "UPDATE", "false", "false"), 1}});
  const auto op = [](const std::string& path, const std::string& operation) {
    return PromLabels{{"webhook", path}, {"operation", operation}};
  };
  CHECK(m.series("jobset_webhook_review_duration_seconds_count") ==
        std::map<PromLabels, double>{{op(kValidate, "UPDATE"), 6},
                                     {op(kValidate, "other"), 1},
                                     {op(kMutate, "CREATE"), 1},
                                     {op(kValidateScaler, "UPDATE"), 1}});
  // The fine buckets start at 10 µs.
  CHECK(m.value("jobset_webhook_review_duration_seconds_bucket",
                {{"webhook", kMutate}, {"operation", "CREATE"}, {"le", "1e-05"}})
            .has_value());
  CHECK(m.series("jobset_webhook_denied_fields_total") ==
        std::map<PromLabels, double>{{{{"path", kImagePath}}, 2},
                                     {{{"path", "spec.replicas"}}, 1},
                                     {{{"path", "spec.jobSetName"}}, 1}});
  CHECK(m.series("jobset_webhook_certificate_expiry_timestamp_seconds") ==
        std::map<PromLabels, double>{{{{"file", pki.tls_crt()}}, not_after_of(pki.tls_crt())}});
  CHECK(m.series("jobset_webhook_build_info") ==
        std::map<PromLabels, double>{{{{"version", JOBSET_WEBHOOK_VERSION}}, 1}});

  // The memory budget: every body given back once answered, none waited or refused.
  CHECK(m.value("jobset_webhook_request_bytes_in_flight") == 0.0);
  // What the buffers kept for large bodies may hold is not the bodies' (memory_sizing.h).
  CHECK(m.value("jobset_webhook_request_bytes_budget") ==
        static_cast<double>(jobset_webhook::server::kDefaultMaxInflightBytes -
                            jobset_webhook::server::kKeptLargeBodies *
                                jobset_webhook::server::kKeptLargeBodyBytes));
  CHECK(m.value("jobset_webhook_request_memory_waits_total") == 0.0);
  CHECK(m.series("jobset_webhook_request_memory_refusals_total") ==
        std::map<PromLabels, double>{{{{"reason", "larger_than_budget"}}, 0},
                                     {{{"reason", "deadline"}}, 0}});

  CHECK(m.value("process_open_fds").value_or(0) > 0);
  CHECK(m.value("process_max_fds").value_or(0) > 0);
  CHECK(m.value("process_resident_memory_bytes").value_or(0) > 0);
  CHECK(m.value("process_cpu_seconds_total").value_or(-1) >= 0);
  const double now = static_cast<double>(std::time(nullptr));
  const double started = m.value("process_start_time_seconds").value_or(0);
  CHECK(started <= now + 1);
  CHECK(started > now - 24 * 3600);

  CHECK(m.types == std::map<std::string, std::string>{
                       {"certwatcher_read_certificate_errors_total", "counter"},
                       {"certwatcher_read_certificate_total", "counter"},
                       {"controller_runtime_webhook_latency_seconds", "histogram"},
                       {"controller_runtime_webhook_panics_total", "counter"},
                       {"controller_runtime_webhook_requests_in_flight", "gauge"},
                       {"controller_runtime_webhook_requests_total", "counter"},
                       {"jobset_webhook_admission_decisions_total", "counter"},
                       {"jobset_webhook_build_info", "gauge"},
                       {"jobset_webhook_certificate_expiry_timestamp_seconds", "gauge"},
                       {"jobset_webhook_client_certificate_name_refusals_total", "counter"},
                       {"jobset_webhook_denied_fields_total", "counter"},
                       {"jobset_webhook_memory_limit_bytes", "gauge"},
                       {"jobset_webhook_request_bytes_budget", "gauge"},
                       {"jobset_webhook_request_bytes_in_flight", "gauge"},
                       {"jobset_webhook_request_memory_refusals_total", "counter"},
                       {"jobset_webhook_request_memory_waits_total", "counter"},
                       {"jobset_webhook_review_duration_seconds", "histogram"},
                       {"process_cpu_seconds_total", "counter"},
                       {"process_max_fds", "gauge"},
                       {"process_open_fds", "gauge"},
                       {"process_resident_memory_bytes", "gauge"},
                       {"process_start_time_seconds", "gauge"},
                       {"process_virtual_memory_bytes", "gauge"}});
  CHECK(m.help.at("controller_runtime_webhook_requests_total") ==
        "Total number of admission requests by HTTP status code.");
  CHECK(m.help.at("controller_runtime_webhook_latency_seconds") ==
        "Histogram of the latency of processing admission requests");
  CHECK(m.help.at("controller_runtime_webhook_requests_in_flight") ==
        "Current number of admission requests being served.");
  CHECK(m.help.at("certwatcher_read_certificate_total") == "Total number of certificate reads");
}

TEST_CASE("An exception while judging a review is answered 500 for that request only and counted",
          "[server][metrics][panics]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  std::atomic<int> calls{0};
  options.answer_review = [&calls](std::string_view body, const jobset_webhook::Policy& policy,
                                   jobset_webhook::Hook hook)
      -> jobset_webhook::Result<jobset_webhook::admission::ReviewAnswer> {
    const int call = calls++;
    if (call == 0) throw std::runtime_error("injected failure");
    if (call == 1) throw 42;
    return jobset_webhook::admission::answer_review(body, policy, hook);
  };
  t::TestServer server(options);
  const auto conn = connect(server, pki);

  const auto first = conn->request(t::http_request("POST", kValidate, allowed()));
  REQUIRE(first);
  CHECK(first->status == 500);
  CHECK(first->body == R"({"code":500,"message":"internal error: injected failure"})");
  // The same connection goes on: the body was read in full.
  const auto second = conn->request(t::http_request("POST", kValidate, allowed()));
  REQUIRE(second);
  CHECK(second->status == 500);
  CHECK(second->body == R"({"code":500,"message":"internal error: unknown exception"})");
  const auto third = conn->request(t::http_request("POST", kValidate, allowed()));
  REQUIRE(third);
  CHECK(third->status == 200);
  CHECK(third->body ==
        jobset_webhook::admission::handle_review(allowed(), {}, jobset_webhook::Hook::kValidating)
            .value());

  REQUIRE(server.log().wait_for("request", 3).size() == 3);
  const auto errors = server.log().with_msg("internal error while judging a review; answered 500");
  REQUIRE(errors.size() == 2);
  CHECK(errors[0]["level"] == "error");
  CHECK(errors[0]["error"] == "injected failure");
  const auto m = scrape(server.metrics_port()).parsed;
  CHECK(m.value("controller_runtime_webhook_panics_total") == 2);
  CHECK(m.value("controller_runtime_webhook_requests_total", request_series(kValidate, 500)) == 2);
  CHECK(m.value("controller_runtime_webhook_requests_total", request_series(kValidate, 200)) == 1);
  // Only the request that was judged is a decision.
  CHECK(m.series("jobset_webhook_admission_decisions_total").size() == 1);
}

TEST_CASE("A certificate reload shows in the certwatcher counters and the expiry gauge",
          "[server][metrics][rotation]") {
  const auto pki = t::make_pki();
  const auto dir = t::fresh_temp_dir("reload");
  fs::copy_file(pki.tls_crt(), dir / "tls.crt");
  fs::copy_file(pki.tls_key(), dir / "tls.key");
  auto options = t::test_options(pki);
  options.tls.cert_file = (dir / "tls.crt").string();
  options.tls.private_key_file = (dir / "tls.key").string();
  t::TestServer server(options);
  const std::string file = options.tls.cert_file;
  auto m = scrape(server.metrics_port()).parsed;
  CHECK(m.value("certwatcher_read_certificate_total") == 1);
  CHECK(m.value("jobset_webhook_certificate_expiry_timestamp_seconds", {{"file", file}}) ==
        not_after_of(pki.tls_crt()));

  // A certificate that expires in 3 days: the key first, then the certificate, each in one
  // rename; the reloader may see the pair between the two and read once more.
  const auto next = t::fresh_temp_dir("next");
  self_signed(next, 3);
  replace_file((next / "tls.key").string(), options.tls.private_key_file);
  replace_file((next / "tls.crt").string(), file);
  REQUIRE(server.log().wait_for("reloaded TLS certificate", 1).size() == 1);
  m = scrape(server.metrics_port()).parsed;
  const double reads = m.value("certwatcher_read_certificate_total").value_or(0);
  const double errors = m.value("certwatcher_read_certificate_errors_total").value_or(0);
  CHECK(reads - errors == 2);  // the initial load and the reload succeeded
  CHECK(
      errors ==
      static_cast<double>(
          server.log()
              .with_msg("refusing the changed TLS certificate files; the previous ones stay in use")
              .size()));
  const double expiry = not_after_of((next / "tls.crt").string());
  CHECK(m.value("jobset_webhook_certificate_expiry_timestamp_seconds", {{"file", file}}) == expiry);
  CHECK(expiry - static_cast<double>(std::time(nullptr)) < 4 * 24 * 3600);

  // A certificate without its key is refused: counted as an error, the gauge unchanged.
  const auto other = t::fresh_temp_dir("other");
  self_signed(other, 30);
  replace_file((other / "tls.crt").string(), file);
  REQUIRE(server.log()
              .wait_for("refusing the changed TLS certificate files; the previous ones stay in use",
                        static_cast<std::size_t>(errors) + 1)
              .size() == static_cast<std::size_t>(errors) + 1);
  m = scrape(server.metrics_port()).parsed;
  CHECK(m.value("certwatcher_read_certificate_total") == reads + 1);
  CHECK(m.value("certwatcher_read_certificate_errors_total") == errors + 1);
  CHECK(m.value("jobset_webhook_certificate_expiry_timestamp_seconds", {{"file", file}}) == expiry);
}

TEST_CASE("During a shutdown /readyz is 503 while /metrics answers, with the request in flight",
          "[server][metrics][shutdown]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  const auto conn = connect(server, pki);
  const auto request = t::http_request("POST", kValidate, allowed());
  const auto half = request.size() / 2;
  REQUIRE(conn->send(request.substr(0, half)));
  const auto in_flight = [&] {
    return scrape(server.metrics_port())
        .parsed.value("controller_runtime_webhook_requests_in_flight", webhook(kValidate))
        .value_or(-1);
  };
  for (int i = 0; i < 500 && in_flight() != 1; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(in_flight() == 1);  // the handler is reading the body

  auto drained = std::async(std::launch::async, [&] { return server.server().shutdown(20s); });
  httplib::Client health("127.0.0.1", server.health_port());
  int ready = 200;
  for (int i = 0; i < 500 && ready == 200; ++i) {
    const auto res = health.Get("/readyz");
    ready = res ? res->status : -1;
    if (ready == 200) std::this_thread::sleep_for(10ms);
  }
  CHECK(ready == 503);
  CHECK(in_flight() == 1);

  REQUIRE(conn->send(request.substr(half)));
  const auto res = conn->read_response();
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(drained.get());
  // Every listener is closed now; the counts are still there.
  const auto m = t::parse_prometheus(server.server().metrics().scrape());
  REQUIRE(m.error == "");
  CHECK(m.value("controller_runtime_webhook_requests_total", request_series(kValidate, 200)) == 1);
  CHECK(m.value("controller_runtime_webhook_requests_in_flight", webhook(kValidate)) == 0);
}

TEST_CASE("Metrics are served only on the metrics port, and not at all when it is off",
          "[server][metrics]") {
  const auto pki = t::make_pki();
  auto options = t::test_options(pki);
  SECTION("on") {
    t::TestServer server(options);
    httplib::Client health("127.0.0.1", server.health_port());
    const auto res = health.Get("/metrics");
    REQUIRE(res);
    CHECK(res->status == 404);
    const auto https = connect(server, pki)->request("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    REQUIRE(https);
    CHECK(https->status == 404);
    const auto serving = server.log().with_msg("serving");
    REQUIRE(serving.size() == 1);
    CHECK(serving[0]["metricsPort"] == server.metrics_port());
  }
  SECTION("off") {
    options.metrics_port = std::nullopt;
    t::TestServer server(options);
    CHECK(server.metrics_port() == -1);
    CHECK(post(server, pki, kValidate, allowed()) == 200);
    const auto serving = server.log().with_msg("serving");
    REQUIRE(serving.size() == 1);
    CHECK(serving[0]["metricsPort"] == "disabled");
  }
}

TEST_CASE("Counts stay exact with many clients sending reviews while /metrics is scraped",
          "[server][metrics][concurrency]") {
  const auto pki = t::make_pki();
  t::TestServer server(t::test_options(pki));
  constexpr int kClients = 6, kPerClient = 40;
  std::atomic<bool> sending{true};
  std::atomic<int> scrapes{0};
  std::string scrape_error;
  std::thread scraper([&] {
    double last = 0;
    while (sending) {
      httplib::Client client("127.0.0.1", server.metrics_port());
      const auto res = client.Get("/metrics");
      if (!res || res->status != 200) {
        scrape_error = "scrape failed";
        return;
      }
      const auto parsed = t::parse_prometheus(res->body);
      if (!parsed.error.empty()) {
        scrape_error = parsed.error;
        return;
      }
      const double n =
          parsed.value("controller_runtime_webhook_requests_total", request_series(kValidate, 200))
              .value_or(-1);
      if (n < last) {
        scrape_error = "a counter went down";
        return;
      }
      last = n;
      ++scrapes;
    }
  });
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto conn = t::TlsConnection::open(server.port(), t::TlsClientOptions().trust(pki.ca_crt()));
      for (int i = 0; conn && i < kPerClient; ++i) {
        const auto res = conn->request(
            t::http_request("POST", kValidate, (i + c) % 2 == 0 ? allowed() : denied()));
        if (res && res->status == 200) ++ok;
      }
    });
  }
  for (auto& th : clients) th.join();
  REQUIRE(server.log().wait_for("request", kClients * kPerClient).size() == kClients * kPerClient);
  sending = false;
  scraper.join();
  CHECK(scrape_error == "");
  CHECK(scrapes > 0);
  REQUIRE(ok == kClients * kPerClient);
  const auto m = scrape(server.metrics_port()).parsed;
  CHECK(m.value("controller_runtime_webhook_requests_total", request_series(kValidate, 200)) ==
        kClients * kPerClient);
  CHECK(m.value("controller_runtime_webhook_latency_seconds_count", webhook(kValidate)) ==
        kClients * kPerClient);
  CHECK(m.value("controller_runtime_webhook_requests_in_flight", webhook(kValidate)) == 0);
  const auto half = kClients * kPerClient / 2;
  CHECK(m.value("jobset_webhook_admission_decisions_total", {{"webhook", kValidate},
                                                             {"operation", "UPDATE"},
                                                             {"allowed", "true"},
                                                             {"dry_run", "false"}}) == half);
  CHECK(m.value("jobset_webhook_denied_fields_total", {{"path", kImagePath}}) == half);
}

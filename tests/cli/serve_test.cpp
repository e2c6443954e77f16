// `jobset-webhook serve` refuses unusable flags and files before it serves, with exit code 2 and
// an error log line that names the problem. (Serving itself is tested in tests/server/; here the
// process answers a ReplicatedJobScaler's review on its own path as `review --scaler` does.)

#include <httplib.h>

#include <catch2/catch.hpp>

#include "jobset_webhook/json.h"
#include "support/pki.h"
#include "support/process.h"
#include "support/sample_reviews.h"
#include "support/serve_process.h"

using jobset_webhook::Json;
using jobset_webhook::testing::run_cli;

TEST_CASE("serve --help lists every flag with its default", "[cli][serve]") {
  const auto r = run_cli("serve --help");
  CHECK(r.exit_code == 0);
  for (const char* flag :
       {"--bind", "--port", "--cert-dir", "--tls-cert-file", "--tls-private-key-file",
        "--client-ca-file", "--client-name", "--tls-min-version", "--config", "--max-request-bytes",
        "--max-inflight-bytes", "--max-connections", "--health-port", "--metrics-port",
        "--shutdown-delay", "--shutdown-grace", "--log-level", "--log-format"}) {
    DYNAMIC_SECTION(flag) { CHECK(r.out.find(flag) != std::string::npos); }
  }
  CHECK(r.out.find("9443") != std::string::npos);
  CHECK(r.out.find("7340032") != std::string::npos);
  CHECK(r.out.find("12582912") != std::string::npos);
  CHECK(r.out.find("/tmp/k8s-webhook-server/serving-certs") != std::string::npos);
}

TEST_CASE("serve refuses unusable input with exit code 2 and says why", "[cli][serve]") {
  struct Case {
    std::string name;
    std::string args;
    std::string error;  // the "error" of the JSON log line; empty: CLI11's usage error
  };
  const std::vector<Case> cases = {
      {"TLS 1.1", "--tls-min-version 1.1", ""},
      {"bad log level", "--log-level loud", ""},
      {"bad log format", "--log-format xml", ""},
      {"metrics port out of range", "--metrics-port 65536", ""},
      {"zero body limit", "--max-request-bytes 0", ""},
      {"zero memory budget", "--max-inflight-bytes 0", ""},
      {"zero connections", "--max-connections 0", ""},
      {"bad grace", "--shutdown-grace soon", "--shutdown-grace: not a duration such as 25s: soon"},
      {"endless grace", "--shutdown-grace 1000h", "--shutdown-grace: at most 24h, got 1000h"},
      {"client name without a client CA", "--client-name kube-apiserver",
       "--client-name: needs --client-ca-file (names are checked only on client certificates, "
       "which only a client CA asks for)"},
      {"bad delay", "--shutdown-delay 5", "--shutdown-delay: not a duration such as 25s: 5"},
      {"endless delay", "--shutdown-delay 25h", "--shutdown-delay: at most 24h, got 25h"},
      {"missing certificate", "--cert-dir /nonexistent",
       "cannot read /nonexistent/tls.crt: No such file or directory"},
      // The certificate comes from its flag, the key still from the directory.
      {"certificate flag", "--cert-dir /nonexistent --tls-cert-file /dev/null",
       "cannot read /nonexistent/tls.key: No such file or directory"},
      {"not a certificate", "--tls-cert-file /dev/null --tls-private-key-file /dev/null",
       "/dev/null: no PEM certificate found"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto r =
          run_cli("serve --bind 127.0.0.1 --port 0 --health-port 0 --metrics-port 0 " + c.args);
      CHECK(r.exit_code == 2);
      if (!c.error.empty()) {
        const auto line = Json::parse(r.err);
        CHECK(line["level"] == "error");
        CHECK(line["msg"] == "cannot serve");
        CHECK(line["error"] == c.error);
      }
    }
  }
}

TEST_CASE("serve --log-format text writes its lines for people", "[cli][serve][log]") {
  const auto r = run_cli(
      "serve --port 0 --health-port 0 --metrics-port 0 --log-format text --cert-dir /nonexistent");
  CHECK(r.exit_code == 2);
  REQUIRE(r.err.size() > 28);
  CHECK(r.err.substr(27) ==
        " ERROR cannot serve error=\"cannot read /nonexistent/tls.crt: No such file or "
        "directory\"\n");
}

TEST_CASE("serve answers a ReplicatedJobScaler's review at its path over HTTPS as review --scaler",
          "[cli][serve][scaler]") {
  namespace t = jobset_webhook::testing;
  const auto pki = t::make_pki();
  t::ServeProcess serve(t::ServeProcess::serve_args(
      {"--tls-cert-file", pki.tls_crt(), "--tls-private-key-file", pki.tls_key()}));
  const Json serving = serve.wait_serving();
  INFO(t::slurp(serve.log_file()));
  REQUIRE_FALSE(serving.is_null());
  httplib::SSLClient client("127.0.0.1", serving["port"].get<int>());
  client.set_ca_cert_path(pki.ca_crt().c_str());
  client.enable_server_certificate_verification(true);

  const std::string file = std::string(JOBSET_TESTDATA_DIR) + "/sample-scaler-review.json";
  const auto res = client.Post(t::kValidateScaler.c_str(), t::slurp(file), "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  const auto printed = run_cli("review --scaler " + file);
  REQUIRE(printed.exit_code == 0);
  CHECK(res->body + "\n" == printed.out);
  CHECK(Json::parse(res->body)["response"]["status"]["code"] == 422);

  // The access log names the path and the scaler the review was about.
  Json logged;
  for (int i = 0; i < 300 && logged.is_null(); ++i) {
    for (const auto& line : serve.log_lines()) {
      if (line.value("msg", "") == "request") logged = line;
    }
    if (logged.is_null()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE_FALSE(logged.is_null());
  CHECK(logged["path"] == t::kValidateScaler);
  CHECK(logged["name"] == "training-workers");
  CHECK(logged["allowed"] == false);
}

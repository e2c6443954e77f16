// The Deployment in manifests/base starts `serve` with arguments and a policy file that this
// build accepts: the container would otherwise crash-loop on a flag renamed in the code only.

#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "deploy/deploy_support.h"
#include "cli/documents.h"
#include "jobset_webhook/server/endpoints.h"
#include "support/files.h"
#include "support/serve_process.h"

namespace fs = std::filesystem;
using jobset_webhook::Json;
using namespace jobset_webhook::testing;

namespace {

const fs::path kBase = fs::path(JOBSET_SOURCE_DIR) / "manifests/base";

std::vector<std::string> deployment_args() {
  const auto docs = jobset_webhook::cli::parse_yaml_documents(slurp(kBase / "deployment.yaml"),
                                                              "deployment.yaml");
  REQUIRE(docs.ok());
  return docs.value()
      .at(0)["spec"]["template"]["spec"]["containers"][0]["args"]
      .get<std::vector<std::string>>();
}

// The Deployment's `--flag=value` arguments, with what only the pod has replaced by this test's
// equivalents: loopback instead of all addresses, ephemeral ports, and local files for the mounted
// Secret and ConfigMap. Everything else is passed as written.
std::vector<std::string> local_equivalents(const std::vector<std::string>& args,
                                           const std::string& cert_dir,
                                           const std::string& policy_file, int* replaced) {
  std::vector<std::string> out = {JOBSET_WEBHOOK_BINARY};
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    std::string value;
    if (flag == "--bind") {
      value = "127.0.0.1";
    } else if (flag.size() >= 6 && flag.compare(flag.size() - 4, 4, "port") == 0) {
      value = "0";
    } else if (flag == "--cert-dir") {
      value = cert_dir;
    } else if (flag == "--config") {
      value = policy_file;
    } else {
      out.push_back(arg);
      continue;
    }
    REQUIRE(eq != std::string::npos);
    out.push_back(flag + "=" + value);
    ++*replaced;
  }
  return out;
}

}  // namespace

TEST_CASE("serve starts with the Deployment's arguments and the shipped policy, and turns ready",
          "[deploy][manifests]") {
  const ScratchDir scratch;
  const std::string cert_dir = scratch.path() + "/tls";
  const auto certs =
      run_cli("certs --service jobset-webhook --namespace jobset-system --out " + cert_dir);
  INFO(certs.err);
  REQUIRE(certs.exit_code == 0);
  const auto policy_file = scratch.write("policy.yaml", slurp(kBase / "policy.yaml"));

  int replaced = 0;
  const auto argv = local_equivalents(deployment_args(), cert_dir, policy_file, &replaced);
  CHECK(argv.at(1) == "serve");
  CHECK(replaced >= 6);  // --bind, --port, --health-port, --metrics-port, --cert-dir, --config
  ServeProcess serve(argv);
  const Json serving = serve.wait_serving();
  INFO(slurp(serve.log_file()));
  REQUIRE_FALSE(serving.is_null());
  httplib::Client health("127.0.0.1", serving["healthPort"].get<int>());
  const auto res = health.Get(std::string(jobset_webhook::server::kReadyzPath));
  REQUIRE(res);
  CHECK(res->status == 200);
}

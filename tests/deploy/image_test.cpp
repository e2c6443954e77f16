// The container image, checked without Docker: the Dockerfile's runtime filesystem comes from
// scripts/runtime-rootfs, which is run here and the binary started in it under chroot, up to
// serving; the Dockerfile's user and arguments are compared with the Deployment's.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "deploy/deploy_support.h"
#include "cli/documents.h"
#include "jobset_webhook/server/endpoints.h"
#include "support/serve_process.h"

namespace fs = std::filesystem;
using jobset_webhook::Json;
using namespace jobset_webhook::testing;
using jobset_webhook::server::kHealthzPath;
using jobset_webhook::server::kReadyzPath;

namespace {

const fs::path kSource(JOBSET_SOURCE_DIR);

// The value of the Dockerfile's last instruction of that name (e.g. "CMD"), without the name.
std::string dockerfile_instruction(const std::string& name) {
  std::istringstream lines(slurp(kSource / "Dockerfile"));
  std::string line;
  std::string value;
  while (std::getline(lines, line)) {
    if (line.rfind(name + " ", 0) == 0) value = line.substr(name.size() + 1);
  }
  return value;
}

Json deployment_container() {
  const auto docs = jobset_webhook::cli::parse_yaml_documents(
      slurp(kSource / "manifests/base/deployment.yaml"), "deployment.yaml");
  REQUIRE(docs.ok());
  return docs.value().at(0)["spec"]["template"]["spec"];
}

}  // namespace

TEST_CASE("The image runs the binary as the Deployment's user, with the Deployment's arguments",
          "[deploy][image]") {
  auto pod = deployment_container();
  CHECK(dockerfile_instruction("USER") ==
        std::to_string(pod["securityContext"]["runAsUser"].get<int>()) + ":" +
            std::to_string(pod["securityContext"]["runAsGroup"].get<int>()));
  CHECK(dockerfile_instruction("ENTRYPOINT") == R"(["/usr/local/bin/jobset-webhook"])");
  // The Deployment passes the image's default arguments and a policy file.
  Json args = pod["containers"][0]["args"];
  REQUIRE(args.back().get<std::string>().rfind("--config=", 0) == 0);
  args.erase(args.size() - 1);
  CHECK(Json::parse(dockerfile_instruction("CMD")) == args);
  // Built the way developers build.
  CHECK(dockerfile_instruction("RUN").find("scripts/dev build") != std::string::npos);
  CHECK(slurp(kSource / "Dockerfile")
            .find("RUN scripts/dev build \\\n && scripts/runtime-rootfs build/jobset-webhook "
                  "/rootfs") != std::string::npos);
}

TEST_CASE("The image's filesystem holds the binary, its libraries and a user, and nothing else",
          "[deploy][image]") {
  const fs::path rootfs =
      fs::temp_directory_path() /
      ("jobset-webhook-rootfs-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  const auto made = run_shell("'" + (kSource / "scripts/runtime-rootfs").string() + "' '" +
                              JOBSET_WEBHOOK_BINARY + "' '" + rootfs.string() + "'");
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  CHECK(fs::is_regular_file(rootfs / "usr/local/bin/jobset-webhook"));
  CHECK_FALSE(fs::exists(rootfs / "bin/sh"));
  CHECK_FALSE(fs::exists(rootfs / "usr/bin"));
  CHECK(slurp(rootfs / "etc/passwd").find("\nnonroot:x:65532:65532:") != std::string::npos);
  for (const auto& entry : fs::recursive_directory_iterator(rootfs)) {
    if (!entry.is_regular_file()) continue;
    const auto name = entry.path().filename().string();
    INFO(entry.path());
    CHECK((name == "jobset-webhook" || name == "passwd" || name == "group" ||
           name.find(".so") != std::string::npos));
  }

  const bool sanitized =
      run_shell("ldd '" + std::string(JOBSET_WEBHOOK_BINARY) + "' | grep -q 'lib[at]san'")
          .exit_code == 0;
  if (::geteuid() != 0 || sanitized) {
    // Not WARN: Catch2 v2's TAP reporter numbers a warning as a test, which meson refuses.
    SUCCEED("not started under chroot: " << (sanitized ? "a sanitizer build needs /proc"
                                                       : "chroot needs root"));
  } else {
    // Alone in its filesystem, as user 65532: the library list is complete and OpenSSL works.
    const std::string chroot =
        "chroot --userspec=65532:65532 '" + rootfs.string() + "' /usr/local/bin/jobset-webhook ";
    const auto version = run_shell(chroot + "--version");
    CHECK(version.exit_code == 0);
    CHECK(version.out == std::string(JOBSET_WEBHOOK_VERSION) + "\n");
    const auto certs = run_shell(chroot + "certs --service s --namespace n --out /tmp/certs");
    INFO(certs.err);
    CHECK(certs.exit_code == 0);
    // And serves with them: the kubelet's liveness and readiness probes answer.
    ServeProcess serve({"chroot", "--userspec=65532:65532", rootfs.string(),
                        "/usr/local/bin/jobset-webhook", "serve", "--bind", "127.0.0.1", "--port",
                        "0", "--health-port", "0", "--metrics-port", "0", "--cert-dir",
                        "/tmp/certs"});
    const Json serving = serve.wait_serving();
    INFO(slurp(serve.log_file()));
    REQUIRE_FALSE(serving.is_null());
    httplib::Client health("127.0.0.1", serving["healthPort"].get<int>());
    for (const auto path : {kHealthzPath, kReadyzPath}) {
      const auto res = health.Get(std::string(path));
      INFO(path);
      REQUIRE(res);
      CHECK(res->status == 200);
    }
  }
  fs::remove_all(rootfs);
}

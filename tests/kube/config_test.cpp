#include "jobset_webhook/kube/config.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "jobset_webhook/kube/client.h"
#include "jobset_webhook/kube/reflector.h"

namespace fs = std::filesystem;
using namespace jobset_webhook::kube;

namespace {

// A scratch folder, removed with the object.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("kube-config-test-" + std::to_string(::getpid()) +
                                              "-" + std::to_string(std::rand()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

constexpr const char* kKubeconfig = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: Q0EgUEVN
- name: files
  cluster:
    server: https://kube.example:8443/
    certificate-authority: ca.crt
- name: plain
  cluster:
    server: http://127.0.0.1:8080
users:
- name: admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: robot
  user:
    token: abc
- name: rotating
  user:
    tokenFile: token
contexts:
- name: dev
  context: {cluster: local, user: admin, namespace: team}
- name: other
  context: {cluster: files, user: robot}
- name: rot
  context: {cluster: files, user: rotating}
- name: insecure
  context: {cluster: plain, user: robot}
- name: nouser
  context: {cluster: local, user: ghost}
)";

}  // namespace

TEST_CASE("A kubeconfig gives the server, CA, credentials and namespace of a context",
          "[kube][config]") {
  Scratch s;
  const auto path = s.write("config", kKubeconfig).string();
  s.write("ca.crt", "CA FILE");
  s.write("token", "from-file\n");

  const auto dev = load_kubeconfig(path);
  REQUIRE(dev.ok());
  CHECK(dev.value().host == "127.0.0.1");
  CHECK(dev.value().port == 6443);
  CHECK(dev.value().ca_pem == "CA PEM");
  CHECK(dev.value().ca_file.empty());  // data, not a file
  CHECK(dev.value().client_cert_pem == "CERT");
  CHECK(dev.value().client_key_pem == "KEY");
  CHECK(dev.value().ns == "team");

  const auto other = load_kubeconfig(path, "other");
  REQUIRE(other.ok());
  CHECK(other.value().host == "kube.example");
  CHECK(other.value().port == 8443);
  CHECK(other.value().ca_pem == "CA FILE");  // relative to the kubeconfig's folder
  CHECK(other.value().ca_file == (s.dir / "ca.crt").string());
  CHECK(other.value().token == "abc");
  CHECK(other.value().ns == "default");

  const auto rot = load_kubeconfig(path, "rot");
  REQUIRE(rot.ok());
  CHECK(rot.value().token_file == (s.dir / "token").string());
}

TEST_CASE("Kubeconfig failures name the file and what is wrong", "[kube][config]") {
  Scratch s;
  const auto path = s.write("config", kKubeconfig).string();
  struct Case {
    std::string name;
    std::string context;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"unknown context", "nope", "kubeconfig " + path + ": context \"nope\" not found"},
      {"http server", "insecure",
       "kubeconfig " + path +
           ": server \"http://127.0.0.1:8080\": only https:// servers are supported"},
      {"unknown user", "nouser", "kubeconfig " + path + ": user \"ghost\" not found"},
      {"CA file missing", "other",
       "kubeconfig " + path + ": certificate-authority: cannot read " +
           (s.dir / "ca.crt").string()},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto r = load_kubeconfig(path, c.context);
      REQUIRE_FALSE(r.ok());
      CHECK(r.failure().message == c.want);
    }
  }
  const auto missing = load_kubeconfig((s.dir / "absent").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.failure().message == "kubeconfig " + (s.dir / "absent").string() +
                                         ": cannot read " + (s.dir / "absent").string());
}

TEST_CASE("The in-cluster configuration reads the service account's files", "[kube][config]") {
  Scratch s;
  s.write("ca.crt", "CA");
  s.write("token", "t1");
  s.write("namespace", "jobset-system");
  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  const auto c = in_cluster_config(s.dir.string());
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  REQUIRE(c.ok());
  CHECK(c.value().host == "10.96.0.1");
  CHECK(c.value().port == 443);
  CHECK(c.value().ca_pem == "CA");
  CHECK(c.value().ca_file == (s.dir / "ca.crt").string());
  CHECK(c.value().token_file == (s.dir / "token").string());
  CHECK(c.value().ns == "jobset-system");
  const auto outside = in_cluster_config(s.dir.string());
  REQUIRE_FALSE(outside.ok());
  CHECK(outside.failure().message ==
        "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT unset");
}

TEST_CASE("Server URLs are read strictly", "[kube][config]") {
  CHECK(with_server({}, "https://[::1]:6443").value().host == "::1");
  CHECK(with_server({}, "https://[::1]:6443").value().port == 6443);
  CHECK(with_server({}, "https://k8s").value().port == 443);
  CHECK_FALSE(with_server({}, "https://k8s:0").ok());
  CHECK_FALSE(with_server({}, "https://k8s:99999").ok());
  CHECK_FALSE(with_server({}, "https://:6443").ok());
}

TEST_CASE("Paths and query values are built as the API expects", "[kube][client]") {
  CHECK(core_path("ns", "events") == "/api/v1/namespaces/ns/events");
  CHECK(group_path("batch/v1", "ns", "jobs", "js-workers-3") ==
        "/apis/batch/v1/namespaces/ns/jobs/js-workers-3");
  CHECK(group_path("jobset.x-k8s.io/v1alpha2", "", "jobsets") ==
        "/apis/jobset.x-k8s.io/v1alpha2/jobsets");
  CHECK(url_escape("jobset.sigs.k8s.io/jobset-name") == "jobset.sigs.k8s.io%2Fjobset-name");
  CHECK(url_escape("a=b,c!=d") == "a%3Db%2Cc%21%3Dd");
}

TEST_CASE("Back-off doubles up to its ceiling, with jitter of a quarter either way",
          "[kube][reflector]") {
  const Backoff b{std::chrono::milliseconds(200), std::chrono::milliseconds(30000)};
  CHECK(b.delay(0, 0.5).count() == 200);
  CHECK(b.delay(1, 0.5).count() == 400);
  CHECK(b.delay(3, 0.5).count() == 1600);
  CHECK(b.delay(20, 0.5).count() == 30000);
  CHECK(b.delay(1000, 0.5).count() == 30000);
  CHECK(b.delay(0, 0.0).count() == 150);
  CHECK(b.delay(0, 1.0).count() < 250);
}

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "support/process.h"
#include "support/x509_verify.h"

namespace fs = std::filesystem;
using jobset_webhook::testing::base64_decode;
using jobset_webhook::testing::run_cli;
using jobset_webhook::testing::slurp;
using jobset_webhook::testing::verify_serving_certificate;

namespace {

const std::string kArgs = "certs --service jobset-webhook --namespace jobset-system --out ";

// A fresh directory path that does not exist yet; removed when the test ends.
struct TempDir {
  fs::path path =
      fs::temp_directory_path() /
      ("jobset-webhook-certs-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  ~TempDir() { fs::remove_all(path); }
};

fs::perms mode_of(const fs::path& p) { return fs::status(p).permissions() & fs::perms::mask; }

}  // namespace

TEST_CASE("certs writes the Secret layout, the key 0600, and prints the caBundle", "[cli][certs]") {
  TempDir dir;
  const auto r = run_cli(kArgs + dir.path.string() + " --days 10");
  REQUIRE(r.exit_code == 0);
  CHECK(mode_of(dir.path) == fs::perms::owner_all);
  CHECK(mode_of(dir.path / "tls.key") == (fs::perms::owner_read | fs::perms::owner_write));
  const auto readable = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                        fs::perms::others_read;
  CHECK(mode_of(dir.path / "tls.crt") == readable);
  CHECK(mode_of(dir.path / "ca.crt") == readable);
  CHECK(std::vector<fs::path>(fs::directory_iterator(dir.path), fs::directory_iterator()).size() ==
        3);

  const auto ca = slurp(dir.path / "ca.crt");
  CHECK(r.out.find('\n') == r.out.size() - 1);
  CHECK(base64_decode(r.out) == ca);
  CHECK(verify_serving_certificate(slurp(dir.path / "tls.crt"), ca,
                                   "jobset-webhook.jobset-system.svc") == "");
  CHECK(r.err == "jobset-webhook certs: wrote " + (dir.path / "ca.crt").string() + ", " +
                     (dir.path / "tls.crt").string() + ", " + (dir.path / "tls.key").string() +
                     " for jobset-webhook.jobset-system.svc; caBundle on stdout\n");
}

TEST_CASE("certs keeps the modes whatever the umask", "[cli][certs]") {
  TempDir dir;
  const mode_t saved = ::umask(077);
  const auto r = run_cli(kArgs + dir.path.string());
  ::umask(saved);
  REQUIRE(r.exit_code == 0);
  CHECK((mode_of(dir.path / "ca.crt") & fs::perms::others_read) == fs::perms::others_read);
  CHECK(mode_of(dir.path / "tls.key") == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("certs refuses to replace existing files without --force and changes nothing",
          "[cli][certs]") {
  TempDir dir;
  REQUIRE(run_cli(kArgs + dir.path.string()).exit_code == 0);
  const auto ca = slurp(dir.path / "ca.crt");
  const auto key = slurp(dir.path / "tls.key");

  const auto again = run_cli(kArgs + dir.path.string());
  CHECK(again.exit_code == 2);
  CHECK(again.out.empty());
  CHECK(again.err ==
        "jobset-webhook certs: " + (dir.path / "ca.crt").string() + ", " +
            (dir.path / "tls.crt").string() + ", " + (dir.path / "tls.key").string() +
            " already exist; use --force to replace (the caBundle changes with them)\n");
  CHECK(slurp(dir.path / "ca.crt") == ca);
  CHECK(slurp(dir.path / "tls.key") == key);

  SECTION("one existing file is enough to refuse, and the others are not written") {
    fs::remove(dir.path / "ca.crt");
    fs::remove(dir.path / "tls.crt");
    const auto one = run_cli(kArgs + dir.path.string());
    CHECK(one.exit_code == 2);
    CHECK(one.err ==
          "jobset-webhook certs: " + (dir.path / "tls.key").string() +
              " already exists; use --force to replace (the caBundle changes with them)\n");
    CHECK_FALSE(fs::exists(dir.path / "ca.crt"));
  }
}

TEST_CASE("certs --force replaces all three files with a new CA, restoring the key's mode",
          "[cli][certs]") {
  TempDir dir;
  const auto first = run_cli(kArgs + dir.path.string());
  REQUIRE(first.exit_code == 0);
  fs::permissions(dir.path / "tls.key", fs::perms::all);
  const auto second = run_cli(kArgs + dir.path.string() + " --force --key-type rsa-2048");
  REQUIRE(second.exit_code == 0);
  CHECK(second.out != first.out);
  CHECK(mode_of(dir.path / "tls.key") == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(slurp(dir.path / "tls.key")
            .rfind("-----BEGIN "
                   "PRIVATE KEY-----",
                   0) == 0);
  CHECK(verify_serving_certificate(slurp(dir.path / "tls.crt"), slurp(dir.path / "ca.crt"),
                                   "jobset-webhook.jobset-system.svc") == "");
  CHECK(verify_serving_certificate(slurp(dir.path / "tls.crt"), base64_decode(first.out),
                                   "jobset-webhook.jobset-system.svc") ==
        "unable to get local issuer certificate");
}

TEST_CASE("certs adds extra SANs, repeated or comma-separated", "[cli][certs]") {
  TempDir dir;
  REQUIRE(run_cli(kArgs + dir.path.string() +
                  " --extra-san localhost,127.0.0.1 --extra-san webhook.example.com")
              .exit_code == 0);
  const auto cert = slurp(dir.path / "tls.crt");
  const auto ca = slurp(dir.path / "ca.crt");
  CHECK(verify_serving_certificate(cert, ca, "localhost") == "");
  CHECK(verify_serving_certificate(cert, ca, "webhook.example.com") == "");
  CHECK(verify_serving_certificate(cert, ca, "127.0.0.1") ==
        "hostname mismatch");  // an IP is not a host name
}

TEST_CASE("certs refuses bad arguments with exit 2 and writes nothing", "[cli][certs]") {
  struct Case {
    std::string name;
    std::string args;
    std::string want_err;  // the start of stderr
  };
  const std::vector<Case> cases = {
      {"bad key type", " --key-type ed25519",
       R"(jobset-webhook certs: --key-type must be ecdsa-p256 or rsa-2048, got "ed25519")"},
      {"bad SAN", " --extra-san 'a b'",
       R"(jobset-webhook certs: extra SAN "a b" is neither a DNS name (lowercase) nor an IP address)"},
      {"bad days", " --days 0", "jobset-webhook certs: days must be between 1 and 3650, got 0"},
      {"days not a number", " --days soon", "Could not convert: --days = soon"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      TempDir dir;
      const auto r = run_cli(kArgs + dir.path.string() + c.args);
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
      CHECK(r.err.rfind(c.want_err, 0) == 0);
      CHECK_FALSE(fs::exists(dir.path));
    }
  }
  SECTION("a missing --service is a usage error") {
    const auto r = run_cli("certs --namespace ns --out /nonexistent/dir");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--service is required") != std::string::npos);
  }
  SECTION("one of --out and --secret, and --inject-ca-into only with --secret") {
    const std::string base = "certs --service s --namespace ns";
    auto r = run_cli(base);
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "jobset-webhook certs: name one of --out (a directory) or --secret (a Secret, through "
          "the API)\n");
    r = run_cli(base + " --out /nonexistent/dir --secret tls");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--out excludes --secret") != std::string::npos);
    r = run_cli(base + " --out /nonexistent/dir --inject-ca-into jobset-webhook");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "jobset-webhook certs: --inject-ca-into needs --secret: the caBundle is the Secret's "
          "ca.crt\n");
  }
  SECTION("--secret: bad arguments fail before the kubeconfig is read, then the kubeconfig") {
    const std::string base =
        "certs --service s --namespace ns --secret tls --kubeconfig /nonexistent/kubeconfig";
    auto r = run_cli(base + " --days 0");
    CHECK(r.exit_code == 2);
    CHECK(r.err == "jobset-webhook certs: days must be between 1 and 3650, got 0\n");
    r = run_cli(base);
    CHECK(r.exit_code != 0);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("jobset-webhook certs: kubeconfig /nonexistent/kubeconfig", 0) == 0);
  }
  SECTION("an --out that is a file") {
    TempDir dir;
    fs::create_directories(dir.path);
    std::ofstream(dir.path / "file") << "x";
    const auto r = run_cli(kArgs + (dir.path / "file").string());
    CHECK(r.exit_code == 2);
    CHECK(r.err == "jobset-webhook certs: " + (dir.path / "file").string() + ": not a directory\n");
  }
}

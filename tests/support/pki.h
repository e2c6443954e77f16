#pragma once

// Test helper: certificates made by certs/generate-dev-certs in a fresh temporary directory, the
// way a developer gets them.

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace jobset_webhook::testing {

struct Pki {
  std::filesystem::path dir;
  std::string ca_crt() const { return (dir / "ca.crt").string(); }
  std::string tls_crt() const { return (dir / "tls.crt").string(); }
  std::string tls_key() const { return (dir / "tls.key").string(); }
  std::string client_crt() const { return (dir / "client.crt").string(); }
  std::string client_key() const { return (dir / "client.key").string(); }
};

inline std::filesystem::path fresh_temp_dir(const std::string& what) {
  static std::atomic<int> counter{0};
  const auto dir = std::filesystem::temp_directory_path() /
                   ("jobset-webhook-" + what + "-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void run_generator(const std::filesystem::path& dir) {
  const std::string cmd =
      std::string(JOBSET_SOURCE_DIR) + "/certs/generate-dev-certs " + dir.string() + " >/dev/null";
  if (std::system(cmd.c_str()) != 0)
    throw std::runtime_error("certs/generate-dev-certs failed: " + cmd);
}

// A new CA with a serving and a client certificate.
inline Pki make_pki() {
  Pki pki{fresh_temp_dir("pki")};
  run_generator(pki.dir);
  return pki;
}

// New serving and client certificates (new keys) signed by the CA of ca.
inline Pki make_pki_from_ca(const Pki& ca) {
  Pki pki{fresh_temp_dir("pki")};
  std::filesystem::copy_file(ca.dir / "ca.crt", pki.dir / "ca.crt");
  std::filesystem::copy_file(ca.dir / "ca.key", pki.dir / "ca.key");
  run_generator(pki.dir);
  return pki;
}

// A serving certificate for `san` (openssl's subjectAltName syntax, e.g. "DNS:other.example")
// signed by the CA of ca, written as <name>.crt and <name>.key in a new folder; returns the path
// without the extension.
inline std::string make_serving_cert(const Pki& ca, const std::string& name,
                                     const std::string& san) {
  const auto dir = fresh_temp_dir("leaf");
  const std::string base = (dir / name).string();
  const std::string cmd =
      "cd " + dir.string() +
      " && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out " + name +
      ".key 2>/dev/null && openssl req -new -key " + name + ".key -subj /CN=" + name + " -out " +
      name + ".csr && printf 'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n" +
      "subjectAltName=" + san + "\n' >" + name + ".ext && openssl x509 -req -in " + name +
      ".csr -CA " + ca.ca_crt() + " -CAkey " + (ca.dir / "ca.key").string() +
      " -set_serial 0x$(openssl rand -hex 16) -days 2 -sha256 -extfile " + name + ".ext -out " +
      name + ".crt 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("openssl failed: " + cmd);
  return base;
}

}  // namespace jobset_webhook::testing

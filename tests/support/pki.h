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

}  // namespace jobset_webhook::testing

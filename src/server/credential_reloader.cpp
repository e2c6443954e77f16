#include "credential_reloader.h"

#include <sys/stat.h>

#include <tuple>
#include <vector>

namespace jobset_webhook::server {

// What tells one version of a file from the next without reading it. stat() follows symlinks, so
// a Secret volume's symlink swap shows up as a new inode. Outside the unnamed namespace: Watched,
// a member type of a class with external linkage, holds it.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::int64_t modified_ns = 0;
  std::int64_t changed_ns = 0;

  bool operator==(const FileIdentity& o) const {
    return std::tie(exists, device, inode, size, modified_ns, changed_ns) ==
           std::tie(o.exists, o.device, o.inode, o.size, o.modified_ns, o.changed_ns);
  }
};

namespace {

FileIdentity identify(const std::string& path) {
  struct stat st {};
  FileIdentity id;
  if (::stat(path.c_str(), &st) != 0) return id;
  id.exists = true;
  id.device = st.st_dev;
  id.inode = st.st_ino;
  id.size = st.st_size;
  id.modified_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  id.changed_ns = std::int64_t{st.st_ctim.tv_sec} * 1'000'000'000 + st.st_ctim.tv_nsec;
  return id;
}

std::vector<FileIdentity> identify(const std::vector<std::string>& paths) {
  std::vector<FileIdentity> ids;
  for (const auto& p : paths) ids.push_back(identify(p));
  return ids;
}

}  // namespace

struct CredentialReloader::Watched {
  std::vector<std::string> paths;
  std::vector<FileIdentity> seen;  // the identities last loaded or refused
};

CredentialReloader::CredentialReloader(const TlsFiles& files, const runtime::Log& log,
                                       ServerMetrics& metrics)
    : files_(files),
      log_(log),
      metrics_(metrics),
      serving_seen_(
          std::make_unique<Watched>(Watched{{files.cert_file, files.private_key_file}, {}})),
      ca_seen_(std::make_unique<Watched>(Watched{{files.client_ca_file}, {}})) {}

Result<std::unique_ptr<CredentialReloader>> CredentialReloader::start(
    const TlsFiles& files, std::chrono::milliseconds interval, const runtime::Log& log,
    ServerMetrics& metrics) {
  std::unique_ptr<CredentialReloader> reloader(new CredentialReloader(files, log, metrics));
  reloader->serving_seen_->seen = identify(reloader->serving_seen_->paths);
  auto certificate = load_serving_certificate(files.cert_file, files.private_key_file);
  metrics.count_certificate_read(certificate.ok());
  if (!certificate.ok()) return certificate.failure();
  reloader->certificate_ = certificate.value();
  metrics.set_certificate_expiry(files.cert_file, certificate.value()->not_after_unix);
  log.info("loaded TLS certificate", {{"certFile", files.cert_file},
                                      {"subject", certificate.value()->subject},
                                      {"notAfter", certificate.value()->not_after}});
  if (!files.client_ca_file.empty()) {
    reloader->ca_seen_->seen = identify(reloader->ca_seen_->paths);
    auto ca = load_client_ca(files.client_ca_file);
    metrics.count_certificate_read(ca.ok());
    if (!ca.ok()) return ca.failure();
    reloader->client_ca_ = ca.value();
    metrics.set_certificate_expiry(files.client_ca_file, ca.value()->not_after_unix);
    log.info("loaded client CA",
             {{"clientCAFile", files.client_ca_file}, {"certificates", ca.value()->certificates}});
  }
  reloader->thread_ = std::thread([r = reloader.get(), interval] { r->watch(interval); });
  return reloader;
}

CredentialReloader::~CredentialReloader() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const ServingCertificate> CredentialReloader::certificate() const {
  std::lock_guard lock(mutex_);
  return certificate_;
}

std::shared_ptr<const ClientCa> CredentialReloader::client_ca() const {
  std::lock_guard lock(mutex_);
  return client_ca_;
}

void CredentialReloader::watch(std::chrono::milliseconds interval) {
  std::unique_lock lock(stop_mutex_);
  while (!stop_requested_.wait_for(lock, interval, [this] { return stopping_; })) {
    lock.unlock();
    check();
    lock.lock();
  }
}

void CredentialReloader::check() {
  std::lock_guard checking(check_mutex_);
  // Identities are taken before and after loading: files still being written show different ones,
  // and are left for the next check instead of being refused.
  const auto reload = [&](Watched& watched, auto load, auto publish, std::string_view what) {
    const auto before = identify(watched.paths);
    if (before == watched.seen) return;
    auto loaded = load();
    if (identify(watched.paths) != before) return;
    watched.seen = before;
    metrics_.count_certificate_read(loaded.ok());
    if (loaded.ok()) {
      publish(loaded.value());
    } else {
      log_.error(
          "refusing the changed " + std::string(what) + " files; the previous ones stay in use",
          {{"error", loaded.failure().message}});
    }
  };
  reload(
      *serving_seen_,
      [&] { return load_serving_certificate(files_.cert_file, files_.private_key_file); },
      [&](const std::shared_ptr<const ServingCertificate>& next) {
        {
          std::lock_guard lock(mutex_);
          certificate_ = next;
        }
        metrics_.set_certificate_expiry(files_.cert_file, next->not_after_unix);
        log_.info("reloaded TLS certificate", {{"certFile", files_.cert_file},
                                               {"subject", next->subject},
                                               {"notAfter", next->not_after}});
      },
      "TLS certificate");
  if (files_.client_ca_file.empty()) return;
  reload(
      *ca_seen_, [&] { return load_client_ca(files_.client_ca_file); },
      [&](const std::shared_ptr<const ClientCa>& next) {
        {
          std::lock_guard lock(mutex_);
          client_ca_ = next;
        }
        metrics_.set_certificate_expiry(files_.client_ca_file, next->not_after_unix);
        log_.info("reloaded client CA",
                  {{"clientCAFile", files_.client_ca_file}, {"certificates", next->certificates}});
      },
      "client CA");
}

}  // namespace jobset_webhook::server

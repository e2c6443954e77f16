#pragma once

// The TLS files as they are now. A background thread checks them every interval (device, inode,
// size and modification time, through symlinks: a Kubernetes Secret volume replaces its files by
// swapping a symlink) and loads a changed set; the new value is published atomically, so the
// next handshake uses it while open connections keep theirs. A changed set that does not load (a
// half-written file, a key that does not match) is refused with an error log line and the
// previous value stays in use; it is retried when the files change again.
//
// Metrics: every completed read of a set of files counts in certwatcher_read_certificate_total,
// a refused one in certwatcher_read_certificate_errors_total too (a read abandoned because the
// files changed under it counts as neither); each file in use sets its
// jobset_webhook_certificate_expiry_timestamp_seconds.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "jobset_webhook/result.h"
#include "credentials.h"
#include "jobset_webhook/runtime/log.h"
#include "jobset_webhook/server/options.h"
#include "server_metrics.h"

namespace jobset_webhook::server {

class CredentialReloader {
 public:
  // Loads the files once (a kInvalidArgument Failure when they are unusable) and starts watching
  // them.
  // log and metrics must outlive the reloader.
  static Result<std::unique_ptr<CredentialReloader>> start(const TlsFiles& files,
                                                           std::chrono::milliseconds interval,
                                                           const runtime::Log& log,
                                                           ServerMetrics& metrics);
  ~CredentialReloader();  // stops the watching thread
  CredentialReloader(const CredentialReloader&) = delete;
  CredentialReloader& operator=(const CredentialReloader&) = delete;

  std::shared_ptr<const ServingCertificate> certificate() const;
  std::shared_ptr<const ClientCa> client_ca() const;  // null when no client CA file is configured

  // Checks the files now, as the thread does every interval.
  void check();

 private:
  struct Watched;
  CredentialReloader(const TlsFiles& files, const runtime::Log& log, ServerMetrics& metrics);
  void watch(std::chrono::milliseconds interval);

  const TlsFiles files_;
  const runtime::Log& log_;
  ServerMetrics& metrics_;
  std::unique_ptr<Watched> serving_seen_;  // file identities behind certificate_
  std::unique_ptr<Watched> ca_seen_;       // file identity behind client_ca_

  mutable std::mutex mutex_;
  std::shared_ptr<const ServingCertificate> certificate_;
  std::shared_ptr<const ClientCa> client_ca_;

  std::mutex check_mutex_;  // one check at a time
  std::mutex stop_mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace jobset_webhook::server

#include "jobset_webhook/kube/reflector.h"

#include <algorithm>
#include <random>
#include <utility>

namespace jobset_webhook::kube {

std::chrono::milliseconds Backoff::delay(int failures, double jitter) const {
  double ms = static_cast<double>(initial.count());
  for (int i = 0; i < failures && ms < static_cast<double>(max.count()); ++i) ms *= 2;
  ms = std::min(ms, static_cast<double>(max.count()));
  ms *= 0.75 + 0.5 * std::clamp(jitter, 0.0, 0.999);
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

Reflector::Reflector(Api& client, std::string path, std::string label_selector,
                     ReflectorHandlers handlers, Backoff backoff, int watch_timeout_seconds)
    : client_(client),
      path_(std::move(path)),
      label_selector_(std::move(label_selector)),
      handlers_(std::move(handlers)),
      backoff_(backoff),
      watch_timeout_seconds_(watch_timeout_seconds) {}

bool Reflector::wait(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return stopping_.load(); });
  return !stopping_;
}

void Reflector::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  client_.cancel();
}

void Reflector::run() {
  std::minstd_rand random(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::string version;  // empty: list first
  int failures = 0;
  auto fail = [&](const std::string& what, const Failure& f) {
    if (handlers_.error) handlers_.error(what, f);
    return wait(backoff_.delay(failures++, unit(random)));
  };
  while (!stopping_) {
    if (version.empty()) {
      auto listed = client_.list(path_, label_selector_);
      if (!listed.ok()) {
        if (!fail("list " + path_, listed.failure())) return;
        continue;
      }
      ++lists_;
      handlers_.replace(listed.value().items);
      version = listed.value().resource_version;
      failures = 0;
    }
    ++watches_;
    auto watched = client_.watch(path_, label_selector_, version, watch_timeout_seconds_,
                                 [&](const WatchEvent& e) {
                                   if (e.type != "BOOKMARK") handlers_.event(e);
                                   return !stopping_.load();
                                 });
    if (watched.ok()) {
      // The server ended the stream (timeoutSeconds): watch again from where it stopped.
      version = watched.value();
      failures = 0;
      continue;
    }
    if (stopping_) return;
    if (watched.failure().code == StatusCode::kOutOfRange) {
      // The resourceVersion is older than the server keeps (compaction, or a restarted API
      // server's watch cache): every event since may be lost, so list again.
      if (handlers_.error) handlers_.error("watch " + path_, watched.failure());
      version.clear();
      continue;
    }
    // Connection refused while the API server restarts, a broken stream, a 5xx: back off and
    // watch again from the same resourceVersion (a 410 then sends us to list).
    if (!fail("watch " + path_, watched.failure())) return;
  }
}

}  // namespace jobset_webhook::kube

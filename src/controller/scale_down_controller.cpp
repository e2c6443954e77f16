#include "jobset_webhook/controller/scale_down_controller.h"

#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "controller_metrics.h"
#include "object_cache.h"
#include "plan_scale_down.h"
#include "reconciler.h"
#include "work_queue.h"
#include "jobset_webhook/kube/client.h"
#include "jobset_webhook/kube/reflector.h"
#include "jobset_webhook/metrics/exposition.h"
#include "jobset_webhook/metrics/histogram.h"
#include "jobset_webhook/metrics/process.h"

namespace jobset_webhook::controller {
namespace {

using Clock = std::chrono::steady_clock;

std::mutex log_mu;

// One line per record on stderr: time, level, message.
void log_line(const char* level, const std::string& message) {
  std::lock_guard lock(log_mu);
  std::fprintf(stderr, "%s %s %s\n", micro_time(std::chrono::system_clock::now()).c_str(), level,
               message.c_str());
}

// <POD_NAME or hostname>_<random>, as client-go's hostname_uuid: a restarted process is a new
// candidate, never mistaken for the holder it replaces.
std::string default_identity() {
  char host[256] = {0};
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') {
    std::snprintf(host, sizeof host, "%s", pod);
  } else if (gethostname(host, sizeof host - 1) != 0) {
    host[0] = '\0';
  }
  std::random_device rd;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", rd(), rd());
  return std::string(host[0] != '\0' ? host : "unknown") + "_" + suffix;
}

class Controller {
 public:
  Controller(const ControllerOptions& options, kube::Config config)
      : options_(options),
        config_(std::move(config)),
        client_(config_),
        queue_(metrics_.queue_depth),
        elector_(options.lease_namespace.empty() ? config_.ns : options.lease_namespace,
                 options.lease_name,
                 options.identity.empty() ? default_identity() : options.identity, options.lease),
        jobsets_(client_, kube::group_path(kJobSetGroupVersion, options.watch_namespace, "jobsets"),
                 "", handlers(cache_.jobsets), kube::Backoff{}, options.watch_timeout_seconds),
        jobs_(client_, kube::group_path("batch/v1", options.watch_namespace, "jobs"),
              kJobSetNameKey, handlers(cache_.jobs), kube::Backoff{},
              options.watch_timeout_seconds),
        reconciler_(ReconcilerEnv{client_, cache_, metrics_, [this] { return leading(); },
                                  [] { return Clock::now(); }, log_line, elector_.identity()}) {}

  int run(const std::atomic<bool>& stop) {
    httplib::Server http;
    std::thread http_thread;
    if (options_.metrics_port != 0) {
      http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(metrics_.text(jobsets_.lists(), jobs_.lists()),
                        std::string(metrics::kContentType).c_str());
      });
      http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("ok", "text/plain");
      });
      http.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
        const bool ready = jobsets_.synced() && jobs_.synced();
        res.status = ready ? 200 : 503;
        res.set_content(ready ? "ok" : "caches not synced", "text/plain");
      });
      const int port =
          options_.metrics_port < 0
              ? http.bind_to_any_port(options_.bind)
              : (http.bind_to_port(options_.bind, options_.metrics_port) ? options_.metrics_port
                                                                         : -1);
      if (port < 0) {
        log_line("error", "cannot bind the metrics port " + std::to_string(options_.metrics_port));
        return 2;
      }
      log_line("info",
               "metrics on http://" + options_.bind + ":" + std::to_string(port) + "/metrics");
      http_thread = std::thread([&http] { http.listen_after_bind(); });
    }
    log_line("info", "identity " + elector_.identity() + ", API server " + config_.host + ":" +
                         std::to_string(config_.port));

    std::thread jobsets_thread([this] { jobsets_.run(); });
    std::thread jobs_thread([this] { jobs_.run(); });
    std::thread worker([this] { work(); });
    std::thread elector([this] { elect(); });

    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    log_line("info", "stopping");
    stopping_ = true;
    // The reconcile in progress ends first, its Events included; only then are the requests
    // in flight (watches, the Lease) cancelled.
    queue_.shut_down();
    worker.join();
    // The Lease is handed over before the client's requests are cancelled.
    elector_cv_.notify_all();
    elector.join();
    jobsets_.stop();
    jobs_.stop();
    jobsets_thread.join();
    jobs_thread.join();
    if (http_thread.joinable()) {
      http.stop();
      http_thread.join();
    }
    return 0;
  }

 private:
  kube::ReflectorHandlers handlers(Cache::Map& target) {
    kube::ReflectorHandlers h;
    h.replace = [this, &target](const std::vector<Json>& items) {
      std::set<std::string> touched;
      cache_.replace(target, items, touched);
      for (const auto& k : touched) queue_.add(k);
    };
    h.event = [this, &target](const kube::WatchEvent& e) { queue_.add(cache_.apply(target, e)); };
    h.error = [](const std::string& what, const Failure& f) {
      log_line("warn", what + ": " + (f.code == 0 ? "" : std::to_string(f.code) + " ") + f.message);
    };
    return h;
  }

  bool leading() {
    std::lock_guard lock(lease_mu_);
    return elector_.leading(Clock::now());
  }

  void elect() {
    const std::string path = kube::group_path(
        "coordination.k8s.io/v1",
        options_.lease_namespace.empty() ? config_.ns : options_.lease_namespace, "leases");
    const std::string lease_path = path + "/" + options_.lease_name;
    bool was_leading = false;
    while (!stopping_) {
      std::optional<Json> lease;
      auto got = client_.get(lease_path);
      bool readable = true;
      if (got.ok()) {
        lease = std::move(got).value();
      } else if (got.failure().code != 404) {
        readable = false;
        if (!stopping_) log_line("warn", "get lease: " + got.failure().message);
      }
      if (readable) {
        const auto now = Clock::now();
        LeaseStep step;
        {
          std::lock_guard lock(lease_mu_);
          step = elector_.step(lease, now, micro_time(std::chrono::system_clock::now()));
        }
        if (step.action != LeaseStep::Action::kWait) {
          auto written = step.action == LeaseStep::Action::kCreate
                             ? client_.create(path, step.lease)
                             : client_.update(lease_path, step.lease);
          if (written.ok()) {
            std::lock_guard lock(lease_mu_);
            elector_.written(now);
          } else if (!stopping_ && written.failure().code != 409) {
            log_line("warn", "write lease: " + written.failure().message);
          }
        }
      }
      const bool is_leading = leading();
      if (is_leading != was_leading) {
        log_line("info", is_leading ? "became leader (Lease " + lease_path + ")"
                                    : "not leading (Lease " + lease_path + ")");
        metrics_.leader = is_leading ? 1 : 0;
        // Everything is looked at again by the new leader.
        if (is_leading) enqueue_all();
        was_leading = is_leading;
      }
      std::unique_lock lock(elector_mu_);
      elector_cv_.wait_for(lock, options_.lease.retry_period, [this] { return stopping_.load(); });
    }
    release_lease(lease_path);
    metrics_.leader = 0;
  }

  // As client-go's ReleaseOnCancel: the next candidate takes over at once, not a lease duration
  // after the last renewal.
  void release_lease(const std::string& lease_path) {
    auto got = client_.get(lease_path);
    if (!got.ok()) return;
    std::optional<Json> update;
    {
      std::lock_guard lock(lease_mu_);
      update = elector_.release(got.value(), micro_time(std::chrono::system_clock::now()));
    }
    if (!update) return;
    auto written = client_.update(lease_path, *update);
    log_line(written.ok() ? "info" : "warn", written.ok()
                                                 ? "released Lease " + lease_path
                                                 : "release lease: " + written.failure().message);
  }

  void enqueue_all() {
    for (const auto& k : cache_.jobset_keys()) queue_.add(k);
  }

  void work() {
    while (auto key = queue_.get()) {
      if (!leading()) {
        // Followers drop the key: enqueue_all() hands everything over on becoming leader.
        queue_.done(*key);
        continue;
      }
      const auto started = Clock::now();
      const Outcome outcome = reconciler_.reconcile(*key);
      metrics_.reconcile_duration.observe(Clock::now() - started);
      ++metrics_.reconciles;
      if (outcome == Outcome::kRetry) {
        ++metrics_.reconcile_errors;
        const int n = failures_[*key]++;
        queue_.add_after(
            *key,
            kube::Backoff{std::chrono::milliseconds(500), std::chrono::milliseconds(60000)}.delay(
                n, 0.5));
      } else {
        failures_.erase(*key);
        if (outcome == Outcome::kRecheck) queue_.add_after(*key, kNewerAttemptRecheck);
      }
      queue_.done(*key);
    }
  }

  const ControllerOptions options_;
  const kube::Config config_;
  kube::Client client_;
  ControllerMetrics metrics_;
  Cache cache_;
  WorkQueue queue_;
  LeaseElector elector_;
  kube::Reflector jobsets_;
  kube::Reflector jobs_;
  Reconciler reconciler_;  // worker thread only
  std::atomic<bool> stopping_{false};
  std::mutex lease_mu_;  // guards elector_, which the worker asks and the election loop moves
  std::mutex elector_mu_;
  std::condition_variable elector_cv_;
  std::map<std::string, int> failures_;  // worker thread only
};

}  // namespace

int run_scale_down_controller(const ControllerOptions& options, const std::atomic<bool>& stop) {
  auto config = options.kubeconfig.empty()
                    ? kube::in_cluster_config()
                    : kube::load_kubeconfig(options.kubeconfig, options.context);
  if (!config.ok()) {
    log_line("error", config.failure().message);
    return 2;
  }
  Controller controller(options, std::move(config).value());
  return controller.run(stop);
}

}  // namespace jobset_webhook::controller

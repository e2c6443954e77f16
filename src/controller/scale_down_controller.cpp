#include "jobset_webhook/controller/scale_down_controller.h"

#include <httplib.h>
#include <unistd.h>

#include <algorithm>
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
#include "scaler_reconciler.h"
#include "work_queue.h"
#include "jobset_webhook/kube/client.h"
#include "jobset_webhook/kube/reflector.h"
#include "jobset_webhook/metrics/exposition.h"
#include "jobset_webhook/metrics/histogram.h"
#include "jobset_webhook/metrics/process.h"
#include "jobset_webhook/runtime/plain_http_server.h"
#include "jobset_webhook/runtime/signals.h"
#include "jobset_webhook/runtime/time.h"

namespace jobset_webhook::controller {
namespace {

using Clock = std::chrono::steady_clock;

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
  Controller(const ControllerOptions& options, kube::Config config, const runtime::Log& log)
      : options_(options),
        config_(std::move(config)),
        log_(log),
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
        scalers_(client_,
                 kube::group_path(kScalerGroupVersion, options.watch_namespace, kScalerResource),
                 "", scaler_handlers(), kube::Backoff{}, options.watch_timeout_seconds),
        reconciler_(env(log, options)),
        scaler_reconciler_(env(log, options), [this] { return scalers_.synced(); }) {}

  // Serves the metrics port and starts the watches, the worker and the election. False when the
  // metrics port cannot be bound (nothing is started then).
  bool start() {
    if (options_.metrics_port != 0) {
      auto& http = http_.http();
      http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(metrics_.text(jobsets_.lists(), jobs_.lists(), scalers_.lists()),
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
      const int port = http_.start(options_.bind, std::max(options_.metrics_port, 0));
      if (port < 0) {
        log_.error("cannot bind the metrics port",
                   {{"address", options_.bind}, {"port", options_.metrics_port}});
        return false;
      }
      log_.info("metrics",
                {{"url", "http://" + options_.bind + ":" + std::to_string(port) + "/metrics"}});
    }
    log_.info("starting",
              {{"identity", elector_.identity()},
               {"apiServer", config_.host + ":" + std::to_string(config_.port)},
               {"namespace", options_.watch_namespace.empty() ? std::string("(all)")
                                                              : options_.watch_namespace}});
    threads_.emplace_back([this] { jobsets_.run(); });
    threads_.emplace_back([this] { jobs_.run(); });
    threads_.emplace_back([this] { work(); });
    threads_.emplace_back([this] { elect(); });
    threads_.emplace_back([this] { scalers_.run(); });
    return true;
  }

  void stop() {
    log_.info("stopping");
    stopping_ = true;
    // The reconcile in progress ends first, its Events included; then the Lease is handed over;
    // only then are the requests in flight (the watches) cancelled.
    queue_.shut_down();
    threads_[2].join();
    elector_cv_.notify_all();
    threads_[3].join();
    jobsets_.stop();
    jobs_.stop();
    scalers_.stop();
    threads_[0].join();
    threads_[1].join();
    threads_[4].join();
    http_.stop();
  }

 private:
  ReconcilerEnv env(const runtime::Log& log, const ControllerOptions& options) {
    return ReconcilerEnv{client_,
                         cache_,
                         metrics_,
                         [this] { return leading(); },
                         [] { return Clock::now(); },
                         log,
                         elector_.identity(),
                         [] { return std::chrono::system_clock::now(); },
                         options.default_notice_seconds};
  }

  kube::ReflectorHandlers handlers(Cache::Map& target) {
    kube::ReflectorHandlers h;
    h.replace = [this, &target](const std::vector<Json>& items) {
      std::set<std::string> touched;
      cache_.replace(target, items, touched);
      for (const auto& k : touched) queue_.add(k);
    };
    h.event = [this, &target](const kube::WatchEvent& e) { queue_.add(cache_.apply(target, e)); };
    h.error = [this](const std::string& what, const Failure& f) {
      log_.warn(what, {{"code", f.http_status}, {"error", f.message}});
    };
    return h;
  }

  // The scalers' CRD is optional: without it (404) the controller says so once and carries on
  // with JobSets; the watch keeps trying, so scalers are applied once the CRD is installed.
  kube::ReflectorHandlers scaler_handlers() {
    kube::ReflectorHandlers h = handlers(cache_.scalers);
    h.error = [this](const std::string& what, const Failure& f) {
      if (f.http_status != 404) {
        log_.warn(what, {{"code", f.http_status}, {"error", f.message}});
      } else if (!scaler_crd_missing_.exchange(true)) {
        log_.warn("the ReplicatedJobScaler CRD is not installed: no scaler is applied until it is",
                  {{"crd", "replicatedjobscalers.elastic.jobset-webhook.io"}});
      }
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
      } else if (got.failure().code != StatusCode::kNotFound) {
        readable = false;
        if (!stopping_) log_.warn("get lease", {{"error", got.failure().message}});
      }
      if (readable) {
        const auto now = Clock::now();
        LeaseStep step;
        {
          std::lock_guard lock(lease_mu_);
          step =
              elector_.step(lease, now, runtime::rfc3339_micro(std::chrono::system_clock::now()));
        }
        if (step.action != LeaseStep::Action::kWait) {
          auto written = step.action == LeaseStep::Action::kCreate
                             ? client_.create(path, step.lease)
                             : client_.update(lease_path, step.lease);
          if (written.ok()) {
            std::lock_guard lock(lease_mu_);
            elector_.written(now);
          } else if (!stopping_ && written.failure().code != StatusCode::kAborted) {
            log_.warn("write lease", {{"error", written.failure().message}});
          }
        }
      }
      const bool is_leading = leading();
      if (is_leading != was_leading) {
        log_.info(is_leading ? "became leader" : "not leading", {{"lease", lease_path}});
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
      update =
          elector_.release(got.value(), runtime::rfc3339_micro(std::chrono::system_clock::now()));
    }
    if (!update) return;
    auto written = client_.update(lease_path, *update);
    if (written.ok()) {
      log_.info("released the Lease", {{"lease", lease_path}});
    } else {
      log_.warn("release lease", {{"lease", lease_path}, {"error", written.failure().message}});
    }
  }

  void enqueue_all() {
    for (const auto& k : cache_.jobset_keys()) queue_.add(k);
  }

  void work() {
    while (auto key = queue_.get()) {
      if (!leading()) {
        // Followers drop the key: enqueue_all() hands everything over on becoming leader. What
        // the key counted while this replica led goes, so that a JobSet deleted meanwhile is
        // not counted when it leads again.
        reconciler_.forget(*key);
        queue_.done(*key);
        continue;
      }
      const auto started = Clock::now();
      // The scalers first: a scale they apply is then carried out by the same pass.
      const Outcome scaled = scaler_reconciler_.reconcile(*key);
      Outcome outcome = reconciler_.reconcile(*key);
      if (scaled == Outcome::kRetry) outcome = Outcome::kRetry;
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
        if (outcome == Outcome::kNotice) queue_.add_after(*key, reconciler_.notice_recheck());
      }
      queue_.done(*key);
    }
  }

  const ControllerOptions options_;
  const kube::Config config_;
  const runtime::Log& log_;
  kube::Client client_;
  ControllerMetrics metrics_;
  Cache cache_;
  WorkQueue queue_;
  LeaseElector elector_;
  kube::Reflector jobsets_;
  kube::Reflector jobs_;
  kube::Reflector scalers_;
  Reconciler reconciler_;               // worker thread only
  ScalerReconciler scaler_reconciler_;  // worker thread only
  std::atomic<bool> stopping_{false};
  std::atomic<bool> scaler_crd_missing_{false};  // said once
  std::mutex lease_mu_;  // guards elector_, which the worker asks and the election loop moves
  std::mutex elector_mu_;
  std::condition_variable elector_cv_;
  std::map<std::string, int> failures_;  // worker thread only
  // reflectors (JobSets, Jobs), worker, election, reflector (scalers)
  std::vector<std::thread> threads_;
  runtime::PlainHttpServer http_;
};

}  // namespace

int run_scale_down_controller(const ControllerOptions& options, const runtime::Log& log) {
  runtime::TerminationSignals signals;  // before any thread starts
  auto config = options.kubeconfig.empty()
                    ? kube::in_cluster_config()
                    : kube::load_kubeconfig(options.kubeconfig, options.context);
  if (!config.ok()) {
    log.error("cannot read the configuration", {{"error", config.failure().message}});
    return exit_code(config.failure());
  }
  Controller controller(options, std::move(config).value(), log);
  if (!controller.start()) return kExitFailed;
  log.info("received signal", {{"signal", signals.wait()}});
  controller.stop();
  return kExitOk;
}

}  // namespace jobset_webhook::controller

#pragma once

// Leader election through a coordination.k8s.io/v1 Lease, as client-go's leaderelection does
// it: the holder renews spec.renewTime every retry period; another candidate takes the Lease
// over only when it has seen the same record (holder and renewTime) unchanged for a whole
// leaseDurationSeconds by its own clock (no trust in clock agreement between machines); every
// write is an update at the resourceVersion read, so of two candidates racing only one wins.
// A holder that has not renewed for renew_deadline (< lease_duration) stops acting before
// anyone else may start.
//
// LeaseElector is the decision, a value in and a value out; the loop that gets and writes the
// Lease lives in scale_down_controller.cpp.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "jobset_webhook/json.h"

namespace jobset_webhook::controller {

struct LeaseTimings {
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
};

struct LeaseStep {
  enum class Action { kWait, kCreate, kUpdate };
  Action action = Action::kWait;
  Json lease;  // the body to create or update (at the resourceVersion read)
};

class LeaseElector {
 public:
  using Clock = std::chrono::steady_clock;

  LeaseElector(std::string ns, std::string name, std::string identity, LeaseTimings timings);

  // What to do given the Lease just read (nullopt: it does not exist). now_micro is the wall
  // time written into acquireTime/renewTime (RFC 3339 with microseconds, as MicroTime).
  LeaseStep step(const std::optional<Json>& lease, Clock::time_point now,
                 const std::string& now_micro);

  // On shutdown, as client-go's ReleaseOnCancel: when the Lease just read is ours, the update
  // that hands it over at once (holderIdentity empty, leaseDurationSeconds 1), and this elector
  // stops leading; nullopt when it is not ours.
  std::optional<Json> release(const std::optional<Json>& lease, const std::string& now_micro);

  // The write of the last step succeeded (we hold the Lease as of `at`) or failed.
  void written(Clock::time_point at);
  // True while the last successful write is younger than renew_deadline.
  bool leading(Clock::time_point now) const;
  const std::string& identity() const { return identity_; }

 private:
  std::string ns_;
  std::string name_;
  std::string identity_;
  LeaseTimings timings_;
  // The record last seen and when, by our clock.
  std::string observed_holder_;
  std::string observed_renew_;
  std::optional<Clock::time_point> observed_at_;
  std::optional<Clock::time_point> renewed_at_;
};

}  // namespace jobset_webhook::controller

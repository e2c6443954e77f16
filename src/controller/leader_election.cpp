#include "jobset_webhook/controller/leader_election.h"

#include <utility>
#include "jobset_webhook/json_access.h"

namespace jobset_webhook::controller {
namespace {

std::string spec_string(const Json& lease, const char* key) {
  return string_at(member(&lease, "spec"), key);
}

std::int64_t spec_int(const Json& lease, const char* key) {
  return integer_at(member(&lease, "spec"), key).value_or(0);
}

}  // namespace

LeaseElector::LeaseElector(std::string ns, std::string name, std::string identity,
                           LeaseTimings timings)
    : ns_(std::move(ns)),
      name_(std::move(name)),
      identity_(std::move(identity)),
      timings_(timings) {}

LeaseStep LeaseElector::step(const std::optional<Json>& lease, Clock::time_point now,
                             const std::string& now_micro) {
  LeaseStep out;
  const auto duration = static_cast<std::int64_t>(timings_.lease_duration.count());
  if (!lease || !lease->is_object()) {
    out.action = LeaseStep::Action::kCreate;
    out.lease = {{"apiVersion", "coordination.k8s.io/v1"},
                 {"kind", "Lease"},
                 {"metadata", {{"name", name_}, {"namespace", ns_}}},
                 {"spec",
                  {{"holderIdentity", identity_},
                   {"leaseDurationSeconds", duration},
                   {"acquireTime", now_micro},
                   {"renewTime", now_micro},
                   {"leaseTransitions", 0}}}};
    return out;
  }
  const std::string holder = spec_string(*lease, "holderIdentity");
  const std::string renew = spec_string(*lease, "renewTime");
  if (holder != observed_holder_ || renew != observed_renew_ || !observed_at_) {
    observed_holder_ = holder;
    observed_renew_ = renew;
    observed_at_ = now;
  }
  // The holder's own duration rules, as client-go reads it from the record.
  std::int64_t held_for = spec_int(*lease, "leaseDurationSeconds");
  if (held_for <= 0) held_for = duration;
  const bool expired = holder.empty() || now - *observed_at_ > std::chrono::seconds(held_for);
  if (holder != identity_ && !expired) {
    renewed_at_.reset();  // someone else leads: stop acting at once
    return out;
  }

  out.action = LeaseStep::Action::kUpdate;
  out.lease = *lease;  // keeps metadata.resourceVersion: the update is conditional on it
  auto& spec = out.lease["spec"];
  if (!spec.is_object()) spec = Json::object();
  if (holder != identity_) {
    spec["acquireTime"] = now_micro;
    spec["leaseTransitions"] = spec_int(*lease, "leaseTransitions") + 1;
  }
  spec["holderIdentity"] = identity_;
  spec["leaseDurationSeconds"] = duration;
  spec["renewTime"] = now_micro;
  return out;
}

std::optional<Json> LeaseElector::release(const std::optional<Json>& lease,
                                          const std::string& now_micro) {
  renewed_at_.reset();
  if (!lease || !lease->is_object() || spec_string(*lease, "holderIdentity") != identity_)
    return std::nullopt;
  Json out = *lease;  // at the resourceVersion read
  auto& spec = out["spec"];
  if (!spec.is_object()) spec = Json::object();
  spec["holderIdentity"] = "";
  spec["leaseDurationSeconds"] = 1;
  spec["acquireTime"] = now_micro;
  spec["renewTime"] = now_micro;
  return out;
}

void LeaseElector::written(Clock::time_point at) { renewed_at_ = at; }

bool LeaseElector::leading(Clock::time_point now) const {
  return renewed_at_ && now - *renewed_at_ < timings_.renew_deadline;
}

}  // namespace jobset_webhook::controller

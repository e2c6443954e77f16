#include "jobset_webhook/controller/leader_election.h"

#include <catch2/catch.hpp>
#include <chrono>

using jobset_webhook::Json;
using namespace jobset_webhook::controller;
using namespace std::chrono_literals;
using Action = LeaseStep::Action;

namespace {

LeaseTimings timings() { return LeaseTimings{15s, 10s, 2s}; }

Json lease(const std::string& holder, const std::string& renew, int transitions = 0) {
  return Json{{"apiVersion", "coordination.k8s.io/v1"},
              {"kind", "Lease"},
              {"metadata", {{"name", "l"}, {"namespace", "ns"}, {"resourceVersion", "42"}}},
              {"spec",
               {{"holderIdentity", holder},
                {"leaseDurationSeconds", 15},
                {"renewTime", renew},
                {"leaseTransitions", transitions}}}};
}

}  // namespace

TEST_CASE("A missing Lease is created with us as holder", "[controller][leader_election]") {
  LeaseElector e("ns", "l", "me", timings());
  const auto t0 = LeaseElector::Clock::time_point{};
  const auto s = e.step(std::nullopt, t0, "2026-12-01T15:00:00.000000Z");
  CHECK(s.action == Action::kCreate);
  CHECK(s.lease["metadata"] == Json{{"name", "l"}, {"namespace", "ns"}});
  CHECK(s.lease["spec"]["holderIdentity"] == "me");
  CHECK(s.lease["spec"]["leaseDurationSeconds"] == 15);
  CHECK(s.lease["spec"]["renewTime"] == "2026-12-01T15:00:00.000000Z");
  CHECK_FALSE(e.leading(t0));
  e.written(t0);
  CHECK(e.leading(t0 + 9s));
  CHECK_FALSE(e.leading(t0 + 10s));  // renew deadline: stop acting before anyone may take over
}

TEST_CASE("Another holder's Lease is taken over only after it went unrenewed for its duration",
          "[controller][leader_election]") {
  LeaseElector e("ns", "l", "me", timings());
  const auto t0 = LeaseElector::Clock::time_point{} + 100s;
  CHECK(e.step(lease("other", "r1"), t0, "now").action == Action::kWait);
  CHECK(e.step(lease("other", "r1"), t0 + 15s, "now").action == Action::kWait);
  // Renewed: the clock starts again from when we saw the change.
  CHECK(e.step(lease("other", "r2"), t0 + 16s, "now").action == Action::kWait);
  CHECK(e.step(lease("other", "r2"), t0 + 30s, "now").action == Action::kWait);
  const auto s = e.step(lease("other", "r2", 3), t0 + 32s, "T");
  REQUIRE(s.action == Action::kUpdate);
  CHECK(s.lease["metadata"]["resourceVersion"] == "42");  // conditional on what was read
  CHECK(s.lease["spec"]["holderIdentity"] == "me");
  CHECK(s.lease["spec"]["acquireTime"] == "T");
  CHECK(s.lease["spec"]["renewTime"] == "T");
  CHECK(s.lease["spec"]["leaseTransitions"] == 4);
}

TEST_CASE("The holder renews its own Lease; losing it stops acting at once",
          "[controller][leader_election]") {
  LeaseElector e("ns", "l", "me", timings());
  const auto t0 = LeaseElector::Clock::time_point{} + 100s;
  const auto s = e.step(lease("me", "r1", 2), t0, "T2");
  REQUIRE(s.action == Action::kUpdate);
  CHECK(s.lease["spec"]["renewTime"] == "T2");
  CHECK(s.lease["spec"]["leaseTransitions"] == 2);  // no transition on a renewal
  CHECK_FALSE(s.lease["spec"].contains("acquireTime"));
  e.written(t0);
  CHECK(e.leading(t0 + 1s));
  // Someone else wrote the Lease (we were partitioned past the duration): we stop.
  CHECK(e.step(lease("other", "r9"), t0 + 2s, "T3").action == Action::kWait);
  CHECK_FALSE(e.leading(t0 + 2s));
}

TEST_CASE("A Lease without a holder is taken at once", "[controller][leader_election]") {
  LeaseElector e("ns", "l", "me", timings());
  const auto s = e.step(lease("", ""), LeaseElector::Clock::time_point{}, "T");
  CHECK(s.action == Action::kUpdate);
  CHECK(s.lease["spec"]["holderIdentity"] == "me");
}

TEST_CASE("On shutdown the holder hands its Lease over at once, and only its own",
          "[controller][leader_election]") {
  LeaseElector e("ns", "l", "me", timings());
  const auto t0 = LeaseElector::Clock::time_point{} + 100s;
  e.written(t0);
  const auto released = e.release(lease("me", "r1", 2), "T");
  REQUIRE(released);
  CHECK(released->at("metadata").at("resourceVersion") == "42");
  CHECK(released->at("spec").at("holderIdentity") == "");
  CHECK(released->at("spec").at("leaseDurationSeconds") == 1);
  CHECK(released->at("spec").at("renewTime") == "T");
  CHECK(released->at("spec").at("leaseTransitions") == 2);
  CHECK_FALSE(e.leading(t0));  // stops acting before the write
  // The next candidate takes it without waiting a lease duration.
  LeaseElector next("ns", "l", "next", timings());
  CHECK(next.step(*released, t0, "T").action == Action::kUpdate);
  // Someone else's Lease is left as it is.
  CHECK_FALSE(e.release(lease("other", "r1"), "T"));
  CHECK_FALSE(e.release(std::nullopt, "T"));
}

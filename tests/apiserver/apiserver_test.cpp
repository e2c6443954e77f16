#include "jobset_webhook/apiserver/apiserver.h"

#include <catch2/catch.hpp>

#include "jobset_webhook/field/error.h"
#include "support/jobset_builder.h"

namespace apiserver = jobset_webhook::apiserver;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::MakeJobSet;
using jobset_webhook::testing::MakeReplicatedJob;

TEST_CASE("What the cluster stores of a manifest: unknown fields pruned, then the defaults",
          "[apiserver]") {
  const Json sent = MakeJobSet("js")
                        .ReplicatedJob(MakeReplicatedJob("w").Unset("/replicas"))
                        .Set("/spec/replicatedJobs/0/colour", "blue")
                        .Obj();
  const auto stored = apiserver::store(sent);
  REQUIRE(stored.ok());
  REQUIRE(stored.value().unknown.size() == 1);
  CHECK(apiserver::unknown_field_message(stored.value().unknown[0]) ==
        "unknown field \"spec.replicatedJobs[0].colour\"");
  const Json& rjob = stored.value().object.at("spec").at("replicatedJobs").at(0);
  CHECK_FALSE(rjob.contains("colour"));
  CHECK(rjob.at("replicas") == 1);  // the CRD's default
  CHECK(stored.value().object.at("spec").at("successPolicy") ==
        Json{{"operator", "All"}});  // the mutating webhook's
  // What the cluster stores needs nothing more.
  const auto again = apiserver::store(stored.value().object);
  REQUIRE(again.ok());
  CHECK(again.value().object == stored.value().object);
  CHECK(again.value().unknown.empty());
}

TEST_CASE("An UPDATE is refused by the CRD's schema before the webhook judges it", "[apiserver]") {
  const auto stored = [](const Json& js) {
    auto s = apiserver::store(js);
    REQUIRE(s.ok());
    return std::move(s.value().object);
  };
  const Json old_js = stored(MakeJobSet("js").ReplicatedJob(MakeReplicatedJob("w")).Obj());
  // A negative TTL (the schema's minimum) and a changed image (the webhook's immutability): only
  // the schema speaks, as the API server never calls the webhook.
  const Json new_js = stored(MakeJobSet("js")
                                 .ReplicatedJob(MakeReplicatedJob("w").Image("other"))
                                 .Set("/spec/ttlSecondsAfterFinished", -5)
                                 .Obj());
  const auto refused = apiserver::admit(new_js, &old_js, "js", Policy{});
  REQUIRE(refused.ok());
  CHECK_FALSE(refused.value().allowed);
  CHECK(jobset_webhook::field::to_string(refused.value().errors) ==
        "spec.ttlSecondsAfterFinished: Invalid value: -5: spec.ttlSecondsAfterFinished in body "
        "should be greater than or equal to 0");
  // Without the schema error, the webhook's.
  const Json image_only =
      stored(MakeJobSet("js").ReplicatedJob(MakeReplicatedJob("w").Image("other")).Obj());
  const auto judged = apiserver::admit(image_only, &old_js, "js", Policy{});
  REQUIRE(judged.ok());
  CHECK_FALSE(judged.value().allowed);
  CHECK(jobset_webhook::field::to_string(judged.value().errors).find("field is immutable") !=
        std::string::npos);
  // A CREATE is decide's: its schema is part of the CREATE rules.
  const auto created = apiserver::admit(old_js, nullptr, "js", Policy{});
  REQUIRE(created.ok());
  CHECK(created.value().allowed);
}

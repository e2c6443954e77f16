#include "server/access_log.h"

#include <catch2/catch.hpp>

namespace server = jobset_webhook::server;

TEST_CASE("An access-log line carries the review's identity, decision, code and latency",
          "[server][access_log]") {
  server::AccessRecord record;
  record.method = "POST";
  record.path = "/validate-jobset-x-k8s-io-v1alpha2-jobset";
  record.remote = "127.0.0.1:51234";
  record.code = 200;
  record.latency_us = 412;
  record.review = jobset_webhook::admission::ReviewSummary{
      "u-1", "UPDATE", "default", "training",
      true,  false,    422,       {"spec.replicatedJobs[0].replicas"}};
  CHECK(
      server::access_fields(record).dump() ==
      R"({"method":"POST","path":"/validate-jobset-x-k8s-io-v1alpha2-jobset","remote":"127.0.0.1:51234",)"
      R"("code":200,"latencyUs":412,"uid":"u-1","operation":"UPDATE","namespace":"default","name":"training",)"
      R"("dryRun":true,"allowed":false})");
}

TEST_CASE("A refused request's access-log line says why, without review fields",
          "[server][access_log]") {
  server::AccessRecord record;
  record.method = "GET";
  record.path = "/validate-jobset-x-k8s-io-v1alpha2-jobset";
  record.remote = "127.0.0.1:51234";
  record.code = 405;
  record.latency_us = 20;
  record.error = "method GET is not allowed; use POST";
  CHECK(
      server::access_fields(record).dump() ==
      R"({"method":"GET","path":"/validate-jobset-x-k8s-io-v1alpha2-jobset","remote":"127.0.0.1:51234",)"
      R"("code":405,"latencyUs":20,"error":"method GET is not allowed; use POST"})");
}

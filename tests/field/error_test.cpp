#include "jobset_webhook/field/error.h"

#include <catch2/catch.hpp>

namespace field = jobset_webhook::field;
using field::BadValue;
using field::Path;

TEST_CASE("Error lines follow apimachinery's format", "[field][error]") {
  const auto image = Path("spec")
                         .child("replicatedJobs")
                         .index(1)
                         .child("template", "spec", "template", "spec", "containers")
                         .index(0)
                         .child("image");
  CHECK(
      field::invalid(image, BadValue::string("bash:5.2"), "field is immutable").to_string() ==
      R"(spec.replicatedJobs[1].template.spec.template.spec.containers[0].image: Invalid value: "bash:5.2": field is immutable)");
  CHECK(field::too_long(Path("spec").child("managedBy"), 63).to_string() ==
        "spec.managedBy: Too long: may not be more than 63 bytes");
  CHECK(field::required(Path("spec").child("replicatedJobs"), "").to_string() ==
        "spec.replicatedJobs: Required value");
  CHECK(field::forbidden(Path("spec"), "no").to_string() == "spec: Forbidden: no");
  CHECK(field::internal_error(Path(), "DependsOn can't be set for the first ReplicatedJob")
            .to_string() ==
        "<nil>: Internal error: DependsOn can't be set for the first ReplicatedJob");
  CHECK(field::not_supported(Path("x"), BadValue::string("c"), {"a", "b"}).to_string() ==
        R"(x: Unsupported value: "c": supported values: "a", "b")");
  CHECK(field::duplicate(Path("x"), BadValue::string("a")).to_string() ==
        R"(x: Duplicate value: "a")");
  CHECK(field::not_found(Path("x"), BadValue::string("a")).to_string() == R"(x: Not found: "a")");
  CHECK(field::too_many(Path("x"), 6, 5).to_string() ==
        "x: Too many: 6: must have at most 5 items");
}

TEST_CASE("Cause reasons are Kubernetes' CauseType strings", "[field][error]") {
  CHECK(field::cause_reason(field::ErrorType::kInvalid) == "FieldValueInvalid");
  CHECK(field::cause_reason(field::ErrorType::kForbidden) == "FieldValueForbidden");
  CHECK(field::cause_reason(field::ErrorType::kInternal) == "InternalError");
}

TEST_CASE("A list prints one error alone and several in brackets, duplicates dropped",
          "[field][error]") {
  const auto a = field::forbidden(Path("a"), "x");
  const auto b = field::forbidden(Path("b"), "y");
  CHECK(field::to_string({}) == "");
  CHECK(field::to_string({a}) == "a: Forbidden: x");
  CHECK(field::to_string({a, b, a}) == "[a: Forbidden: x, b: Forbidden: y]");
}

TEST_CASE("A long list is capped with a count of what was left out", "[field][error]") {
  field::ErrorList errs;
  for (int i = 0; i < 13; ++i) errs.push_back(field::forbidden(Path("f").index(i), "x"));
  const auto s = field::to_string(errs);
  CHECK(s.find("f[9]: Forbidden: x, and 3 more]") != std::string::npos);
  CHECK(s.find("f[10]") == std::string::npos);
}

TEST_CASE("An error's origin is neither printed nor compared, and dedup keeps the first",
          "[field][error]") {
  auto a = field::internal_error(Path(), "invalid replicatedJob name 'x'");
  auto b = a;
  a.origin = "spec.successPolicy.targetReplicatedJobs[0]";
  b.origin = "spec.successPolicy.targetReplicatedJobs[1]";
  CHECK(a.to_string() == "<nil>: Internal error: invalid replicatedJob name 'x'");
  CHECK(a == b);
  const auto unique = field::deduplicated({a, b});
  REQUIRE(unique.size() == 1);
  CHECK(unique[0].origin == "spec.successPolicy.targetReplicatedJobs[0]");
  CHECK(field::to_string({a, b}) == a.to_string());
}

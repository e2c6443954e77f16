#include "validation/field_kinds.h"

#include <catch2/catch.hpp>

namespace v = jobset_webhook::validation;

TEST_CASE("The kind table knows pointer fields from value fields", "[validation][field_kinds]") {
  const auto* parallelism = v::find_kind("template.spec.parallelism");
  REQUIRE(parallelism);
  CHECK(parallelism->pointer);
  CHECK(parallelism->shape == v::Shape::kScalar);
  CHECK(parallelism->scalar == v::ScalarKind::kInteger);

  const auto* image = v::find_kind("template.spec.template.spec.containers[].image");
  REQUIRE(image);
  CHECK_FALSE(image->pointer);
  CHECK(image->scalar == v::ScalarKind::kString);
}

TEST_CASE("The kind table describes lists, maps and special scalars", "[validation][field_kinds]") {
  const auto* containers = v::find_kind("template.spec.template.spec.containers");
  REQUIRE(containers);
  CHECK(containers->shape == v::Shape::kSlice);
  REQUIRE(containers->element);
  CHECK(containers->element->shape == v::Shape::kStruct);
  CHECK(containers->element->field("image") != nullptr);

  const auto* limits = v::find_kind("template.spec.template.spec.containers[].resources.limits");
  REQUIRE(limits);
  CHECK(limits->shape == v::Shape::kMap);
  CHECK(limits->element->scalar == v::ScalarKind::kQuantity);

  const auto* args = v::find_kind("template.spec.template.spec.containers[].args");
  REQUIRE(args);
  CHECK(args->element->shape == v::Shape::kScalar);

  const auto* port =
      v::find_kind("template.spec.template.spec.containers[].livenessProbe.httpGet.port");
  REQUIRE(port);
  CHECK(port->scalar == v::ScalarKind::kIntOrString);

  CHECK(v::find_kind("template.spec.noSuchField") == nullptr);
}

TEST_CASE("The kind table covers the ReplicatedJob's own fields", "[validation][field_kinds]") {
  const auto& rj = v::replicated_job_kind();
  for (const char* name : {"name", "groupName", "replicas", "dependsOn", "template"}) {
    DYNAMIC_SECTION(name) { CHECK(rj.field(name) != nullptr); }
  }
  CHECK(rj.field("dependsOn")->shape == v::Shape::kSlice);
}

// types.UID is `type UID string` (k8s.io/apimachinery pkg/types/uid.go), which
// Semantic.DeepEqual compares as the string it is. The hand-kept table called it "special"; the
// generated one (tests/e2e/jobset/cmd/fieldkinds) knows it by its Go kind.
TEST_CASE("A uid is a plain string", "[validation][field_kinds]") {
  for (const char* path : {"template.metadata.uid", "template.metadata.ownerReferences[].uid",
                           "template.spec.template.metadata.uid",
                           "template.spec.template.spec.volumes[].ephemeral.volumeClaimTemplate."
                           "metadata.ownerReferences[].uid"}) {
    DYNAMIC_SECTION(path) {
      const auto* uid = v::find_kind(path);
      REQUIRE(uid);
      CHECK_FALSE(uid->pointer);
      CHECK(uid->shape == v::Shape::kScalar);
      CHECK(uid->scalar == v::ScalarKind::kString);
    }
  }
}

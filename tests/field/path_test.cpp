#include "jobset_webhook/field/path.h"

#include <catch2/catch.hpp>

using jobset_webhook::field::Path;

TEST_CASE("Path prints indices in brackets and keys unquoted", "[field][path]") {
  CHECK(Path("metadata").child("labels").key("app").to_string() == "metadata.labels[app]");
  CHECK(Path("spec")
            .child("replicatedJobs")
            .index(1)
            .child("template", "spec", "template", "spec", "containers")
            .index(0)
            .child("image")
            .to_string() ==
        "spec.replicatedJobs[1].template.spec.template.spec.containers[0].image");
}

TEST_CASE("An empty path prints as Go prints a nil path", "[field][path]") {
  CHECK(Path().to_string() == "<nil>");
}

TEST_CASE("Path push and pop walk down and back up", "[field][path]") {
  Path p("spec");
  p.push_child("replicatedJobs");
  p.push_index(3);
  CHECK(p.to_string() == "spec.replicatedJobs[3]");
  p.pop();
  p.push_key("a.b/c");
  CHECK(p.to_string() == "spec.replicatedJobs[a.b/c]");
}

TEST_CASE("Path prints map keys as fields in kube-openapi's notation", "[field][path]") {
  const auto p = Path("spec").child("limits").key("nvidia.com/gpu");
  CHECK(p.to_openapi_string() == "spec.limits.nvidia.com/gpu");
  CHECK(p.to_string() == "spec.limits[nvidia.com/gpu]");
  CHECK(Path("a").index(2).key("k").child("b").to_openapi_string() == "a[2].k.b");
}

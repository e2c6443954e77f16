// KustomizationTree::trace without kustomize: the rendered object is written by hand, as
// `kubectl kustomize` renders these trees (tests/cli/kustomize_test.cpp runs the tool on the same
// forms). Positions are literal "line:column"s of the texts below, numbered in their comments.

#include "cli/kustomize_origin.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "support/files.h"
#include "support/repository.h"

namespace cli = jobset_webhook::cli;
namespace fs = std::filesystem;
using jobset_webhook::Json;
using jobset_webhook::testing::jobset_yaml;
using jobset_webhook::testing::ScratchDir;

namespace {

const std::string kImage = "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image";
const std::string kReplicas = "/spec/replicatedJobs/0/replicas";

// A strategic-merge patch that sets the image, its lines behind indent spaces; the image is on its
// line 13, at column 15 of the patch.
std::string merge_patch(const std::string& indent) {
  std::string out;
  for (const char* line :
       {"apiVersion: jobset.x-k8s.io/v1alpha2", "kind: JobSet", "metadata: {name: train}",
        "spec:", "  replicatedJobs:", "  - name: workers",
        "    template:", "      spec:", "        template:", "          spec:",
        "            containers:", "            - name: main", "              image: trainer:2"}) {
    out += indent + line + "\n";
  }
  return out;
}

// A JSON 6902 patch that sets the image; its value is on its line 3, at column 3 of the patch.
std::string json_patch(const std::string& indent) {
  return indent + "- op: replace\n" + indent + "  path: " + kImage + "\n" + indent +
         "  value: trainer:2\n";
}

// The JobSet of jobset.yaml as the kustomization renders it (a merge patch replaces the list).
Json rendered() {
  return Json::parse(R"({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
    "metadata": {"name": "train"}, "spec": {"replicatedJobs": [{"name": "workers", "replicas": 3,
    "template": {"spec": {"template": {"spec": {"containers": [
      {"name": "main", "image": "trainer:2"}]}}}}}]}})");
}

std::string text(const cli::Mark& mark) {
  return std::to_string(mark.line) + ":" + std::to_string(mark.column);
}

// "<entry> <source>": where trace places the field at pointer, in a tree of the base's jobset.yaml
// (which writes the same image, so that a patch not traced falls back to it) and kustomization.
std::string traced(const ScratchDir& dir, const std::string& kustomization,
                   const std::string& pointer = kImage) {
  dir.write("jobset.yaml", jobset_yaml("train", "trainer:2", 1));
  dir.write("kustomization.yaml", "resources:\n- jobset.yaml\n" + kustomization);
  const cli::KustomizationTree tree(dir.path(), [&](const std::string& file) {
    return fs::path(file).lexically_relative(dir.path()).string();
  });
  const auto origins = tree.trace(rendered());
  const auto entry = origins.in_kustomization.find(pointer);
  const auto source = origins.sources.find(pointer);
  return (entry == origins.in_kustomization.end() ? "none" : text(entry->second)) + " " +
         (source == origins.sources.end() ? "none" : source->second.to_string());
}

}  // namespace

TEST_CASE("A field an inline patch sets is written at its line in the kustomization",
          "[cli][kustomize_origin]") {
  struct Case {
    std::string name;
    std::string kustomization;  // after "resources:\n- jobset.yaml\n", lines 1 and 2
    std::string want;           // "<entry> <source>"
  };
  const std::vector<Case> cases = {
      {"patches, a JSON 6902 patch in a |- block",
       "patches:\n"                               // 3
       "- target: {kind: JobSet, name: train}\n"  // 4
       "  patch: |-\n" +                          // 5
           json_patch("    "),                    // 6-8
       "4:3 kustomization.yaml:8:7"},
      {"patches, a strategic-merge patch in a | block",
       "patches:\n"              // 3
       "- patch: |\n" +          // 4
           merge_patch("    "),  // 5-17
       "4:3 kustomization.yaml:17:19"},
      {"patchesStrategicMerge, an entry that is a |- block",
       "patchesStrategicMerge:\n"  // 3
       "- |-\n" +                  // 4
           merge_patch("  "),      // 5-17
       "4:3 kustomization.yaml:17:17"},
      {"patchesJson6902, a patch in a |+ block",
       "patchesJson6902:\n"                                                                  // 3
       "- target: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet, name: train}\n"  // 4
       "  patch: |+\n" +                                                                     // 5
           json_patch("    "),                                                               // 6-8
       "4:3 kustomization.yaml:8:7"},
      {"an indentation indicator: the text's own indentation stays in it",
       "patches:\n"                               // 3
       "- target: {kind: JobSet, name: train}\n"  // 4
       "  patch: |2\n" +                          // 5: the block is indented 2 + 2
           json_patch("      "),                  // 6-8: "  value" in the text
       "4:3 kustomization.yaml:8:9"},
      {"a folded block: written at the patch's key, its lines are not the patch's",
       "patches:\n"                               // 3
       "- target: {kind: JobSet, name: train}\n"  // 4
       "  patch: >\n"                             // 5
       "    {\"apiVersion\": \"jobset.x-k8s.io/v1alpha2\", \"kind\": \"JobSet\",\n"
       "    \"metadata\": {\"name\": \"train\"}, \"spec\": {\"replicatedJobs\": [{\"name\":\n"
       "    \"workers\", \"template\": {\"spec\": {\"template\": {\"spec\": {\"containers\":\n"
       "    [{\"name\": \"main\", \"image\": \"trainer:2\"}]}}}}}]}}\n",
       "4:3 kustomization.yaml:5:3"},
      {"a quoted flow scalar: written at the entry itself",
       "patchesStrategicMerge:\n"  // 3
       "- '{\"apiVersion\": \"jobset.x-k8s.io/v1alpha2\", \"kind\": \"JobSet\", \"metadata\": "
       "{\"name\": \"train\"}, \"spec\": {\"replicatedJobs\": [{\"name\": \"workers\", "
       "\"template\": {\"spec\": {\"template\": {\"spec\": {\"containers\": [{\"name\": "
       "\"main\", \"image\": \"trainer:2\"}]}}}}}]}}'\n",  // 4
       "4:3 kustomization.yaml:4:3"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      ScratchDir dir;
      CHECK(traced(dir, c.kustomization) == c.want);
    }
  }
}

TEST_CASE("An inline patch and a patch file of one kustomization are each traced to their own",
          "[cli][kustomize_origin]") {
  ScratchDir dir;
  dir.write("replicas.yaml", "- op: replace\n  path: " + kReplicas + "\n  value: 3\n");
  const std::string kustomization =
      "patches:\n"                               // 3
      "- path: replicas.yaml\n"                  // 4
      "  target: {kind: JobSet, name: train}\n"  // 5
      "- target: {kind: JobSet, name: train}\n"  // 6
      "  patch: |-\n" +                          // 7
      json_patch("    ");                        // 8-10
  CHECK(traced(dir, kustomization) == "6:3 kustomization.yaml:10:7");
  CHECK(traced(dir, kustomization, kReplicas) == "4:3 replicas.yaml:3:3");
}

TEST_CASE("Of patches that write a field, the one kustomize applies last is traced",
          "[cli][kustomize_origin]") {
  // kustomize applies patchesStrategicMerge, then patches, then patchesJson6902, each list in its
  // order, wherever they stand in the file (kubectl v1.32, kustomize v5.5.0, renders the field
  // with the value of the last).
  ScratchDir dir;
  CHECK(traced(dir,
               "patchesJson6902:\n"                           // 3
               "- target: {kind: JobSet, name: train}\n"      // 4
               "  patch: |-\n" +                              // 5
                   json_patch("    ") +                       // 6-8
                   "patches:\n"                               // 9
                   "- target: {kind: JobSet, name: train}\n"  // 10
                   "  patch: |-\n" +                          // 11
                   json_patch("    ") +                       // 12-14
                   "- target: {kind: JobSet, name: train}\n"  // 15
                   "  patch: |-\n" +                          // 16
                   json_patch("    ")) ==                     // 17-19
        "4:3 kustomization.yaml:8:7");
  CHECK(traced(dir,
               "patches:\n"                                   // 3
               "- target: {kind: JobSet, name: train}\n"      // 4
               "  patch: |-\n" +                              // 5
                   json_patch("    ") +                       // 6-8
                   "- target: {kind: JobSet, name: train}\n"  // 9
                   "  patch: |-\n" +                          // 10
                   json_patch("    ") +                       // 11-13
                   "patchesStrategicMerge:\n"                 // 14
                   "- |-\n" +                                 // 15
                   merge_patch("  ")) ==                      // 16-28
        "9:3 kustomization.yaml:13:7");
  // An operation that writes another value at the field is not where the rendered value comes
  // from (a patch of another object, or one overwritten later).
  CHECK(traced(dir,
               "patches:\n"                               // 3
               "- target: {kind: JobSet, name: other}\n"  // 4
               "  patch: |-\n"                            // 5
               "    - {op: replace, path: " +
                   kImage + ", value: other:1}\n") ==  // 6
        "none jobset.yaml:15:15");
}

TEST_CASE("Without a patch that sets it, a field is written where a file of the tree writes it",
          "[cli][kustomize_origin]") {
  // The control for the cases above: the base's jobset.yaml writes the same image.
  ScratchDir dir;
  CHECK(traced(dir, "namePrefix: prod-\n") == "none jobset.yaml:15:15");
}

TEST_CASE("A strategic-merge patch that writes spec.replicatedJobs is told what it drops",
          "[cli][kustomize_origin]") {
  // kustomize replaces a custom resource's list whole (tests/cli/kustomize_test.cpp shows it on
  // the real tool): what the base's entry writes and the render lacks is reported, at the patch.
  const std::string with_image = R"({"name": "workers", "template": {"spec": {"template": {"spec":
      {"containers": [{"name": "main", "image": "trainer:2"}]}}}}})";
  const auto drops = [](const std::string& kustomization, const std::string& rendered_jobs) {
    ScratchDir dir;
    dir.write("jobset.yaml", jobset_yaml("train", "trainer:1", 3));
    dir.write("kustomization.yaml", "resources:\n- jobset.yaml\n" + kustomization);
    const cli::KustomizationTree tree(dir.path(), [&](const std::string& file) {
      return fs::path(file).lexically_relative(dir.path()).string();
    });
    std::vector<std::string> out;
    const Json rendered = Json::parse(R"({"apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet", "metadata": {"name": "train"}, "spec": {"replicatedJobs": )" +
                                      rendered_jobs + "}}");
    for (const auto& drop : tree.merge_drops(rendered)) {
      out.push_back(drop.where.to_string() + " " + drop.text);
    }
    return out;
  };
  const std::string advice =
      ": write the change as a JSON 6902 patch, or restate the dropped fields in the patch";
  const std::string replaces =
      "a strategic-merge patch replaces spec.replicatedJobs whole (kustomize merges no list of a "
      "custom resource by key), dropping ";

  SECTION("replicas the patch leaves out") {
    CHECK(drops("patches:\n- path: image.yaml\n", "[" + with_image + "]").empty());  // no file
    CHECK(drops("patches:\n"                                                         // 3
                "- patch: |-\n" +                                                    // 4
                    merge_patch("    "),
                "[" + with_image + "]") ==
          std::vector<std::string>{"kustomization.yaml:4:3 spec.replicatedJobs[0]: " + replaces +
                                   "replicas (3), which jobset.yaml:7:5 writes" + advice});
  }
  SECTION("the whole template, when the patch writes replicas alone") {
    CHECK(drops("patchesStrategicMerge:\n"  // 3
                "- |-\n"                    // 4
                "  apiVersion: jobset.x-k8s.io/v1alpha2\n"
                "  kind: JobSet\n"
                "  metadata: {name: train}\n"
                "  spec: {replicatedJobs: [{name: workers, replicas: 4}]}\n",
                R"([{"name": "workers", "replicas": 4}])") ==
          std::vector<std::string>{
              "kustomization.yaml:4:3 spec.replicatedJobs[0]: " + replaces +
              "template.spec.template.spec.containers[0].name (\"main\"), "
              "template.spec.template.spec.containers[0].image (\"trainer:1\"), which "
              "jobset.yaml:7:5 writes" +
              advice});
  }
  SECTION("a replicatedJob the patch leaves out") {
    CHECK(drops("patches:\n"  // 3
                "- patch: |-\n"
                "    apiVersion: jobset.x-k8s.io/v1alpha2\n"
                "    kind: JobSet\n"
                "    metadata: {name: train}\n"
                "    spec: {replicatedJobs: [{name: other, replicas: 1}]}\n",
                R"([{"name": "other", "replicas": 1}])") ==
          std::vector<std::string>{"kustomization.yaml:4:3 spec.replicatedJobs: " + replaces +
                                   "the replicatedJob workers that jobset.yaml:7:5 writes" +
                                   advice});
  }
  SECTION("nothing, when the patch restates what the base writes or is a JSON 6902 patch") {
    const std::string restated = R"({"name": "workers", "replicas": 3, "template": {"spec":
        {"template": {"spec": {"containers": [{"name": "main", "image": "trainer:2"}]}}}}})";
    CHECK(drops("patches:\n- patch: |-\n" + merge_patch("    ") + "    replicas: 3\n",
                "[" + restated + "]")
              .empty());
    CHECK(drops("patches:\n- target: {kind: JobSet}\n  patch: |-\n" + json_patch("    "),
                "[" + restated + "]")
              .empty());
    CHECK(drops("patches:\n- patch: |-\n" + merge_patch("    "),
                "[" + restated + "]")  // a later patch put replicas back
              .empty());
  }
  SECTION("a patch of another JobSet drops nothing of this one's base") {
    std::string other = merge_patch("    ");
    other.replace(other.find("name: train"), 11, "name: else");
    CHECK(drops("patches:\n- patch: |-\n" + other, "[" + with_image + "]").empty());
  }
}

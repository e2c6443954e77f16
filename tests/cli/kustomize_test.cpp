// `check` on kustomize trees (docs/ci-gating.md, "Kustomize overlays"): every kustomization is
// rendered with the real tool, on both sides (--old/--new, and --base REF through an export of
// the commit), its JobSets paired by identity and their findings placed in the kustomization.
// [kubectl]: the tool is needed (kubectl's own kustomize, or kustomize, on PATH); the group is
// skipped where kubectl is missing.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "support/files.h"
#include "support/process.h"
#include "support/repository.h"

namespace fs = std::filesystem;
using jobset_webhook::testing::first_line;
using jobset_webhook::testing::git_commit_all;
using jobset_webhook::testing::git_init;
using jobset_webhook::testing::have;
using jobset_webhook::testing::jobset_yaml;
using jobset_webhook::testing::position_of;
using jobset_webhook::testing::ProcessResult;
using jobset_webhook::testing::run_in;
using jobset_webhook::testing::ScratchDir;
using jobset_webhook::testing::slurp;

namespace {

const std::string kImageLine =
    "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: Invalid value: ";

// A base with one JobSet and an overlay that sets its namespace, a name prefix, the image tag
// (images:) and the replicas (a JSON 6902 patch). `bases:` and `patchesJson6902` are read by the
// kustomize v2 of Debian bookworm's kubectl and by current ones (v5 adds a deprecation notice).
struct Tree {
  const ScratchDir& dir;
  std::string root;

  void write_base(const std::string& image = "trainer") const {
    dir.write(root + "/base/jobset.yaml", jobset_yaml("train", image, 1));
    dir.write(root + "/base/kustomization.yaml", "resources:\n- jobset.yaml\n");
  }
  void write_overlay(const std::string& tag, int replicas) const {
    dir.write(root + "/overlays/prod/kustomization.yaml",
              "bases:\n- ../../base\nnamespace: prod\nnamePrefix: prod-\nimages:\n- name: trainer\n"
              "  newTag: \"" +
                  tag +
                  "\"\npatchesJson6902:\n- target:\n    group: jobset.x-k8s.io\n    version: "
                  "v1alpha2\n    kind: JobSet\n    name: train\n  path: replicas.yaml\n");
    dir.write(root + "/overlays/prod/replicas.yaml",
              "- op: replace\n  path: /spec/replicatedJobs/0/replicas\n  value: " +
                  std::to_string(replicas) + "\n");
  }
  std::string overlay_text() const {
    return slurp(dir.path() + "/" + root + "/overlays/prod/kustomization.yaml");
  }
};

bool kubectl_missing() {
  if (have("kubectl") || have("kustomize")) return false;
  WARN("neither kubectl nor kustomize installed: skipped");
  return true;
}

}  // namespace

TEST_CASE("An overlay's change is judged on the render, at the overlay's kustomization",
          "[cli][kustomize][kubectl]") {
  if (kubectl_missing()) return;
  ScratchDir dir;
  const Tree old_tree{dir, "old"}, new_tree{dir, "new"};
  old_tree.write_base();
  old_tree.write_overlay("1", 2);
  new_tree.write_base();
  const auto check = [&] { return run_in(dir.path(), "check --old old --new new"); };

  SECTION("the image tag changed by images: is refused at that entry, by its rendered path") {
    new_tree.write_overlay("2", 2);
    const auto r = check();
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(first_line(r.out) ==
          "new/overlays/prod/kustomization.yaml:" + position_of(new_tree.overlay_text(), "newTag") +
              ": " + kImageLine +
              "\"trainer:2\": field is immutable (old value: "
              "\"trainer:1\")");
    // The base is rendered too, unchanged; its jobset.yaml is read through kustomize only.
    CHECK(r.out.find("check: 2 JobSets: 1 denied, 1 allowed (2 updated, 0 created); 0 deleted") !=
          std::string::npos);
  }
  SECTION("replicas raised in the overlay's patch: allowed, warned at the patch's entry") {
    new_tree.write_overlay("1", 6);
    const auto r = check();
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(first_line(r.out).rfind("new/overlays/prod/kustomization.yaml:" +
                                      position_of(new_tree.overlay_text(), "target:") +
                                      ": warning: replicatedJob \"workers\" scaled up from 2 to 6",
                                  0) == 0);
  }
  SECTION("a kustomization that does not render: unusable input, in the tool's words") {
    dir.write("new/overlays/prod/kustomization.yaml", "resources:\n- missing.yaml\n");
    const auto r = check();
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("jobset-webhook check: new/overlays/prod/kustomization.yaml: `", 0) == 0);
    CHECK(r.err.find("missing.yaml") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  SECTION("an image changed in the base: refused in each render, the base's line as its source") {
    dir.write("new/base/jobset.yaml", jobset_yaml("train", "other:1", 1));
    new_tree.write_overlay("1", 2);
    const auto r = check();
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    const std::string source = "new/base/jobset.yaml:" +
                               position_of(slurp(dir.path() + "/new/base/jobset.yaml"), "image:");
    CHECK(r.out.find("new/base/kustomization.yaml:1:1: " + kImageLine +
                     "\"other:1\": field is immutable (old value: \"trainer\")\n" + source +
                     ": note: spec.replicatedJobs[0].template.spec.template.spec.containers[0]."
                     "image is written here\n") != std::string::npos);
    CHECK(r.out.find("1 denied") == std::string::npos);
  }
}

TEST_CASE("--base REF renders the kustomizations of an export of REF",
          "[cli][kustomize][kubectl]") {
  if (kubectl_missing() || !have("git")) return;
  ScratchDir dir;
  const Tree tree{dir, "repo"};
  tree.write_base();
  tree.write_overlay("1", 2);
  git_init(dir.path() + "/repo");
  // The export of REF is removed once rendered: TMPDIR is watched.
  fs::create_directories(dir.path() + "/tmp");
  const std::string env = "TMPDIR=" + dir.path() + "/tmp";

  SECTION("the image tag changed: refused at the overlay's line") {
    tree.write_overlay("2", 2);
    const auto r = run_in(dir.path() + "/repo", "check --base HEAD .", env);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(first_line(r.out) ==
          "overlays/prod/kustomization.yaml:" + position_of(tree.overlay_text(), "newTag") + ": " +
              kImageLine + "\"trainer:2\": field is immutable (old value: \"trainer:1\")");
  }
  SECTION("replicas raised in the patch, from a subdirectory: allowed with its warning") {
    tree.write_overlay("1", 6);
    const auto r = run_in(dir.path() + "/repo/overlays", "check --base HEAD prod", env);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(first_line(r.out).rfind(
              "prod/kustomization.yaml:" + position_of(tree.overlay_text(), "target:") +
                  ": warning: replicatedJob \"workers\" scaled up from 2 to 6",
              0) == 0);
    CHECK(r.out.find("check: 1 JobSet: 0 denied, 1 allowed (1 updated, 0 created)") !=
          std::string::npos);
  }
  SECTION("a changed patch named as a PATH (as pre-commit names it): its overlay, at REF too") {
    tree.write_overlay("1", 6);
    const auto r =
        run_in(dir.path() + "/repo", "check --base HEAD overlays/prod/replicas.yaml", env);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("check: 1 JobSet: 0 denied, 1 allowed (1 updated, 0 created)") !=
          std::string::npos);
    CHECK(r.out.find(": warning: replicatedJob \"workers\" scaled up from 2 to 6") !=
          std::string::npos);
  }
  SECTION("a base that no longer renders is a note, not a failure") {
    dir.write("repo/overlays/prod/kustomization.yaml", "resources:\n- missing.yaml\n");
    git_commit_all(dir.path() + "/repo", "broken");
    tree.write_overlay("1", 2);
    const auto r = run_in(dir.path() + "/repo", "check --base HEAD overlays", env);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(first_line(r.out).rfind(
              "HEAD:overlays/prod/kustomization.yaml:1:1: note: left out, it cannot be rendered: ",
              0) == 0);
    CHECK(r.out.find("(0 updated, 1 created)") != std::string::npos);
  }
  CHECK(fs::is_empty(dir.path() + "/tmp"));
}

TEST_CASE("A component is rendered only through the kustomizations that list it",
          "[cli][kustomize][kubectl]") {
  if (kubectl_missing()) return;
  ScratchDir dir;
  for (const std::string side : {"old", "new"}) {
    const Tree tree{dir, side};
    tree.write_base();
    // A strategic-merge patch: a partial JobSet, which read as a manifest would be one more.
    dir.write(side + "/components/big/kustomization.yaml",
              "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
              "patchesStrategicMerge:\n- big.yaml\n");
    dir.write(side + "/components/big/big.yaml",
              "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: train\n"
              "spec:\n  replicatedJobs:\n  - name: workers\n    replicas: " +
                  std::string(side == "old" ? "3" : "5") + "\n");
    dir.write(side + "/overlays/big/kustomization.yaml",
              "resources:\n- ../../base\ncomponents:\n- ../../components/big\n");
  }
  const auto r = run_in(dir.path(), "check --old old --new new");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // The warning points at the component's patch entry only when the overlay lists it itself: here
  // at the overlay's first line, the patch's line as its source is for findings.
  CHECK(r.out.find("new/overlays/big/kustomization.yaml:1:1: warning: replicatedJob \"workers\" "
                   "scaled up from 3 to 5") != std::string::npos);
  CHECK(r.out.find("check: 2 JobSets: 0 denied, 2 allowed (2 updated, 0 created)") !=
        std::string::npos);
}

TEST_CASE("Without kustomize or kubectl, a kustomization is unusable input that says why",
          "[cli][kustomize]") {
  ScratchDir dir;
  for (const std::string side : {"old", "new"}) {
    dir.write(side + "/base/jobset.yaml", jobset_yaml("train", "trainer", 1));
    dir.write(side + "/base/kustomization.yaml", "resources:\n- jobset.yaml\n");
  }
  const auto r = run_in(dir.path(), "check --old old --new new", "PATH=/nonexistent");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "jobset-webhook check: old/base/kustomization.yaml: rendering a kustomization needs "
        "kustomize or kubectl, and neither is on PATH: install kustomize "
        "(https://kubectl.docs.kubernetes.io/installation/kustomize/) or kubectl "
        "(https://kubernetes.io/docs/tasks/tools/), or name the binary with --kustomize BIN\n");
  const auto named = run_in(dir.path(), "check --old old --new new --kustomize /no/kustomize");
  CHECK(named.exit_code == 2);
  CHECK(named.err.find("--kustomize /no/kustomize: no such executable") != std::string::npos);
}

TEST_CASE("validate renders the kustomizations that the files it is given belong to",
          "[cli][kustomize][kubectl]") {
  if (kubectl_missing()) return;
  ScratchDir dir;
  const Tree tree{dir, "repo"};
  tree.write_base();
  tree.write_overlay("1", 2);
  // What pre-commit passes when a patch, a kustomization and a base's manifest change: none of
  // them is read as a manifest of its own (the patch is a list, the kustomization has no kind).
  const auto r = run_in(dir.path() + "/repo",
                        "validate overlays/prod/replicas.yaml overlays/prod/kustomization.yaml "
                        "base/jobset.yaml");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "validate: 2 JobSets: 0 denied, 2 allowed; 0 other objects skipped\n");
  const auto defaults = run_in(dir.path() + "/repo", "default overlays/prod");
  CHECK(defaults.exit_code == 0);
  CHECK(defaults.out.find("name: prod-train\n  namespace: prod\n") != std::string::npos);
}

TEST_CASE("A field a strategic-merge patch sets points at the patch's entry and its line",
          "[cli][kustomize][kubectl]") {
  if (kubectl_missing()) return;
  ScratchDir dir;
  const std::string patch =
      "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: train\nspec:\n"
      "  replicatedJobs:\n  - name: workers\n    template:\n      spec:\n        template:\n"
      "          spec:\n            containers:\n            - name: main\n"
      "              image: trainer:";
  for (const std::string side : {"old", "new"}) {
    const Tree tree{dir, side};
    tree.write_base();
    dir.write(side + "/overlays/gpu/kustomization.yaml",
              "resources:\n- ../../base\npatches:\n- path: image.yaml\n");
    dir.write(side + "/overlays/gpu/image.yaml", patch + (side == "old" ? "1" : "2") + "\n");
  }
  const auto r = run_in(dir.path(), "check --old old --new new");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const std::string image_patch = slurp(dir.path() + "/new/overlays/gpu/image.yaml");
  CHECK(r.out.find("new/overlays/gpu/kustomization.yaml:4:3: " + kImageLine +
                   "\"trainer:2\": field is immutable (old value: \"trainer:1\")\n"
                   "new/overlays/gpu/image.yaml:" +
                   position_of(image_patch, "image:") +
                   ": note: spec.replicatedJobs[0].template.spec.template.spec.containers[0]."
                   "image is written here\n") != std::string::npos);
}

TEST_CASE("A field an inline patch sets points at the patch's entry and its line inside it",
          "[cli][kustomize][kubectl]") {
  if (kubectl_missing()) return;
  const std::string image_path =
      "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image";
  struct Case {
    std::string name;
    std::function<std::string(const std::string& tag)> patches;
    std::string entry;   // where the entry is: its first key, or the block's indicator
    std::string source;  // where the value is written
  };
  const std::vector<Case> cases = {
      {"patches: a JSON 6902 patch in a |- block",
       [&](const std::string& tag) {
         return "patches:\n- target: {kind: JobSet, name: train}\n  patch: |-\n"
                "    - op: replace\n      path: " +
                image_path + "\n      value: trainer:" + tag + "\n";
       },
       "target:", "value: trainer"},
      {"patchesStrategicMerge: an entry that is a |- block",
       [](const std::string& tag) {
         return "patchesStrategicMerge:\n- |-\n  apiVersion: jobset.x-k8s.io/v1alpha2\n"
                "  kind: JobSet\n  metadata: {name: train}\n  spec:\n    replicatedJobs:\n"
                "    - name: workers\n      template: {spec: {template: {spec: {containers: "
                "[{name: main, image: \"trainer:" +
                tag + "\"}]}}}}\n";
       },
       "|-", "image:"},
      {"patchesJson6902: a patch in a block with an indentation indicator",
       [&](const std::string& tag) {
         return "patchesJson6902:\n- target: {group: jobset.x-k8s.io, version: v1alpha2, kind: "
                "JobSet, name: train}\n  patch: |2\n      - op: replace\n        path: " +
                image_path + "\n        value: trainer:" + tag + "\n";
       },
       "target:", "value: trainer"},
      {"patches: a folded block, whose lines are not the patch's: at the patch's key",
       [&](const std::string& tag) {
         return "patches:\n- target: {kind: JobSet, name: train}\n  patch: >\n"
                "    [{\"op\": \"replace\", \"path\":\n    \"" +
                image_path + "\", \"value\": \"trainer:" + tag + "\"}]\n";
       },
       "target:", "patch:"},
      // kustomize applies patches before patchesJson6902 wherever they stand in the file: the
      // value is patchesJson6902's, and so is the position.
      {"patchesJson6902 and patches writing the field: the one applied last",
       [&](const std::string& tag) {
         return "patchesJson6902:\n- target: {group: jobset.x-k8s.io, version: v1alpha2, kind: "
                "JobSet, name: train}\n  patch: |-\n    - op: replace\n      path: " +
                image_path + "\n      value: trainer:" + tag +
                "\npatches:\n- target: {kind: JobSet, name: train}\n  patch: |-\n"
                "    - {op: replace, path: " +
                image_path + ", value: overwritten:1}\n";
       },
       "target:", "value: trainer"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      ScratchDir dir;
      for (const std::string side : {"old", "new"}) {
        Tree{dir, side}.write_base();
        dir.write(side + "/overlays/inline/kustomization.yaml",
                  "resources:\n- ../../base\n" + c.patches(side == "old" ? "1" : "2"));
      }
      const auto r = run_in(dir.path(), "check --old old --new new");
      INFO(r.out << r.err);
      CHECK(r.exit_code == 1);
      const std::string file = "new/overlays/inline/kustomization.yaml";
      const std::string text = slurp(dir.path() + "/" + file);
      CHECK(r.out.find(file + ":" + position_of(text, c.entry) + ": " + kImageLine +
                       "\"trainer:2\": field is immutable (old value: \"trainer:1\")\n" + file +
                       ":" + position_of(text, c.source) +
                       ": note: spec.replicatedJobs[0].template.spec.template.spec.containers[0]."
                       "image is written here\n") != std::string::npos);
    }
  }
}

TEST_CASE("A strategic-merge patch that drops the base's replicas is warned of at the patch",
          "[cli][kustomize][kubectl]") {
  if (kubectl_missing()) return;
  // kustomize knows no merge key for a custom resource's list, so the patch's replicatedJobs
  // replace the base's whole: replicas 3 is dropped, and the API server defaults it to 1. The
  // JobSet is created (allowed) and would run one worker: only the warning says why.
  ScratchDir dir;
  dir.write("new/base/jobset.yaml", jobset_yaml("train", "trainer:1", 3));
  dir.write("new/base/kustomization.yaml", "resources:\n- jobset.yaml\n");
  const std::string kustomization =
      "resources:\n- ../base\npatches:\n- patch: |-\n    apiVersion: jobset.x-k8s.io/v1alpha2\n"
      "    kind: JobSet\n    metadata: {name: train}\n    spec:\n      replicatedJobs:\n"
      "      - name: workers\n        template: {spec: {template: {spec: {containers: [{name: "
      "main, image: \"trainer:2\"}]}}}}\n";
  dir.write("new/overlay/kustomization.yaml", kustomization);
  const auto r = run_in(dir.path(), "validate new/overlay");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("new/overlay/kustomization.yaml:" + position_of(kustomization, "patch:") +
                   ": warning: spec.replicatedJobs[0]: a strategic-merge patch replaces "
                   "spec.replicatedJobs whole (kustomize merges no list of a custom resource by "
                   "key), dropping replicas (3), which new/base/jobset.yaml:7:5 writes: write "
                   "the change as a JSON 6902 patch, or restate the dropped fields in the "
                   "patch\n") != std::string::npos);
}

// The Helm recipe of docs/ci-gating.md ("Helm charts"), run as a user copies it: the script is
// read from the page itself, and run in a repository holding a chart, with the real helm
// (build-e2e/bin/helm, which `scripts/dev e2e-go` builds; the meson test `helm recipe` is skipped
// without it) and jobset-webhook on PATH.

#include <catch2/catch.hpp>

#include <filesystem>

#include "support/files.h"
#include "support/process.h"
#include "support/repository.h"

using jobset_webhook::testing::git_init;
using jobset_webhook::testing::have;
using jobset_webhook::testing::ScratchDir;
using jobset_webhook::testing::shell;
using jobset_webhook::testing::slurp;

namespace {

// The first ```sh block after the heading.
std::string script_after(const std::string& page, const std::string& heading) {
  const auto at = page.find(heading);
  REQUIRE(at != std::string::npos);
  const auto start = page.find("```sh\n", at);
  REQUIRE(start != std::string::npos);
  const auto end = page.find("```\n", start + 6);
  REQUIRE(end != std::string::npos);
  return page.substr(start + 6, end - start - 6);
}

}  // namespace

TEST_CASE("The Helm recipe gates a chart's values change", "[cli][helm]") {
  if (!have("helm") || !have("git")) {
    WARN("helm or git not installed: skipped");
    return;
  }
  ScratchDir dir;
  dir.write("script.sh", script_after(slurp(std::string(JOBSET_SOURCE_DIR) + "/docs/ci-gating.md"),
                                      "### Helm charts"));
  dir.write("repo/charts/train/Chart.yaml", "apiVersion: v2\nname: train\nversion: 0.1.0\n");
  dir.write("repo/charts/train/templates/jobset.yaml",
            "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: {{ "
            ".Release.Name }}\nspec:\n  replicatedJobs:\n  - name: workers\n    replicas: {{ "
            ".Values.replicas }}\n    template:\n      spec:\n        template:\n          spec:\n"
            "            containers:\n            - name: main\n              image: {{ "
            ".Values.image }}\n");
  const auto values = [&](const std::string& image, int replicas) {
    dir.write("repo/charts/train/values-prod.yaml",
              "image: " + image + "\nreplicas: " + std::to_string(replicas) + "\n");
  };
  values("trainer:1", 2);
  const std::string repo = dir.path() + "/repo";
  git_init(repo);
  // What a CI clone names the base branch.
  REQUIRE(shell("cd '" + repo + "' && git update-ref refs/remotes/origin/main HEAD").exit_code ==
          0);
  const std::string run = "cd '" + repo + "' && PATH='" +
                          std::filesystem::path(JOBSET_WEBHOOK_BINARY).parent_path().string() +
                          "':\"$PATH\" TMPDIR='" + dir.path() + "' bash '" + dir.path() +
                          "/script.sh'";

  SECTION("an image changed in the values: refused, at the rendered line") {
    values("trainer:2", 2);
    const auto r = shell(run);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.rfind("<stdin>:17:15: spec.replicatedJobs[0].template.spec.template.spec."
                      "containers[0].image: Invalid value: \"trainer:2\": field is immutable "
                      "(old value: \"trainer:1\")\n",
                      0) == 0);
  }
  SECTION("replicas raised in the values: allowed with its warning") {
    values("trainer:1", 4);
    const auto r = shell(run);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("warning: replicatedJob \"workers\" scaled up from 2 to 4") !=
          std::string::npos);
  }
}

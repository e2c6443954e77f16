// `check` on repositories as CI sees them (docs/ci-gating.md): two copies of one tree paired by
// path, `--base REF` read from git, findings at the line of their cause in every format, and the
// pre-commit hook (kustomize: kustomize_test.cpp). The trees are written here; the
// upstream examples are used too when they are present ([upstream_examples]).

#include <catch2/catch.hpp>

#include "cli/documents.h"
#include "cli/manifests.h"
#include "cli/pairing.h"
#include "support/files.h"
#include "support/process.h"
#include "support/repository.h"

namespace cli = jobset_webhook::cli;
namespace fs = std::filesystem;
using jobset_webhook::Json;
using jobset_webhook::testing::first_line;
using jobset_webhook::testing::git_commit_all;
using jobset_webhook::testing::git_init;
using jobset_webhook::testing::have;
using jobset_webhook::testing::jobset_yaml;
using jobset_webhook::testing::kGit;
using jobset_webhook::testing::position_at;
using jobset_webhook::testing::position_of;
using jobset_webhook::testing::ProcessResult;
using jobset_webhook::testing::run_in;
using jobset_webhook::testing::ScratchDir;
using jobset_webhook::testing::shell;
using jobset_webhook::testing::slurp;

namespace {

const std::string kConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n";

// "line=L,col=C" of a "L:C" position, as GitHub's workflow commands spell it.
std::string github_position(const std::string& where) {
  return "line=" + where.substr(0, where.find(':')) + ",col=" + where.substr(where.find(':') + 1);
}

// The same small repository layout on both sides: one JobSet per cluster (same name, different
// images), a multi-document file, a file with a JobSet and a ConfigMap.
void write_tree(const ScratchDir& dir, const std::string& root) {
  dir.write(root + "/clusters/us/train.yaml", jobset_yaml("train", "trainer:1", 4));
  dir.write(root + "/clusters/eu/train.yaml", jobset_yaml("train", "trainer:2"));
  dir.write(root + "/jobs/eval.yaml", jobset_yaml("eval", "eval:1") + "---\n" + kConfigMap);
  dir.write(root + "/jobs/batch.yaml",
            jobset_yaml("batch-a", "bash:5") + "---\n" + jobset_yaml("batch-b", "bash:5"));
}

// A recursive copy of from into to.
void copy_tree(const std::string& from, const std::string& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive);
}

cli::Manifests loaded(const std::string& path) {
  auto m = cli::load_manifests({path});
  INFO((m.ok() ? "" : m.failure().message));
  REQUIRE(m.ok());
  return std::move(m).value();
}

// "CREATE eval <- jobs/eval.yaml" per pairing: what each new JobSet was compared with.
std::vector<std::string> pairings(const std::string& old_root, const std::string& new_root) {
  const auto old_side = loaded(old_root), new_side = loaded(new_root);
  std::vector<std::string> out;
  for (const auto& p : cli::pair_jobsets(old_side, new_side)) {
    if (p.new_js == nullptr) {
      out.push_back("DELETE " + p.old_js->relative);
    } else if (p.old_js == nullptr) {
      out.push_back("CREATE " + p.new_js->relative + (p.note.empty() ? "" : " (note)"));
    } else {
      out.push_back("UPDATE " + p.new_js->relative + " <- " + p.old_js->relative +
                    (p.note.empty() ? "" : " (note)"));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("A file's path below its root has no . or .. parts", "[cli][gating]") {
  CHECK(cli::relative_below("deploy/a/t.yaml", "./deploy/") == "a/t.yaml");
  CHECK(cli::relative_below("deploy/a/t.yaml", "deploy") == "a/t.yaml");
  CHECK(cli::relative_below("a.yaml", ".") == "a.yaml");
  CHECK(cli::relative_below("/tmp/x/old/c/t.yaml", "/tmp/x/old") == "c/t.yaml");
  CHECK(cli::relative_below("jobs/train.yaml", "jobs/train.yaml") == "train.yaml");
  CHECK(cli::relative_below("-", "-") == "<stdin>");
}

TEST_CASE("JobSets pair by path, then by a unique move; the rest are created or deleted",
          "[cli][gating]") {
  ScratchDir dir;
  SECTION("one JobSet per cluster: each pairs with its own file") {
    write_tree(dir, "old");
    write_tree(dir, "new");
    CHECK(pairings(dir.path() + "/old", dir.path() + "/new") ==
          std::vector<std::string>{"UPDATE clusters/eu/train.yaml <- clusters/eu/train.yaml",
                                   "UPDATE clusters/us/train.yaml <- clusters/us/train.yaml",
                                   "UPDATE jobs/batch.yaml <- jobs/batch.yaml",
                                   "UPDATE jobs/batch.yaml <- jobs/batch.yaml",
                                   "UPDATE jobs/eval.yaml <- jobs/eval.yaml"});
  }
  SECTION("a moved file pairs with its old place") {
    dir.write("old/jobs/eval.yaml", jobset_yaml("eval", "eval:1"));
    dir.write("new/batch/eval-renamed.yaml", jobset_yaml("eval", "eval:1"));
    CHECK(pairings(dir.path() + "/old", dir.path() + "/new") ==
          std::vector<std::string>{"UPDATE batch/eval-renamed.yaml <- jobs/eval.yaml (note)"});
  }
  SECTION("a copy for a new cluster is created: its source is still in place") {
    dir.write("old/us/train.yaml", jobset_yaml("train", "trainer:1"));
    dir.write("new/us/train.yaml", jobset_yaml("train", "trainer:1"));
    dir.write("new/ap/train.yaml", jobset_yaml("train", "trainer:3"));
    CHECK(
        pairings(dir.path() + "/old", dir.path() + "/new") ==
        std::vector<std::string>{"CREATE ap/train.yaml", "UPDATE us/train.yaml <- us/train.yaml"});
  }
  SECTION("several candidates: created, with a note; the candidates are deleted file by file") {
    dir.write("old/us/train.yaml", jobset_yaml("train", "trainer:1"));
    dir.write("old/eu/train.yaml", jobset_yaml("train", "trainer:1"));
    dir.write("new/ap/train.yaml", jobset_yaml("train", "trainer:1"));
    CHECK(pairings(dir.path() + "/old", dir.path() + "/new") ==
          std::vector<std::string>{"CREATE ap/train.yaml (note)", "DELETE eu/train.yaml",
                                   "DELETE us/train.yaml"});
  }
  SECTION("one old file split into two: neither is its only successor") {
    dir.write("old/all/train.yaml", jobset_yaml("train", "trainer:1"));
    dir.write("new/us/train.yaml", jobset_yaml("train", "trainer:1"));
    dir.write("new/eu/train.yaml", jobset_yaml("train", "trainer:1"));
    CHECK(pairings(dir.path() + "/old", dir.path() + "/new") ==
          std::vector<std::string>{"CREATE eu/train.yaml (note)", "CREATE us/train.yaml (note)",
                                   "DELETE all/train.yaml"});
  }
}

TEST_CASE("Many files of one JobSet that all move: each note names a few, the repeats are counted",
          "[cli][gating]") {
  ScratchDir dir;
  for (int i = 0; i < 10; ++i) {
    dir.write("old/a/t" + std::to_string(i) + ".yaml", jobset_yaml("train", "trainer:1"));
    dir.write("new/b/t" + std::to_string(i) + ".yaml", jobset_yaml("train", "trainer:1"));
  }
  const std::string note =
      ": note: JobSet default/train: treated as created: --old holds JobSet default/train in 10 "
      "other files and none at this path (old/a/t0.yaml:1:1, old/a/t1.yaml:1:1, "
      "old/a/t2.yaml:1:1 and 7 more)\n";
  std::string want = "new/b/t0.yaml:1:1" + note + "new/b/t1.yaml:1:1" + note + "new/b/t2.yaml:1:1" +
                     note +
                     "new/b/t3.yaml:1:1: note: JobSet default/train: the same note for 7 more "
                     "JobSets\n";
  for (int i = 0; i < 10; ++i) {
    want += "old/a/t" + std::to_string(i) +
            ".yaml:1:1: note: JobSet default/train deleted (only in --old)\n";
  }
  want +=
      "check: 10 JobSets: 0 denied, 10 allowed (0 updated, 10 created); 10 deleted; 0 other "
      "objects skipped\n";
  const auto text = run_in(dir.path(), "check --old old --new new");
  CHECK(text.exit_code == 0);
  CHECK(text.out == want);
  // Every JobSet keeps its own bounded note in the data formats.
  const auto json = run_in(dir.path(), "check --old old --new new --format json");
  const Json report = Json::parse(json.out);
  REQUIRE(report["jobsets"].size() == 20);
  CHECK(report["jobsets"][9]["note"] ==
        "treated as created: --old holds JobSet default/train in 10 other files and none at this "
        "path (old/a/t0.yaml:1:1, old/a/t1.yaml:1:1, old/a/t2.yaml:1:1 and 7 more)");
  const auto github = run_in(dir.path(), "check --old old --new new --format github");
  CHECK(std::count(github.out.begin(), github.out.end(), '\n') == 3 + 1 + 10 + 1);
  CHECK(github.out.find("::notice file=new/b/t3.yaml,line=1,col=1,title=JobSet default/train "
                        "(CREATE)::JobSet default/train: the same note for 7 more JobSets\n") !=
        std::string::npos);
}

TEST_CASE("check on two copies of a repository: equal passes, one edit fails at its line",
          "[cli][gating]") {
  ScratchDir dir;
  write_tree(dir, "old");
  write_tree(dir, "new");
  const std::string args = "check --old " + dir.path() + "/old --new " + dir.path() + "/new";

  const auto same = run_in(dir.path(), args);
  CHECK(same.err.empty());
  CHECK(same.exit_code == 0);
  CHECK(same.out ==
        "check: 5 JobSets: 0 denied, 5 allowed (5 updated, 0 created); 0 deleted; 1 other object "
        "skipped\n");

  SECTION("an image edited in one cluster's file fails at that file and line") {
    const auto eu = dir.write("new/clusters/eu/train.yaml", jobset_yaml("train", "trainer:3"));
    const auto r = run_in(dir.path(), args);
    CHECK(r.exit_code == 1);
    CHECK(r.out == eu + ":" + position_of(slurp(eu), "image:") +
                       ": spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: "
                       "Invalid value: \"trainer:3\": field is immutable (old value: "
                       "\"trainer:2\")\n"
                       "check: 5 JobSets: 1 denied, 4 allowed (5 updated, 0 created); 0 deleted; "
                       "1 other object skipped\n");
  }
  SECTION("a cluster's file removed is that cluster's deletion") {
    fs::remove(dir.path() + "/new/clusters/eu/train.yaml");
    const auto r = run_in(dir.path(), args);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(dir.path() + "/old/clusters/eu/train.yaml:1:1: note: JobSet default/train "
                                  "deleted (only in --old)\n") != std::string::npos);
  }
  SECTION("a moved file is compared with its old self, and says so") {
    fs::rename(dir.path() + "/new/jobs/eval.yaml", dir.path() + "/new/eval.yaml");
    const auto r = run_in(dir.path(), args + " --format json");
    CHECK(r.exit_code == 0);
    const auto report = Json::parse(r.out);
    CHECK(report["summary"]["updated"] == 5);
    bool seen = false;
    for (const auto& js : report["jobsets"]) {
      if (js["name"] != "eval") continue;
      seen = true;
      CHECK(js["operation"] == "UPDATE");
      CHECK(js["note"] == "compared with JobSet default/eval at " + dir.path() +
                              "/old/jobs/eval.yaml:1:1 (the file moved)");
    }
    CHECK(seen);
  }
  SECTION("an ambiguous move is a creation whose note names the candidates") {
    dir.write("new/clusters/ap/train.yaml", jobset_yaml("train", "trainer:9"));
    fs::remove(dir.path() + "/new/clusters/eu/train.yaml");
    fs::remove(dir.path() + "/new/clusters/us/train.yaml");
    const auto r = run_in(dir.path(), args);
    CHECK(r.exit_code == 0);
    CHECK(first_line(r.out) ==
          dir.path() +
              "/new/clusters/ap/train.yaml:1:1: note: JobSet default/train: treated as created: "
              "--old holds JobSet default/train in 2 other files and none at this path (" +
              dir.path() + "/old/clusters/eu/train.yaml:1:1, " + dir.path() +
              "/old/clusters/us/train.yaml:1:1)");
    CHECK(r.out.find("(0 updated, 1 created); 2 deleted") == std::string::npos);
    CHECK(r.out.find("(3 updated, 1 created); 2 deleted") != std::string::npos);
  }
  SECTION("the same JobSet twice in one file is still unusable input") {
    dir.write("new/jobs/eval.yaml",
              jobset_yaml("eval", "eval:1") + "---\n" + jobset_yaml("eval", "eval:1"));
    const auto r = run_in(dir.path(), args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--new holds JobSet default/eval twice in one file") != std::string::npos);
  }
}

TEST_CASE("check on two copies of the upstream examples: equal passes, one edit fails at its line",
          "[cli][gating][upstream_examples]") {
  if (!fs::is_directory(JOBSET_EXAMPLES_DIR)) {
    WARN("no upstream examples at " JOBSET_EXAMPLES_DIR ": skipped");
    return;
  }
  ScratchDir dir;
  copy_tree(JOBSET_EXAMPLES_DIR, dir.path() + "/base/examples");
  copy_tree(JOBSET_EXAMPLES_DIR, dir.path() + "/examples");
  const std::string args = "check --old base/examples --new examples";
  const auto same = run_in(dir.path(), args);
  INFO(same.err);
  CHECK(same.exit_code == 0);
  CHECK(same.out.find(" 0 denied, ") != std::string::npos);
  CHECK(same.out.find(" 0 created); 0 deleted") != std::string::npos);

  const std::string file = "examples/simple/paralleljobs.yaml";
  auto text = slurp(dir.path() + "/" + file);
  const auto at = text.find("image: busybox");
  REQUIRE(at != std::string::npos);
  text.replace(at, 14, "image: busybox:1.36");
  dir.write(file, text);
  const auto edited = run_in(dir.path(), args);
  CHECK(edited.exit_code == 1);
  CHECK(first_line(edited.out) ==
        file + ":" + position_of(text, "image: busybox:1.36") +
            ": spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: Invalid "
            "value: \"busybox:1.36\": field is immutable (old value: \"busybox\")");
}

TEST_CASE("check --base reads the paths at a git revision and compares the working tree",
          "[cli][gating]") {
  if (!have("git")) {
    WARN("git not installed: skipped");
    return;
  }
  ScratchDir dir;
  const std::string repo = dir.path() + "/repo";
  const auto train = dir.write("repo/deploy/train.yaml", jobset_yaml("train", "trainer:1", 2));
  dir.write("repo/deploy/gone.yaml", jobset_yaml("gone", "bash:5"));
  dir.write("repo/README.md", "# a repository\n");
  git_init(repo);

  SECTION("unchanged") {
    const auto r = run_in(repo, "check --base HEAD .");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out ==
          "check: 2 JobSets: 0 denied, 2 allowed (2 updated, 0 created); 0 deleted; 0 other "
          "objects skipped\n");
  }
  SECTION("replicas raised: allowed, the warning at the replicas line") {
    const auto text = dir.write("repo/deploy/train.yaml", jobset_yaml("train", "trainer:1", 5));
    const auto r = run_in(repo, "check --base HEAD .");
    CHECK(r.exit_code == 0);
    CHECK(first_line(r.out) == "deploy/train.yaml:" + position_of(slurp(text), "replicas: 5") +
                                   ": warning: replicatedJob \"workers\" scaled up from 2 to 5: "
                                   "the JobSet controller will create Jobs train-workers-2, "
                                   "train-workers-3, train-workers-4");
  }
  SECTION("an image changed: denied at the image line") {
    dir.write("repo/deploy/train.yaml", jobset_yaml("train", "trainer:2", 2));
    const auto r = run_in(repo, "check --base HEAD deploy/ --format github");
    CHECK(r.exit_code == 1);
    CHECK(first_line(r.out) ==
          "::error file=deploy/train.yaml," + github_position(position_of(slurp(train), "image:")) +
              ",title=JobSet default/train (UPDATE)::spec.replicatedJobs[0].template.spec."
              "template.spec.containers[0].image: Invalid value: \"trainer:2\": field is immutable "
              "(old value: \"trainer:1\")");
  }
  SECTION("files added, removed and named one by one; from a subdirectory") {
    dir.write("repo/deploy/new.yaml", jobset_yaml("fresh", "bash:5"));
    fs::remove(repo + "/deploy/gone.yaml");
    const auto r = run_in(repo + "/deploy", "check --base HEAD train.yaml new.yaml gone.yaml");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("HEAD:gone.yaml:1:1: note: JobSet default/gone deleted (only in --old)\n") !=
          std::string::npos);
    CHECK(r.out.find("(1 updated, 1 created); 1 deleted") != std::string::npos);
  }
  SECTION("every flag of check holds with --base too: --field-validation") {
    // An unknown field: refused under kubectl's default (Strict), pruned under Ignore.
    dir.write("repo/deploy/train.yaml",
              jobset_yaml("train", "trainer:1", 2, "  unknownField: 1\n"));
    const auto strict = run_in(repo, "check --base HEAD .");
    CHECK(strict.exit_code == 1);
    CHECK(strict.out.find("unknown field \"spec.unknownField\"") != std::string::npos);
    const auto ignore = run_in(repo, "check --base HEAD . --field-validation Ignore");
    INFO(ignore.out << ignore.err);
    CHECK(ignore.exit_code == 0);
    CHECK(run_in(repo, "check --base HEAD . --field-validation Sloppy").exit_code == 2);
  }
  SECTION("nothing is checked out and no file is written") {
    ScratchDir tmp;
    dir.write("repo/deploy/train.yaml", jobset_yaml("train", "trainer:1", 3));
    const auto r = run_in(repo, "check --base HEAD .", "TMPDIR=" + tmp.path());
    CHECK(r.exit_code == 0);
    CHECK(fs::is_empty(tmp.path()));
    CHECK(shell("cd '" + repo + "' && git status --porcelain").out == " M deploy/train.yaml\n");
    CHECK(shell("cd '" + repo + "' && git worktree list | wc -l").out == "1\n");
  }
  SECTION("clear errors: unknown revision, outside a repository, no git") {
    const auto unknown = run_in(repo, "check --base origin/nope .");
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.out.empty());
    CHECK(unknown.err ==
          "jobset-webhook check: --base origin/nope: unknown revision, not a commit of this "
          "repository (a shallow or single-branch clone needs it fetched: git fetch origin "
          "<branch>)\n");
    const auto typo = run_in(repo, "check --base HEAD deplyo/");
    CHECK(typo.exit_code == 2);
    CHECK(typo.err ==
          "jobset-webhook check: deplyo/: No such file or directory, here or at HEAD\n");
    ScratchDir outside;
    const auto no_repo =
        run_in(outside.path(), "check --base HEAD .", "GIT_CEILING_DIRECTORIES=" + outside.path());
    CHECK(no_repo.exit_code == 2);
    CHECK(no_repo.err ==
          "jobset-webhook check: --base HEAD: not inside a git work tree (run check from the "
          "repository, or use --old and --new)\n");
    const auto no_git = run_in(repo, "check --base HEAD .", "PATH=/nonexistent");
    CHECK(no_git.exit_code == 2);
    CHECK(no_git.err ==
          "jobset-webhook check: --base needs git, which could not be started: No such file or "
          "directory\n");
  }
}

TEST_CASE("check --base: a file the base cannot read is a note, so that a change can repair it",
          "[cli][gating]") {
  if (!have("git")) {
    WARN("git not installed: skipped");
    return;
  }
  ScratchDir dir;
  const std::string repo = dir.path() + "/repo";
  dir.write("repo/deploy/train.yaml", jobset_yaml("train", "trainer:1", 2));
  dir.write("repo/deploy/bad.yaml", "apiVersion: v1\nmetadata:\n  name: x\n");
  dir.write("repo/deploy/twice.yaml",
            jobset_yaml("eval", "eval:1") + "---\n" + jobset_yaml("eval", "eval:2"));
  git_init(repo);
  const std::string bad_note =
      "HEAD:deploy/bad.yaml:1:1: note: left out, it cannot be read: HEAD:deploy/bad.yaml:1:1: not "
      "a Kubernetes object: kind is missing or not a string\n";
  const std::string twice_note =
      "HEAD:deploy/twice.yaml:1:1: note: left out, it cannot be read: HEAD:deploy/twice.yaml:16:1: "
      "it holds JobSet default/eval twice in one file (first at HEAD:deploy/twice.yaml:1:1); "
      "applying the file keeps only the last\n";

  SECTION("the change deletes the bad files: allowed, each named with its reason") {
    fs::remove(repo + "/deploy/bad.yaml");
    fs::remove(repo + "/deploy/twice.yaml");
    const auto r = run_in(repo, "check --base HEAD deploy");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == bad_note + twice_note +
                       "check: 1 JobSet: 0 denied, 1 allowed (1 updated, 0 created); 0 deleted; 0 "
                       "other objects skipped; 2 files left out\n");
    const Json json = Json::parse(run_in(repo, "check --base HEAD deploy --format json").out);
    REQUIRE(json["notes"].size() == 2);
    CHECK(json["notes"][0]["file"] == "HEAD:deploy/bad.yaml");
    CHECK(json["notes"][0]["line"] == 1);
  }
  SECTION("the change repairs them: their JobSets are created, the rest compared as always") {
    dir.write("repo/deploy/bad.yaml", jobset_yaml("fixed", "bash:5"));
    dir.write("repo/deploy/twice.yaml", jobset_yaml("eval", "eval:2"));
    dir.write("repo/deploy/train.yaml", jobset_yaml("train", "trainer:2", 2));
    const auto r = run_in(repo, "check --base HEAD deploy");
    CHECK(r.exit_code == 1);
    CHECK(r.out.rfind(bad_note + twice_note + "deploy/train.yaml:", 0) == 0);
    CHECK(r.out.find("(1 updated, 2 created); 0 deleted; 0 other objects skipped; 2 files left "
                     "out\n") != std::string::npos);
  }
  SECTION("still bad in the working tree: unusable input, as without --base") {
    const auto r = run_in(repo, "check --base HEAD deploy");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "jobset-webhook check: deploy/bad.yaml:1:1: not a Kubernetes object: kind is missing or "
          "not a string\n");
  }
  SECTION("--old and --new stay strict: both sides are the user's files") {
    fs::remove(repo + "/deploy/twice.yaml");
    copy_tree(repo + "/deploy", dir.path() + "/old");
    fs::remove(dir.path() + "/old/bad.yaml");
    const auto r = run_in(dir.path(), "check --old repo/deploy --new old");
    CHECK(r.exit_code == 2);
  }
}

TEST_CASE("A link is read as its target, once; one out of the repository or nowhere is a note",
          "[cli][gating]") {
  if (!have("git")) {
    WARN("git not installed: skipped");
    return;
  }
  ScratchDir dir;
  const std::string repo = dir.path() + "/repo";
  dir.write("outside.yaml", jobset_yaml("outside", "bash:5"));
  dir.write("repo/deploy/train.yaml", jobset_yaml("train", "trainer:1", 2));
  dir.write("repo/shared/eval.yaml", jobset_yaml("eval", "eval:1"));
  dir.write("repo/shared/eval-2.yaml", jobset_yaml("eval", "eval:2"));
  fs::create_symlink("train.yaml", repo + "/deploy/link.yaml");
  fs::create_symlink("../shared/eval.yaml", repo + "/deploy/eval.yaml");
  fs::create_symlink("../../outside.yaml", repo + "/deploy/out.yaml");
  fs::create_symlink("missing.yaml", repo + "/deploy/dangling.yaml");
  git_init(repo);
  const std::string notes =
      "HEAD:deploy/dangling.yaml:1:1: note: left out: a link to missing.yaml, which leads "
      "nowhere\n"
      "HEAD:deploy/out.yaml:1:1: note: left out: a link to ../../outside.yaml, which leads out of "
      "the repository\n"
      "deploy/dangling.yaml:1:1: note: left out: a link to missing.yaml, which leads nowhere\n"
      "deploy/out.yaml:1:1: note: left out: a link to ../../outside.yaml, which leads out of the "
      "repository\n";

  SECTION("nothing changed: each file once, on both sides") {
    const auto r = run_in(repo, "check --base HEAD deploy");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == notes +
                       "check: 2 JobSets: 0 denied, 2 allowed (2 updated, 0 created); 0 deleted; 0 "
                       "other objects skipped; 4 files left out\n");
  }
  SECTION("the link now leads elsewhere: the base reads what it led to in that commit") {
    fs::remove(repo + "/deploy/eval.yaml");
    fs::create_symlink("../shared/eval-2.yaml", repo + "/deploy/eval.yaml");
    const auto r = run_in(repo, "check --base HEAD deploy");
    CHECK(r.exit_code == 1);
    CHECK(r.out.find(
              "deploy/eval.yaml:" + position_of(slurp(repo + "/shared/eval-2.yaml"), "image:") +
              ": spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: "
              "Invalid value: \"eval:2\": field is immutable (old value: \"eval:1\")\n") !=
          std::string::npos);
  }
  SECTION("from a subdirectory, a link may lead anywhere in the repository") {
    const auto r = run_in(repo + "/deploy", "check --base HEAD eval.yaml link.yaml");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out ==
          "check: 2 JobSets: 0 denied, 2 allowed (2 updated, 0 created); 0 deleted; 0 "
          "other objects skipped\n");
  }
  SECTION("--old and --new: the boundary is each directory given") {
    const auto r = run_in(repo, "validate deploy");
    CHECK(r.exit_code == 0);
    CHECK(r.out ==
          "deploy/dangling.yaml:1:1: note: left out: a link to missing.yaml, which leads "
          "nowhere\n"
          "deploy/eval.yaml:1:1: note: left out: a link to ../shared/eval.yaml, which leads out "
          "of deploy\n"
          "deploy/out.yaml:1:1: note: left out: a link to ../../outside.yaml, which leads out of "
          "deploy\n"
          "validate: 1 JobSet: 0 denied, 1 allowed; 0 other objects skipped; 3 files left out\n");
  }
}

TEST_CASE("Errors without a field path point at the field that caused them, in every format",
          "[cli][gating]") {
  ScratchDir dir;
  const std::string success =
      "  successPolicy:\n    operator: All\n    targetReplicatedJobs:\n    - workers\n"
      "    - driver\n";
  const auto path = dir.write("js.yaml", jobset_yaml("js", "bash:5", -1, success));
  const auto text = slurp(path);
  const std::string where = position_of(text, "driver");
  const std::string line = where.substr(0, where.find(':'));
  const std::string column = where.substr(where.find(':') + 1);
  const std::string message =
      "<nil>: Internal error: invalid replicatedJob name 'driver' does not appear in "
      ".spec.ReplicatedJobs";

  const auto text_report = run_in(dir.path(), "validate js.yaml");
  CHECK(text_report.exit_code == 1);
  CHECK(first_line(text_report.out) == "js.yaml:" + where + ": " + message);

  const auto json = Json::parse(run_in(dir.path(), "validate js.yaml --format json").out);
  const auto& finding = json["jobsets"][0]["findings"][0];
  CHECK(finding["field"] == "<nil>");
  CHECK(finding["text"] == message);
  CHECK(finding["line"] == std::stoi(line));
  CHECK(finding["column"] == std::stoi(column));

  const auto sarif = Json::parse(run_in(dir.path(), "validate js.yaml --format sarif").out);
  CHECK(sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] ==
        Json{{"startLine", std::stoi(line)}, {"startColumn", std::stoi(column)}});

  const auto github = run_in(dir.path(), "validate js.yaml --format github");
  CHECK(first_line(github.out).rfind("::error file=js.yaml," + github_position(where), 0) == 0);

  const auto junit = run_in(dir.path(), "validate js.yaml --format junit");
  // XML text: the failure's body, markup escaped.
  CHECK(junit.out.find("js.yaml:" + where + ": &lt;nil&gt;: Internal error: invalid") !=
        std::string::npos);
}

TEST_CASE("Each upstream error without a field points at its cause", "[cli][gating]") {
  ScratchDir dir;
  struct Case {
    std::string name;
    std::string spec;    // spec fields before replicatedJobs
    std::string needle;  // where the finding must point
    std::string message;
  };
  const std::vector<Case> cases = {
      {"failure-policy target",
       "  failurePolicy:\n    maxRestarts: 1\n    rules:\n    - name: r\n      action: "
       "FailJobSet\n      targetReplicatedJobs:\n      - nope\n",
       "nope", "in failure policy does not appear"},
      {"failure-policy reason",
       "  failurePolicy:\n    maxRestarts: 1\n    rules:\n    - name: r\n      action: "
       "FailJobSet\n      onJobFailureReasons:\n      - Unheard\n",
       "Unheard", "is not a recognized job failure reason"},
      {"repeated rule name",
       "  failurePolicy:\n    rules:\n    - name: same\n      action: FailJobSet\n    - name: "
       "same\n      action: FailJobSet\n",
       "name: same\n      action: FailJobSet\n", "rule names are not unique"},
      {"coordinator replicatedJob",
       "  coordinator:\n    replicatedJob: nope\n    jobIndex: 0\n    podIndex: 0\n",
       "replicatedJob: nope", "coordinator replicatedJob nope does not exist"},
      {"coordinator job index",
       "  coordinator:\n    replicatedJob: workers\n    jobIndex: 7\n    podIndex: 0\n",
       "jobIndex: 7", "coordinator job index 7 is invalid"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto path = dir.write("js.yaml", jobset_yaml("js", "bash:5", -1, c.spec));
      const auto text = slurp(path);
      std::string where = position_of(text, c.needle);
      if (c.name == "repeated rule name") {
        // At the second rule's name, the one that repeats it.
        const auto second = text.find(c.needle, text.find(c.needle) + 1);
        REQUIRE(second != std::string::npos);
        where = position_at(text, second);
      }
      const auto r = run_in(dir.path(), "validate js.yaml");
      CHECK(r.exit_code == 1);
      INFO(r.out);
      CHECK(r.out.find("js.yaml:" + where + ": <nil>: Internal error: ") == 0);
      CHECK(first_line(r.out).find(c.message) != std::string::npos);
    }
  }
}

TEST_CASE("A scale warning points at the replicas line, or the name line when replicas is unset",
          "[cli][gating]") {
  ScratchDir dir;
  const auto old_path = dir.write("old.yaml", jobset_yaml("js", "bash:5", 3));
  const auto unset = dir.write("new.yaml", jobset_yaml("js", "bash:5"));
  for (const std::string format : {"text", "github", "json", "sarif", "junit"}) {
    DYNAMIC_SECTION(format) {
      const auto r = run_in(dir.path(), "check --old old.yaml --new new.yaml --format " + format);
      CHECK(r.exit_code == 0);
      const std::string where = position_of(slurp(unset), "name: workers");
      const std::string line = where.substr(0, where.find(':'));
      const std::string column = where.substr(where.find(':') + 1);
      if (format == "text") {
        CHECK(first_line(r.out).rfind("new.yaml:" + where +
                                          ": warning: replicatedJob \"workers\" "
                                          "scaled down from 3 to 1: ",
                                      0) == 0);
      } else if (format == "github") {
        CHECK(first_line(r.out).rfind("::warning file=new.yaml," + github_position(where) + ",",
                                      0) == 0);
      } else if (format == "json") {
        const auto report = Json::parse(r.out);
        // Two warnings (the scale, the replica counts left stale), both at the same place.
        const std::string at =
            R"({"file":"new.yaml","line":)" + line + R"(,"column":)" + column + "}";
        CHECK(report["jobsets"][0]["warningLocations"] == Json::parse("[" + at + "," + at + "]"));
      } else if (format == "sarif") {
        const auto report = Json::parse(r.out);
        CHECK(report["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] ==
              Json{{"startLine", std::stoi(line)}, {"startColumn", std::stoi(column)}});
      } else {
        CHECK(r.out.find("new.yaml:" + where + ": warning: replicatedJob") != std::string::npos);
      }
    }
  }
  SECTION("written out: the replicas line") {
    const auto written = dir.write("new.yaml", jobset_yaml("js", "bash:5", 5));
    const auto r = run_in(dir.path(), "check --old old.yaml --new new.yaml");
    CHECK(first_line(r.out).rfind(
              "new.yaml:" + position_of(slurp(written), "replicas: 5") + ": warning: ", 0) == 0);
  }
}

TEST_CASE("Two files named as arguments, or a file and stdin, are compared as one file",
          "[cli][gating]") {
  ScratchDir dir;
  dir.write("base.yaml", jobset_yaml("train", "trainer:1"));
  const auto head = dir.write("head.yaml", jobset_yaml("train", "trainer:1", 3));
  const auto files = run_in(dir.path(), "check --old base.yaml --new head.yaml");
  CHECK(files.exit_code == 0);
  CHECK(files.out.find("note:") == std::string::npos);
  CHECK(files.out.find("(1 updated, 0 created)") != std::string::npos);
  const auto piped = run_in(dir.path(), "check --old base.yaml --new - <head.yaml");
  CHECK(piped.exit_code == 0);
  CHECK(first_line(piped.out).rfind(
            "<stdin>:" + position_of(slurp(head), "replicas: 3") + ": warning: ", 0) == 0);
}

TEST_CASE("The pre-commit hook runs validate on the files it is given", "[cli][gating]") {
  const auto hooks = cli::parse_yaml_documents(
      slurp(std::string(JOBSET_SOURCE_DIR) + "/.pre-commit-hooks.yaml"), "hooks");
  REQUIRE(hooks.ok());
  REQUIRE(hooks.value().size() == 1);
  const auto& hook = hooks.value()[0].at(0);
  CHECK(hook["id"] == "jobset-validate");
  CHECK(hook["language"] == "system");
  const std::string entry = hook["entry"].get<std::string>();
  REQUIRE(entry.rfind("jobset-webhook validate", 0) == 0);
  // pre-commit runs `entry` with the staged files that match `files` appended.
  ScratchDir dir;
  dir.write("deploy/ok.yaml", jobset_yaml("ok", "bash:5"));
  dir.write("deploy/bad.yaml",
            jobset_yaml("bad", "bash:5", -1,
                        "  successPolicy:\n    operator: All\n    targetReplicatedJobs:\n"
                        "    - nope\n"));
  const std::string args = entry.substr(std::string("jobset-webhook ").size());
  CHECK(run_in(dir.path(), args + " deploy/ok.yaml").exit_code == 0);
  const auto bad = run_in(dir.path(), args + " deploy/ok.yaml deploy/bad.yaml");
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.find("deploy/bad.yaml:") == 0);
}

// `check`, `validate` and `default` run as a user runs them: the JobSets of tests/data/jobsets,
// files, directories and stdin, every format read back, every kind of bad input.

#include <catch2/catch.hpp>

#include "jobset_webhook/apiserver/apiserver.h"
#include "cli/documents.h"
#include "cli/manifests.h"
#include "support/admission.h"
#include "support/review_builder.h"
#include "support/files.h"
#include "support/process.h"
#include "support/xml.h"

namespace cli = jobset_webhook::cli;
using jobset_webhook::Hook;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::run_cli;
using jobset_webhook::testing::ScratchDir;
using jobset_webhook::testing::slurp;

namespace {

// text with the first `from` replaced by `to`; the test fails if there is none.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// A file of tests/data/jobsets, this project's own example JobSets.
std::string example(const std::string& relative) {
  return std::string(JOBSET_TESTDATA_DIR) + "/jobsets/" + relative;
}

const std::string kParallel = "training.yaml";

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("Every subcommand has --help, and --version prints the version",
          "[cli][manifest_commands]") {
  for (const std::string sub : {"review", "check", "validate", "default"}) {
    DYNAMIC_SECTION(sub) {
      const auto r = run_cli(sub + " --help");
      CHECK(r.exit_code == 0);
      CHECK(r.out.find("Usage: jobset-webhook " + sub) != std::string::npos);
    }
  }
  const auto check = run_cli("check --help").out;
  for (const char* option :
       {"--old", "--new", "--config", "--format", "text,json,junit,sarif,github"}) {
    CHECK(check.find(option) != std::string::npos);
  }
  const auto version = run_cli("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out == JOBSET_WEBHOOK_VERSION "\n");
}

TEST_CASE("Scaling an example up or down passes; changing its image fails at the image's line",
          "[cli][manifest_commands]") {
  ScratchDir dir;
  const auto base = slurp(example(kParallel));
  const auto old_path = example(kParallel);
  for (const int replicas : {0, 3, 100}) {
    DYNAMIC_SECTION("replicas " << replicas) {
      const auto scaled = dir.write(
          "scaled.yaml",
          replaced(base, "  - name: workers\n",
                   "  - name: workers\n    replicas: " + std::to_string(replicas) + "\n"));
      const auto r = run_cli("check --old " + old_path + " --new " + scaled);
      CHECK(r.exit_code == 0);
      CHECK(r.err.empty());
      CHECK(r.out.find("check: 1 JobSet: 0 denied, 1 allowed (1 updated, 0 created); 0 deleted; 0 "
                       "other objects skipped\n") != std::string::npos);
      // At the replicas line, written below `- name: workers` (line 7).
      if (replicas != 1)
        CHECK(r.out.find(scaled + ":8:5: warning: replicatedJob \"workers\" scaled ") == 0);
    }
  }
  SECTION("an image change") {
    const auto edited =
        dir.write("image.yaml", replaced(base, "image: busybox", "image: busybox:1.36"));
    const auto r = run_cli("check --old " + old_path + " --new " + edited);
    CHECK(r.exit_code == 1);
    CHECK(r.out ==
          edited +
              ":17:15: spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: "
              "Invalid value: \"busybox:1.36\": field is immutable (old value: \"busybox\")\n"
              "check: 1 JobSet: 1 denied, 0 allowed (1 updated, 0 created); 0 deleted; 0 other "
              "objects skipped\n");
  }
}

TEST_CASE("check reads the new side from stdin", "[cli][manifest_commands]") {
  const auto base = slurp(example(kParallel));
  const auto r = run_cli("check --old " + example(kParallel) + " --new -",
                         replaced(base, "args:\n", "args:\n                - 200s\n"));
  CHECK(r.exit_code == 1);
  CHECK(first_line(r.out) ==
        "<stdin>:20:15: spec.replicatedJobs[0].template.spec.template.spec.containers[0].args: "
        "Forbidden: field is immutable: added \"200s\"");
}

TEST_CASE("check compares directories of multi-document files and Lists, JobSet by JobSet",
          "[cli][manifest_commands]") {
  ScratchDir dir;
  const auto parallel = slurp(example(kParallel));
  const auto group = slurp(example("groups.yaml"));
  const std::string config_map =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n";
  // old: two JobSets and a ConfigMap in one file, a third JobSet alone.
  dir.write("old/app.yaml", config_map + "---\n" + parallel + "\n---\n" + group);
  dir.write("old/extra/gone.yaml", replaced(parallel, "name: training", "name: gone"));
  // new: the same objects as a List (what `kubectl get -o yaml` prints, as JSON), one image
  // changed, one JobSet created, one deleted.
  const auto list_items = Json::array({
      cli::parse_yaml_documents(config_map, "cm").value()[0],
      cli::parse_yaml_documents(replaced(parallel, "image: busybox", "image: busybox:1.36"), "p")
          .value()[0],
      cli::parse_yaml_documents(group, "g").value()[0],
  });
  dir.write("new/app.json",
            Json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", list_items}}.dump(2));
  dir.write("new/sub/created.yml", replaced(parallel, "name: training", "name: created"));
  dir.write("new/notes.txt", "not a manifest\n");

  const auto r =
      run_cli("check --old " + dir.path() + "/old --new " + dir.path() + "/new --format json");
  CHECK(r.exit_code == 1);
  CHECK(r.err.empty());
  const auto report = Json::parse(r.out);
  CHECK(report["summary"] ==
        Json::parse(R"({"jobsets":3,"allowed":2,"denied":1,"updated":2,"created":1,"deleted":1,
    "skipped":1,"text":"check: 3 JobSets: 1 denied, 2 allowed (2 updated, 1 created); 1 deleted; 1 other object skipped",
    "scalers":{"judged":0,"allowed":0,"denied":0,"updated":0,"created":0,"deleted":0}})"));
  std::vector<std::string> seen;
  for (const auto& js : report["jobsets"])
    seen.push_back(js["operation"].get<std::string>() + " " + js["name"].get<std::string>());
  CHECK(seen == std::vector<std::string>{"UPDATE training", "UPDATE grouped", "CREATE created",
                                         "DELETE gone"});
  const auto& finding = report["jobsets"][0]["findings"][0];
  CHECK(finding["file"] == dir.path() + "/new/app.json");
  CHECK(finding["field"] ==
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image");
  CHECK(finding["oldValue"] == "\"busybox\"");
  // The List is JSON: the mark is the image key's opening quote inside items[1].
  const auto json_lines = slurp(dir.path() + "/new/app.json");
  const auto image_at = json_lines.find("\"image\": \"busybox:1.36\"");
  REQUIRE(image_at != std::string::npos);
  const auto line_start = json_lines.rfind('\n', image_at) + 1;
  CHECK(finding["line"] ==
        1 + std::count(json_lines.begin(), json_lines.begin() + static_cast<long>(image_at), '\n'));
  CHECK(finding["column"] == 1 + static_cast<long>(image_at - line_start));
  CHECK(report["jobsets"][3]["file"] == dir.path() + "/old/extra/gone.yaml");
  CHECK(report["skipped"][0]["kind"] == "ConfigMap");
}

TEST_CASE("Each format of a denial parses back and agrees with the others",
          "[cli][manifest_commands]") {
  ScratchDir dir;
  const auto edited = dir.write(
      "new.yaml", replaced(slurp(example(kParallel)), "image: busybox", "image: busybox:1.36"));
  const std::string args = "check --old " + example(kParallel) + " --new " + edited + " --format ";
  const std::string field =
      "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image";

  const auto json = run_cli(args + "json");
  CHECK(json.exit_code == 1);
  const auto report = Json::parse(json.out);
  CHECK(report["allowed"] == false);
  const auto& js = report["jobsets"][0];
  CHECK(js["message"].get<std::string>().rfind(
            "JobSet.jobset.x-k8s.io \"training\" is invalid: " + field, 0) == 0);

  const auto junit = run_cli(args + "junit");
  CHECK(junit.exit_code == 1);
  jobset_webhook::testing::XmlReader reader(junit.out);
  const auto root = reader.parse();
  INFO(reader.error());
  REQUIRE(root);
  const auto cases = root->all("testsuite").at(0)->all("testcase");
  REQUIRE(cases.size() == 1);
  CHECK(cases[0]->attributes.at("name") == "default/training");
  CHECK(cases[0]->all("failure").at(0)->attributes.at("message") == js["message"]);

  const auto sarif = run_cli(args + "sarif");
  CHECK(sarif.exit_code == 1);
  const auto results = Json::parse(sarif.out)["runs"][0]["results"];
  REQUIRE(results.size() == 1);
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"] ==
        Json::parse(R"({"startLine":17,"startColumn":15})"));

  const auto github = run_cli(args + "github");
  CHECK(github.exit_code == 1);
  CHECK(first_line(github.out) ==
        "::error file=" + edited +
            ",line=17,col=15,title=JobSet default/training (UPDATE)::" + field +
            ": Invalid value: \"busybox:1.36\": field is immutable (old value: \"busybox\")");

  const auto allowed = run_cli("check --old " + example(kParallel) + " --new " +
                               example(kParallel) + " --format junit");
  CHECK(allowed.exit_code == 0);
  CHECK(allowed.out.find("<failure") == std::string::npos);
}

TEST_CASE("validate gives the server's CREATE verdict and message for each JobSet",
          "[cli][manifest_commands]") {
  // Inputs that upstream's CREATE rules judge; the verdict is whatever the server answers.
  ScratchDir dir;
  const std::string head =
      "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: ";
  const std::string rj =
      "    template:\n      spec:\n        template:\n          spec:\n            containers:\n"
      "            - name: main\n              image: bash\n";
  const std::vector<std::string> inputs = {
      head + "ok\nspec:\n  replicatedJobs:\n  - name: a\n" + rj,
      head +
          "first-depends\nspec:\n  replicatedJobs:\n  - name: a\n    dependsOn:\n    - name: b\n   "
          "   status: Ready\n" +
          rj,
      head +
          "bad-subdomain\nspec:\n  network:\n    subdomain: Not_A_Label\n  replicatedJobs:\n  - "
          "name: a\n" +
          rj,
      head + "bad-managed-by\nspec:\n  managedBy: nodomain\n  replicatedJobs:\n  - name: a\n" + rj,
      head + std::string(62, 'a') +
          "\nspec:\n  replicatedJobs:\n  - name: rj\n    replicas: 101\n" + rj,
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    DYNAMIC_SECTION("input " << i) {
      const auto path = dir.write("in" + std::to_string(i) + ".yaml", inputs[i]);
      const auto r = run_cli("validate --format json " + path);
      const auto manifest = cli::parse_yaml_documents(inputs[i], "x").value()[0];
      const auto stored = jobset_webhook::apiserver::create_defaults(manifest);
      REQUIRE(stored.ok());
      const auto response = jobset_webhook::testing::server_response(
          jobset_webhook::testing::MakeReview().Create(stored.value()).Obj(), Policy{},
          Hook::kValidating);
      const bool allowed = response["allowed"].get<bool>();
      CHECK(r.exit_code == (allowed ? 0 : 1));
      const auto report = Json::parse(r.out);
      CHECK(report["command"] == "validate");
      CHECK(report["jobsets"][0]["operation"] == "CREATE");
      CHECK(report["jobsets"][0]["allowed"] == allowed);
      CHECK(report["jobsets"][0]["message"] ==
            (allowed ? Json("") : response["status"]["message"]));
    }
  }
}

TEST_CASE("validate reads files, directories and stdin", "[cli][manifest_commands]") {
  const auto files = run_cli("validate " + example(kParallel) + " " + example("groups.yaml"));
  CHECK(files.exit_code == 0);
  CHECK(files.out == "validate: 2 JobSets: 0 denied, 2 allowed; 0 other objects skipped\n");
  const auto from_stdin = run_cli("validate -", slurp(example("with-priority.yaml")));
  CHECK(from_stdin.exit_code == 0);
  CHECK(from_stdin.out == "validate: 1 JobSet: 0 denied, 1 allowed; 2 other objects skipped\n");
  const auto directory = run_cli("validate " + example(""));
  CHECK(directory.exit_code == 1);  // the two JobSets of gated/ need a feature gate
  CHECK(
      directory.out.find("\nvalidate: 6 JobSets: 2 denied, 4 allowed; 2 other objects skipped\n") !=
      std::string::npos);
}

TEST_CASE("default prints what the cluster would store, as YAML that reads back",
          "[cli][manifest_commands]") {
  const auto input = slurp(example("with-priority.yaml"));
  const auto r = run_cli("default -", input);
  CHECK(r.exit_code == 0);
  CHECK(r.err == "jobset-webhook default: 2 objects that are not JobSets left out\n");
  const auto docs = cli::parse_yaml_documents(r.out, "out");
  REQUIRE(docs.ok());
  REQUIRE(docs.value().size() == 1);
  const auto manifests = cli::parse_manifests(input, "in").value();
  CHECK(docs.value()[0] ==
        jobset_webhook::apiserver::create_defaults(manifests.jobsets.at(0).object).value());
  CHECK(docs.value()[0]["spec"]["replicatedJobs"][0]["replicas"].is_number_integer());
  CHECK(docs.value()[0]["spec"]["replicatedJobs"][0]["groupName"].is_string());
}

TEST_CASE("Unusable input exits 2 with one clear line and no report", "[cli][manifest_commands]") {
  ScratchDir dir;
  const auto good = example(kParallel);
  const auto parallel = slurp(good);
  struct Case {
    std::string name;
    std::string args;
    std::string stdin_text;
    std::string want_err;  // the whole of stderr
  };
  const std::vector<Case> cases = {
      {"a missing file", "check --old /nonexistent.yaml --new " + good, "",
       "jobset-webhook check: /nonexistent.yaml: No such file or directory\n"},
      {"a path below a file", "validate " + good + "/x.yaml", "",
       "jobset-webhook validate: " + good + "/x.yaml: Not a directory\n"},
      {"malformed YAML, with its line",
       "check --old " + good + " --new " + dir.write("bad.yaml", "kind: JobSet\nspec:\n  a: [1,\n"),
       "",
       "jobset-webhook check: " + dir.path() + "/bad.yaml:4:1: end of sequence flow not found\n"},
      {"a merge of a scalar", "validate -", "apiVersion: v1\nkind: ConfigMap\n<<: 1\n",
       "jobset-webhook validate: <stdin>:3:1: map merge requires map or sequence of maps as the "
       "value\n"},
      {"duplicate JobSet names", "check --old " + good + " --new -",
       parallel + "\n---\n" + parallel,
       "jobset-webhook check: <stdin>:39:1: --new holds JobSet default/training twice in one "
       "file (first at <stdin>:1:1); applying the file keeps only the last\n"},
      {"an unknown policy key",
       "check --config " + dir.write("policy.yaml", "elastic:\n  replica: true\n") + " --old " +
           good + " --new " + good,
       "",
       "jobset-webhook check: " + dir.path() +
           "/policy.yaml: policy: elastic.replica: unknown key (known: replicas, parallelism, "
           "scaleDown, scaleDownNoticeSeconds)\n"},
      {"a document that is not an object", "validate -", "just text\n",
       "jobset-webhook validate: <stdin>:1:1: a document must be a Kubernetes object (a mapping), "
       "got string\n"},
      {"stdin twice", "check --old - --new -", "",
       "jobset-webhook check: - (stdin) can be given once only\n"},
      {"an unknown format", "validate --format xml " + good, "",
       "--format: xml not in {text,json,junit,sarif,github}\nRun with --help for more "
       "information.\n"},
      {"a missing --new", "check --old " + good, "",
       "jobset-webhook check: --new is required (or --base REF PATH...)\n"},
      {"--base with --old", "check --base HEAD --old " + good + " " + good, "",
       "jobset-webhook check: --base compares PATHs at REF with the working tree: no --old or "
       "--new\n"},
      {"--base without paths", "check --base HEAD", "",
       "jobset-webhook check: --base needs the PATHs to compare (files or directories, e.g. .)\n"},
      {"default on a bad file", "default -", "kind: [\n",
       "jobset-webhook default: <stdin>:2:1: end of sequence flow not found\n"},
      // What kube-apiserver v1.37.2 answers the create of this JobSet (docs/ci-gating.md).
      {"default of a JobSet with an unknown status field", "default -",
       "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\n"
       "status: {foo: 1}\n",
       "jobset-webhook default: <stdin>:1:1: JobSet default/js: JobSet in version \"v1alpha2\" "
       "cannot be handled as a JobSet: strict decoding error: unknown field \"status.foo\"\n"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto r = run_cli(c.args, c.stdin_text);
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
      CHECK(r.err == c.want_err);
    }
  }
}

TEST_CASE("Manifests rewritten by kubectl are checked the same way",
          "[cli][manifest_commands][kubectl]") {
  // kubectl reorders keys and re-indents, as a real edit might. `meson test` runs the [kubectl]
  // group only where kubectl is installed, and counts it as skipped elsewhere.
  REQUIRE(std::system("command -v kubectl >/dev/null 2>&1") == 0);
  ScratchDir dir;
  const auto patched = [&](const std::string& name, const std::string& patch) {
    const auto out = dir.path() + "/" + name;
    const std::string cmd = "kubectl patch --local -f " + example(kParallel) + " --type=json -p '" +
                            patch + "' -o yaml >" + out + " 2>/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    return out;
  };
  const auto scaled = patched(
      "scaled.yaml", R"([{"op":"add","path":"/spec/replicatedJobs/0/replicas","value":5}])");
  CHECK(run_cli("check --old " + example(kParallel) + " --new " + scaled).exit_code == 0);
  const auto image = patched(
      "image.yaml",
      R"([{"op":"replace","path":"/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image","value":"busybox:2"}])");
  const auto r = run_cli("check --old " + example(kParallel) + " --new " + image);
  CHECK(r.exit_code == 1);
  // The finding's line in kubectl's output is the image line.
  const auto where = r.out.substr(image.size() + 1, r.out.find(": spec.") - image.size() - 1);
  const auto line = std::stoi(where.substr(0, where.find(':')));
  const auto text = slurp(image);
  std::size_t start = 0;
  for (int i = 1; i < line; ++i) start = text.find('\n', start) + 1;
  CHECK(text.substr(start, text.find('\n', start) - start).find("image: busybox:2") !=
        std::string::npos);
}

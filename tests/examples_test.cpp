// Example JobSets as inputs to the CREATE and UPDATE rules: this project's own (tests/data/jobsets),
// and upstream's (JOBSET_EXAMPLES_DIR, tag [upstream_examples]: run only when they are present).
// CREATE: every example is admitted (the feature-gated ones with their gate on), before and after
// its defaults. UPDATE: every replicas change is allowed, and a change to any single leaf of a
// template is denied with exactly that leaf's path. The edits are generated, not hand-picked.

#include <filesystem>

#include <catch2/catch.hpp>

#include "cli/documents.h"
#include "jobset_webhook/decide.h"
#include "jobset_webhook/defaulting/defaults.h"
#include "jobset_webhook/patch/json_patch.h"
#include "jobset_webhook/validation/create.h"
#include "validation/field_kinds.h"
#include "jobset_webhook/validation/update.h"
#include "support/parsed.h"

namespace fs = std::filesystem;
namespace v = jobset_webhook::validation;
using jobset_webhook::Json;
using jobset_webhook::Policy;
using jobset_webhook::testing::Parsed;

namespace {

// A directory of examples and what the tests expect of it at least.
struct Examples {
  fs::path root;
  std::size_t jobsets;  // at least
  std::size_t edits;    // single-leaf template edits, at least
  std::size_t gated;    // JobSets that need a feature gate, exactly
};

const Examples kOwn{JOBSET_TESTDATA_DIR "/jobsets", 6, 60, 2};
const Examples kUpstream{JOBSET_EXAMPLES_DIR, 20, 400, 4};

// Every JobSet document of the examples, as written, named "<file>:<name>".
std::vector<std::pair<std::string, Json>> example_documents(const fs::path& root) {
  std::vector<std::pair<std::string, Json>> out;
  REQUIRE(fs::is_directory(root));
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const auto text = jobset_webhook::cli::read_input(file.string());
    REQUIRE(text.ok());
    const auto docs = jobset_webhook::cli::parse_yaml_documents(text.value(), file.string());
    REQUIRE(docs.ok());
    for (const auto& doc : docs.value()) {
      if (doc.value("kind", "") != "JobSet") continue;
      out.emplace_back(fs::relative(file, root).string() + ":" + doc["metadata"].value("name", ""),
                       doc);
    }
  }
  return out;
}

std::vector<std::pair<std::string, Json>> example_jobsets(const fs::path& root) {
  auto out = example_documents(root);
  // The suspended-JobSet exceptions are tested on their own; here every leaf is immutable.
  for (auto& [name, js] : out) {
    if (js["spec"].contains("suspend")) js["spec"].erase("suspend");
  }
  return out;
}

// The upstream feature gates a JobSet needs: InPlaceRestart for that restart strategy, RestartJob
// for a failure-policy rule with either RestartJob action.
Policy gates_for(const Json& js) {
  Policy policy;
  const auto spec = js.value("spec", Json::object());
  const auto failure_policy = spec.value("failurePolicy", Json::object());
  policy.feature_gates.in_place_restart =
      failure_policy.value("restartStrategy", "") == "InPlaceRestart";
  for (const auto& rule : failure_policy.value("rules", Json::array())) {
    const auto action = rule.value("action", "");
    if (action == "RestartJob" || action == "RestartJobAndIgnoreMaxRestarts") {
      policy.feature_gates.restart_job = true;
    }
  }
  return policy;
}

std::string create_errors(const Json& js, const Policy& policy) {
  const Parsed parsed(js);
  return jobset_webhook::field::to_string(
      jobset_webhook::validate_create_after_defaults(parsed, policy));
}

struct Leaf {
  Json::json_pointer pointer;
  std::string path;  // as a field error prints it
};

// Every scalar below value, with its printed path. Map entries print as [key], struct fields as
// .name, which the kind table tells apart.
void collect_leaves(const Json& value, const Json::json_pointer& pointer, const std::string& path,
                    const v::FieldKind* kind, std::vector<Leaf>& out) {
  if (value.is_object()) {
    const bool is_map = kind != nullptr && kind->shape == v::Shape::kMap;
    for (const auto& [k, child] : value.items()) {
      const v::FieldKind* child_kind = kind == nullptr ? nullptr
                                       : is_map        ? kind->element.get()
                                                       : kind->field(k);
      collect_leaves(child, pointer / k, path + (is_map ? "[" + k + "]" : "." + k), child_kind,
                     out);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      collect_leaves(value[i], pointer / i, path + "[" + std::to_string(i) + "]",
                     kind != nullptr ? kind->element.get() : nullptr, out);
    }
  } else if (!value.is_null()) {
    out.push_back({pointer, path});
  }
}

Json changed(const Json& leaf) {
  if (leaf.is_string()) return leaf.get<std::string>() + "-edited";
  if (leaf.is_boolean()) return !leaf.get<bool>();
  if (leaf.is_number_integer()) return leaf.get<std::int64_t>() + 1;
  return leaf.get<double>() + 0.5;
}

std::vector<std::string> error_lines(const Json& old_js, const Json& new_js) {
  const Parsed a(old_js), b(new_js);
  std::vector<std::string> out;
  for (const auto& e : v::validate_update(a, b, Policy{}).errors) out.push_back(e.to_string());
  return out;
}

void every_jobset_scales(const Examples& e) {
  const auto examples = example_jobsets(e.root);
  REQUIRE(examples.size() >= e.jobsets);
  for (const auto& [name, js] : examples) {
    for (std::size_t i = 0; i < js["spec"]["replicatedJobs"].size(); ++i) {
      for (const int replicas : {0, 1, 2, 7, 1000}) {
        DYNAMIC_SECTION(name << " replicatedJobs[" << i << "].replicas=" << replicas) {
          Json scaled = js;
          scaled["spec"]["replicatedJobs"][i]["replicas"] = replicas;
          const auto errors = error_lines(js, scaled);
          // The one scale refused: below the coordinator's Job, which upstream would keep naming.
          const Json coordinator = js["spec"].value("coordinator", Json::object());
          if (coordinator.value("replicatedJob", "") ==
                  js["spec"]["replicatedJobs"][i].value("name", "") &&
              coordinator.value("jobIndex", 0) >= replicas) {
            REQUIRE(errors.size() == 1);
            CHECK(errors[0].rfind("spec.replicatedJobs[" + std::to_string(i) +
                                      "].replicas: Invalid value: " + std::to_string(replicas) +
                                      ": coordinator job index ",
                                  0) == 0);
          } else {
            CHECK(errors.empty());
          }
        }
      }
    }
  }
}

void every_leaf_edit_is_denied(const Examples& e) {
  std::size_t edits = 0;
  for (const auto& [name, js] : example_jobsets(e.root)) {
    const auto& rjobs = js["spec"]["replicatedJobs"];
    for (std::size_t i = 0; i < rjobs.size(); ++i) {
      std::vector<Leaf> leaves;
      const std::string prefix = "spec.replicatedJobs[" + std::to_string(i) + "].template";
      collect_leaves(rjobs[i]["template"],
                     Json::json_pointer("/spec/replicatedJobs/" + std::to_string(i) + "/template"),
                     prefix, v::replicated_job_kind().field("template"), leaves);
      for (const auto& leaf : leaves) {
        Json edited = js;
        edited[leaf.pointer] = changed(js[leaf.pointer]);
        const auto lines = error_lines(js, edited);
        INFO(name << " " << leaf.path);
        REQUIRE(lines.size() == 1);
        CHECK(lines[0].rfind(leaf.path + ": Invalid value: ", 0) == 0);
        CHECK(lines[0].substr(lines[0].size() - 20) == ": field is immutable");
        ++edits;
      }
    }
  }
  CHECK(edits >= e.edits);
}

void every_jobset_is_admitted(const Examples& e) {
  const auto examples = example_documents(e.root);
  REQUIRE(examples.size() >= e.jobsets);
  for (const auto& [name, js] : examples) {
    DYNAMIC_SECTION(name) {
      const Policy policy = gates_for(js);
      CHECK(create_errors(js, policy) == "");
      const Json ops = jobset_webhook::defaulting::defaults_patch(Parsed(js));
      CHECK_FALSE(ops.empty());  // no example spells out every default
      const auto defaulted = jobset_webhook::patch::apply(js, ops);
      REQUIRE(defaulted.ok());
      CHECK(create_errors(defaulted.value(), policy) == "");
      CHECK(jobset_webhook::defaulting::defaults_patch(Parsed(defaulted.value())).dump() == "[]");
    }
  }
}

void gated_jobsets_are_rejected(const Examples& e) {
  std::size_t gated = 0;
  for (const auto& [name, js] : example_documents(e.root)) {
    const Policy needs = gates_for(js);
    if (!needs.feature_gates.in_place_restart && !needs.feature_gates.restart_job) continue;
    ++gated;
    DYNAMIC_SECTION(name) {
      const std::string want =
          needs.feature_gates.in_place_restart
              ? "<nil>: Internal error: InPlaceRestart restart strategy cannot be set when "
                "InPlaceRestart feature gate "
                "is disabled"
              : "<nil>: Internal error: RestartJob and RestartJobAndIgnoreMaxRestarts failure "
                "policy actions are not "
                "allowed when RestartJob feature gate is disabled";
      CHECK(create_errors(js, Policy{}) == want);
    }
  }
  CHECK(gated == e.gated);
}

}  // namespace

TEST_CASE("Every JobSet of the fixtures may be scaled up and down", "[examples]") {
  every_jobset_scales(kOwn);
}

TEST_CASE("Every single-leaf template edit of every fixture is denied at that leaf", "[examples]") {
  every_leaf_edit_is_denied(kOwn);
}

TEST_CASE("Every JobSet of the fixtures is admitted on create, before and after its defaults",
          "[examples][create]") {
  every_jobset_is_admitted(kOwn);
}

TEST_CASE("Feature-gated fixtures are rejected with upstream's default gates",
          "[examples][create]") {
  gated_jobsets_are_rejected(kOwn);
}

TEST_CASE("Every upstream example JobSet may be scaled up and down", "[upstream_examples]") {
  every_jobset_scales(kUpstream);
}

TEST_CASE("Every single-leaf template edit of every upstream example is denied at that leaf",
          "[upstream_examples]") {
  every_leaf_edit_is_denied(kUpstream);
}

TEST_CASE("Every upstream example JobSet is admitted on create, before and after its defaults",
          "[upstream_examples][create]") {
  every_jobset_is_admitted(kUpstream);
}

TEST_CASE("Feature-gated upstream examples are rejected with upstream's default gates",
          "[upstream_examples][create]") {
  gated_jobsets_are_rejected(kUpstream);
}

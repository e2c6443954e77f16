// What `check` costs, whole: both manifests read (with their positions), both stored forms, the
// decision and the text report, for one pair of JobSet files that differ in replicas only; and
// beside it, on the same JobSets, `validate` of the new file (read, stored, the CREATE rules, the
// report) and `review` of the UPDATE as an AdmissionReview (admission::handle_review's bytes).
//   large-ordinary  the JobSets of the generated large-update-replicas review (1.1 MB): the
//                   baseline, an ordinary JobSet of that size
//   labels-60000    one pod template with 60,000 labels (a map of that many keys)
//   env-36000       one container with 36,000 env entries (a list-map of that many entries)
//   env-ratcheted-36000  the same with every value a number, which the CRD refuses: each error is
//                   ratcheted away by finding the entry's old self (the update changes no entry)
// and two CREATEs, through `validate` and `review` only (a CREATE review, as the API server sends
// it to the validating webhook, which defaults it first, decide.cpp):
//   create-ordinary the JobSet of the generated large-create review (1.1 MB), with every default
//                   upstream's mutating webhook and the CRD set: the baseline of the create- cases
//   create-labels-60000  labels-60000's new JobSet as a client posts it, without any of those
//                   defaults: the defaults (create_defaults_view) are added over the large map
// scripts/bench-ratios divides each case's CPU time per byte by the baseline's of the same command:
// a map or a list of any size must cost no more than a small multiple of an ordinary JobSet of the
// same size (docs/benchmarks.md sets 3); a create- case is divided by create-ordinary's. validate leaves env-ratcheted out: on a CREATE nothing
// ratchets, and the CRD refuses it.
//
// Usage: check_benchmark [--benchmark_* flags] [BODIES_DIR]

#include <benchmark/benchmark.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/check.h"
#include "cli/manifests.h"
#include "cli/report.h"
#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"

namespace {

namespace cli = jobset_webhook::cli;
using jobset_webhook::Json;

struct Pair {
  std::string name;
  std::string old_text;  // "" for a CREATE: only validate and review run it
  std::string new_text;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A JobSet with one replicatedJob whose pod template is `pod_template` (JSON text).
std::string jobset_text(int replicas, const std::string& pod_template) {
  return R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"big",)"
         R"("namespace":"default"},"spec":{"replicatedJobs":[{"name":"w","replicas":)" +
         std::to_string(replicas) + R"(,"template":{"spec":{"template":)" + pod_template + "}}}]}}";
}

Pair labels_pair(int count) {
  std::string labels;
  for (int i = 0; i < count; ++i) {
    if (i > 0) labels += ",";
    labels +=
        "\"label-" + std::to_string(100000 + i) + "\":\"value-" + std::to_string(100000 + i) + "\"";
  }
  const std::string pod = R"({"metadata":{"labels":{)" + labels +
                          R"(}},"spec":{"restartPolicy":"Never","containers":[{"name":"c",)"
                          R"("image":"busybox"}]}})";
  return {"labels-" + std::to_string(count), jobset_text(1, pod), jobset_text(2, pod)};
}

// Each entry's value: a string, or with `invalid` a number (the CRD says string).
Pair env_pair(int count, bool invalid = false) {
  std::string env;
  for (int i = 0; i < count; ++i) {
    if (i > 0) env += ",";
    const std::string value = std::to_string(100000 + i);
    env +=
        R"({"name":"E)" + value + R"(","value":)" + (invalid ? value : "\"v" + value + "\"") + "}";
  }
  const std::string pod = R"({"spec":{"restartPolicy":"Never","containers":[{"name":"c",)"
                          R"("image":"busybox","env":[)" +
                          env + "]}]}}";
  return {std::string(invalid ? "env-ratcheted-" : "env-") + std::to_string(count),
          jobset_text(1, pod), jobset_text(2, pod)};
}

// The two JobSets of a generated UPDATE review, as two manifest files.
Pair review_pair(const std::string& name, const std::string& review_path) {
  const Json review = Json::parse(read_file(review_path));
  return {name, review["request"]["oldObject"].dump(), review["request"]["object"].dump()};
}

void check_pair(benchmark::State& state, const Pair* pair) {
  const auto run = [pair] {
    auto old_side = cli::parse_manifests(pair->old_text, "old.json");
    auto new_side = cli::parse_manifests(pair->new_text, "new.json");
    if (!old_side.ok() || !new_side.ok()) return std::string();
    auto report = cli::check_manifests(old_side.value(), new_side.value(), {});
    return report.ok() ? cli::render(report.value(), cli::Format::kText) : std::string();
  };
  // A pair that check refuses to read, or denies, measures nothing useful: checked once, untimed.
  const std::string first = run();
  if (first.find("0 denied, 1 allowed (1 updated") == std::string::npos) {
    state.SkipWithError(("check did not allow the update: " + first).c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(run());
  const auto bytes = pair->old_text.size() + pair->new_text.size();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes));
  state.counters["body_bytes"] = static_cast<double>(bytes);
}

void validate_pair(benchmark::State& state, const Pair* pair) {
  const auto run = [pair] {
    auto manifests = cli::parse_manifests(pair->new_text, "new.json");
    if (!manifests.ok()) return std::string();
    auto report = cli::validate_manifests(manifests.value(), {});
    return report.ok() ? cli::render(report.value(), cli::Format::kText) : std::string();
  };
  const std::string first = run();
  if (first.find("0 denied, 1 allowed") == std::string::npos) {
    state.SkipWithError(("validate did not allow the JobSet: " + first).c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(run());
  const auto bytes = pair->new_text.size();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes));
  state.counters["body_bytes"] = static_cast<double>(bytes);
}

// The UPDATE of the pair (the CREATE of its new JobSet when it has no old one) as the API server
// would send it to the validating webhook.
std::string review_body(const Pair& pair) {
  const bool create = pair.old_text.empty();
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
         R"("uid":"u-1","kind":{"group":"jobset.x-k8s.io","version":"v1alpha2","kind":"JobSet"},)"
         R"("resource":{"group":"jobset.x-k8s.io","version":"v1alpha2","resource":"jobsets"},)"
         R"("name":"big","namespace":"default","operation":")" +
         std::string(create ? "CREATE" : "UPDATE") + R"(","object":)" + pair.new_text +
         (create ? std::string() : R"(,"oldObject":)" + pair.old_text) + "}}";
}

// The object of a generated CREATE review, as one manifest file.
Pair create_of(const std::string& name, const std::string& review_path) {
  const Json review = Json::parse(read_file(review_path));
  return {name, "", review["request"]["object"].dump()};
}

void review_pair_bench(benchmark::State& state, const Pair* pair) {
  const std::string body = review_body(*pair);
  const auto run = [&body] {
    auto answer =
        jobset_webhook::admission::handle_review(body, {}, jobset_webhook::Hook::kValidating);
    return answer.ok() ? std::move(answer).value() : std::string();
  };
  const std::string first = run();
  if (first.find(R"("allowed":true)") == std::string::npos) {
    state.SkipWithError(("review did not allow the JobSet: " + first.substr(0, 300)).c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(run());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(body.size()));
  state.counters["body_bytes"] = static_cast<double>(body.size());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const std::string dir = argc > 1 ? argv[1] : JOBSET_BENCH_BODIES_DIR;
  const std::vector<Pair> pairs = {
      review_pair("large-ordinary", dir + "/large-update-replicas.json"),
      labels_pair(60000),
      env_pair(36000),
      env_pair(36000, true),
      create_of("create-ordinary", dir + "/large-create.json"),
      {"create-labels-60000", "", labels_pair(60000).new_text}};
  for (const auto& pair : pairs) {
    if (!pair.old_text.empty())
      benchmark::RegisterBenchmark(("check/" + pair.name).c_str(), check_pair, &pair);
    if (pair.name.rfind("env-ratcheted-", 0) != 0)
      benchmark::RegisterBenchmark(("validate/" + pair.name).c_str(), validate_pair, &pair);
    benchmark::RegisterBenchmark(("review/" + pair.name).c_str(), review_pair_bench, &pair);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

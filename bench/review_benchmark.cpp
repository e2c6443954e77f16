// In-process benchmarks of the hot path, for every generated review body
// (scripts/gen-bench-bodies):
//   simdjson_parse  simdjson's DOM parse alone, as handle_review calls it: the floor of the design
//   nlohmann_parse  nlohmann::json::parse of the same bytes: what a typical C++ webhook pays
//   handle_review   the whole decision, request bytes to response bytes
// Each reports bytes of request per second; scripts/bench-ratios turns the JSON output into the
// ratios docs/benchmarks.md sets targets for.
// Besides the generated bodies, the diff's adversarial cases, built here: an unnamed
// list of 1,000 long entries that differ only at their ends (nodeSelectorTerms) becomes 999
// entries (terms-shrink), against the same bytes changed in place (terms-same-length, the
// baseline); 1,000 identical entries becoming 999 (identical-shrink, every lookup a full
// comparison); entries with 40 keys in decreasing order (unsorted-shrink, every object
// sorted); both at once (identical-unsorted-shrink); and the terms with the first one dropped
// (terms-front-shrink, every entry after it at a new index). Each <case>-shrink's time over its <case>-same-length (the same bytes with the last
// entry edited in place) is the ratio docs/benchmarks.md bounds by 3.
// And a scale of many replicatedJobs: 2,000 of them, each scaled (rjobs-scale-all), against the
// same JobSet with one scaled (rjobs-scale-one): every scaled replicatedJob adds its warnings and
// the scale hazards (index shifts, policies, labels), which must stay linear in the JobSet.
//
// Usage: review_benchmark [--benchmark_* flags] [BODIES_DIR]

#include <benchmark/benchmark.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"

namespace {

namespace jw = jobset_webhook;

struct Body {
  std::string name;  // "medium-update-replicas"
  std::string bytes;
  bool expect_allowed;  // what the decision must say, checked before timing
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void set_bytes(benchmark::State& state, const Body& body) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(body.bytes.size()));
  state.counters["body_bytes"] = static_cast<double>(body.bytes.size());
}

void simdjson_parse(benchmark::State& state, const Body* body) {
  simdjson::dom::parser parser;  // reused between iterations, as handle_review's is per thread
  for (auto _ : state) {
    jw::JsonView root;
    if (parser.parse(body->bytes.data(), body->bytes.size()).get(root) != simdjson::SUCCESS) {
      state.SkipWithError("simdjson refused the body");
      break;
    }
    benchmark::DoNotOptimize(root);
  }
  set_bytes(state, *body);
}

void nlohmann_parse(benchmark::State& state, const Body* body) {
  for (auto _ : state) {
    auto doc = nlohmann::json::parse(body->bytes, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      state.SkipWithError("nlohmann refused the body");
      break;
    }
    benchmark::DoNotOptimize(doc);
  }
  set_bytes(state, *body);
}

void handle_review(benchmark::State& state, const Body* body) {
  const jw::Policy policy;
  // A benchmark of the wrong path (a 400, or a decision that differs from the case's) measures
  // nothing useful: check the answer once, untimed.
  const auto first = jw::admission::handle_review(body->bytes, policy, jw::Hook::kValidating);
  const std::string want = body->expect_allowed ? "\"allowed\":true" : "\"allowed\":false";
  if (!first.ok() || first.value().find(want) == std::string::npos ||
      (!body->expect_allowed && first.value().find("\"code\":422") == std::string::npos)) {
    state.SkipWithError(("unexpected decision for " + body->name).c_str());
    return;
  }
  for (auto _ : state) {
    auto response = jw::admission::handle_review(body->bytes, policy, jw::Hook::kValidating);
    benchmark::DoNotOptimize(response);
  }
  set_bytes(state, *body);
}

// An UPDATE review whose JobSet's first pod template holds `terms` as its required node affinity.
std::string terms_review(const std::string& old_terms, const std::string& new_terms) {
  const auto object = [](const std::string& terms) {
    return R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js",)"
           R"("namespace":"default"},"spec":{"replicatedJobs":[{"name":"w","replicas":1,)"
           R"("template":{"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{)"
           R"("requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":)" +
           terms + R"(}}},"containers":[{"image":"bash:5.2","name":"main"}]}}}}}]}})";
  };
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
         R"("uid":"00000000-0000-0000-0000-000000000015","kind":{"group":"jobset.x-k8s.io",)"
         R"("version":"v1alpha2","kind":"JobSet"},"resource":{"group":"jobset.x-k8s.io",)"
         R"("version":"v1alpha2","resource":"jobsets"},"name":"js","namespace":"default",)"
         R"("operation":"UPDATE","userInfo":{"username":"bench"},"object":)" +
         object(new_terms) + R"(,"oldObject":)" + object(old_terms) + "}}";
}

// A list of n terms: term(i) for each, skipping index `skip` (-1: none).
template <typename Term>
std::string term_list(int n, int skip, Term term) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    if (i == skip) continue;
    if (out.size() > 1) out += ",";
    out += term(i);
  }
  return out + "]";
}

std::vector<Body> adversarial_bodies() {
  const std::string prefix = "topology.example.com/" + std::string(380, 'p');
  // Entry i, or entry `changed` in its place when the same-length baseline edits one in place.
  const auto distinct = [&](int i) {
    return R"({"matchExpressions":[{"key":")" + prefix + std::to_string(10000 + i) +
           R"(","operator":"In","values":["zone-a"]}]})";
  };
  const auto identical = [&](int i) { return distinct(i == 1999 ? 1999 : 0); };
  const auto unsorted = [&](int i) {
    std::string members;
    for (int k = 40; k > 0; --k)
      members += R"("k)" + std::to_string(100 + k) + R"(":"v)" + std::to_string(10000 + i) + "\",";
    return R"({"matchFields":[{"values":["a"],"operator":"In","key":"k"}],)" + members +
           R"("matchExpressions":[]})";
  };
  std::vector<Body> out;
  // Both at once: every lookup confirmed by a full comparison of 40-member objects out of order.
  const auto identical_unsorted = [&](int i) { return unsorted(i == 1999 ? 1999 : 0); };
  const auto add = [&](const std::string& name, const auto& term, int dropped = 500) {
    const auto edited = [&](int i) { return term(i == 999 ? 1999 : i); };
    out.push_back({name + "-same-length",
                   terms_review(term_list(1000, -1, term), term_list(1000, -1, edited)), false});
    out.push_back({name + "-shrink",
                   terms_review(term_list(1000, -1, term), term_list(1000, dropped, term)), false});
  };
  add("terms", distinct);
  add("identical", identical);
  add("unsorted", unsorted);
  add("identical-unsorted", identical_unsorted);
  add("terms-front", distinct, 0);  // every later entry moves
  return out;
}

// An UPDATE review of a JobSet with n replicatedJobs of 2 replicas, `scaled` of them (the first
// ones) down to 1.
std::string scale_review(int n, int scaled) {
  const auto object = [n](int scaled_count) {
    std::string jobs;
    for (int i = 0; i < n; ++i) {
      if (i > 0) jobs += ",";
      jobs += R"({"name":"r)" + std::to_string(i) + R"(","replicas":)" +
              (i < scaled_count ? "1" : "2") +
              R"(,"template":{"spec":{"template":{"spec":{"containers":[{"image":"bash:5.2",)"
              R"("name":"main"}]}}}}})";
    }
    return R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js",)"
           R"("namespace":"default"},"spec":{"replicatedJobs":[)" +
           jobs + "]}}";
  };
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
         R"("uid":"00000000-0000-0000-0000-000000000016","kind":{"group":"jobset.x-k8s.io",)"
         R"("version":"v1alpha2","kind":"JobSet"},"resource":{"group":"jobset.x-k8s.io",)"
         R"("version":"v1alpha2","resource":"jobsets"},"name":"js","namespace":"default",)"
         R"("operation":"UPDATE","userInfo":{"username":"bench"},"object":)" +
         object(scaled) + R"(,"oldObject":)" + object(0) + "}}";
}

std::vector<Body> scale_bodies() {
  return {{"rjobs-scale-one", scale_review(2000, 1), true},
          {"rjobs-scale-all", scale_review(2000, 2000), true}};
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  // simdjson picks its kernel for the CPU at run time (icelake with AVX-512, haswell with AVX2,
  // ...); under valgrind it sees a CPU without AVX-512. Say which one was measured.
  benchmark::AddCustomContext("simdjson_implementation",
                              simdjson::get_active_implementation()->name());
  const std::string dir = argc > 1 ? argv[1] : JOBSET_BENCH_BODIES_DIR;
  std::vector<Body> bodies;
  for (const char* size : {"small", "medium", "large"}) {
    for (const char* kase : {"update-replicas", "update-image", "create"}) {
      const std::string name = std::string(size) + "-" + kase;
      std::string bytes = read_file(dir + "/" + name + ".json");
      if (bytes.empty()) {
        std::cerr << "review_benchmark: cannot read " << dir << "/" << name
                  << ".json (run scripts/gen-bench-bodies)\n";
        return 2;
      }
      bodies.push_back({name, std::move(bytes), std::string_view(kase) != "update-image"});
    }
  }
  for (auto& body : adversarial_bodies()) bodies.push_back(std::move(body));
  for (auto& body : scale_bodies()) bodies.push_back(std::move(body));
  for (const auto& body : bodies) {
    benchmark::RegisterBenchmark(("simdjson_parse/" + body.name).c_str(), simdjson_parse, &body);
    benchmark::RegisterBenchmark(("nlohmann_parse/" + body.name).c_str(), nlohmann_parse, &body);
    benchmark::RegisterBenchmark(("handle_review/" + body.name).c_str(), handle_review, &body);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
